import Foundation
import FunnelTestSupport
import Testing

/// A command builds its report and writes it in the `--format` asked for through one call
/// (`OutputDestination.write(_:as:console:)`); it never chooses a renderer by the format (issue 60):
/// no `switch` over a format, no comparison of one, no renderer of a report called by its format,
/// and every `--format` of a report is declared from the reports it writes (`.format(for:)`).
@Suite struct ReportChoiceTests {
  /// The command line's sources, by file name.
  static let sources: [(name: String, text: String)] = {
    let folder = repositoryRoot.appendingPathComponent("Sources/FunnelLabCLI")
    let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
    return names.filter { $0.hasSuffix(".swift") }.sorted().compactMap { name in
      (try? String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8)).map { (name, $0) }
    }
  }()

  /// The renderers of the data files the command line writes (an event log, counts read back by
  /// `analyze`), which are not reports and have no `--format` choice.
  static let dataFileRenderers = ["IngestRenderer", "TraceRenderer"]

  /// What choosing a renderer by the format looks like.
  static let choices = [
    #"switch\b[^{]*\bformat\b"#, #"\bformat\s*[!=]=\s*\.(table|json|csv|markdown|html|github)\b"#,
    #"case\s+\.(table|json|csv|markdown|html|github)\s*:"#,
    #"\b(\w+)Renderer\.(table|json|csv|markdown|html|github)\("#,
  ]

  @Test func theSourcesAreRead() { #expect(Self.sources.count > 20) }

  @Test(arguments: choices)
  func noCommandChoosesARendererByTheFormat(pattern: String) throws {
    let regex = try NSRegularExpression(pattern: pattern)
    for (name, text) in Self.sources {
      for (k, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
        let string = String(line)
        let range = NSRange(string.startIndex..., in: string)
        guard let match = regex.firstMatch(in: string, range: range), let found = Range(match.range, in: string) else { continue }
        if Self.dataFileRenderers.contains(where: { string[found].hasPrefix($0) }) { continue }
        Issue.record("\(name):\(k + 1) chooses a renderer by the format: \(string.trimmingCharacters(in: .whitespaces))")
      }
    }
  }

  /// Every `--format` of a report comes from the report types a command writes, never a list of its own.
  @Test func everyFormatOptionIsDeclaredFromItsReports() throws {
    let declared = try NSRegularExpression(pattern: #"Option<OutputFormat>\.format\("#)
    let fromReports = try NSRegularExpression(pattern: #"Option<OutputFormat>\.format\(\s*for:"#)
    let words = try NSRegularExpression(pattern: #"\.choice\(\s*"format""#)
    for (name, text) in Self.sources {
      let range = NSRange(text.startIndex..., in: text)
      #expect(
        declared.numberOfMatches(in: text, range: range) == fromReports.numberOfMatches(in: text, range: range),
        "\(name): a --format declared by a list of formats")
      // `trace --format ndjson` names the one shape of an event log it writes, not a report's format.
      #expect(
        words.numberOfMatches(in: text, range: range) == 0 || name == "TraceCommand.swift",
        "\(name): a --format declared as a choice of words")
    }
  }
}
