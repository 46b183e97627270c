import FunnelReport
import FunnelTestSupport
import Testing

@testable import FunnelLabCLI

/// Only the metrics a flow has: UrbanNest and NCDB sell nothing and have no paywall, so no
/// output of theirs, in any format, names a purchase, revenue or paywall metric (a column of
/// zeros, a "P(beat) 49.8 %" of nothing, a chart of an empty curve).
@Suite struct FlowMetricsTests {
  static let formats = ["table", "json", "csv", "markdown", "html"]

  static let commands: [[String]] = [
    ["run", "--users", "1000", "-q"],
    ["run", "--mode", "experiment", "--users", "2000", "-q"],
    ["run", "--mode", "experiment", "--users-per-day", "500", "--days", "3", "-q"],
    ["exact"],
    ["power", "--replicates", "100"],
    ["check"],
  ]

  static let specs = ["urbannest-onboarding", "ncdb-first-launch"]

  /// Each command runs once, end to end, as a table; the report it wrote is rendered in every
  /// other format it is written in through the command's own call (``CapturingConsole``), so
  /// every format of every command is read in both stages.
  @Test(arguments: specs)
  func aFlowWithoutAPaywallShowsNoMoneyMetric(spec: String) throws {
    let words = ["purchase", "revenue", "paywall", "ltv"]
    for command in Self.commands {
      let others = Self.formats.dropFirst().compactMap { ReportFormat(rawValue: $0) }.filter { !(command == ["check"] && $0 == .csv) }
      let console = CapturingConsole(alsoRendering: others)
      let arguments = [command[0], experimentPath(spec)] + command.dropFirst() + ["--format", "table"]
      let code = FunnelLabCommandLine.run(arguments, console: console)
      #expect(code == 0, "\(arguments): \(console.stderr)")
      let outputs = [("table", console.stdout)] + others.map { ($0.rawValue, console.rendering($0)) }
      for (format, output) in outputs {
        let out = try #require(output, "\(spec) \(command.joined(separator: " ")): no \(format) report")
        let text = out.lowercased()
        for word in words where text.contains(word) {
          let line = out.split(separator: "\n").first { $0.lowercased().contains(word) } ?? ""
          Issue.record("\(spec) \(command.joined(separator: " ")) --format \(format) names '\(word)': \(line)")
        }
      }
    }
  }
}
