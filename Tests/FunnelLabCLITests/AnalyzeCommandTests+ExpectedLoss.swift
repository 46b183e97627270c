import Foundation
import FunnelLab
import FunnelReport
import FunnelTestSupport
import Testing

@testable import FunnelLabCLI

/// The expected loss (GrowthBook's "risk") beside P(beat) in every format of `analyze` (issue 59):
/// the terminal keeps it at 100 columns, folding other columns first; Markdown and HTML show it.
extension AnalyzeCommandTests {
  /// `analyze` with `arguments` on a console with `environment`: its stdout (the command must succeed).
  func text(_ arguments: [String], environment: [String: String] = [:]) -> String {
    let console = CapturingConsole(environment: environment)
    let code = FunnelLabCommandLine.run(arguments, console: console)
    #expect(code == 0, "\(arguments): \(console.stderr)")
    return console.stdout
  }

  /// Each comparison's expected loss as the reports write it (`0.033 pp`), from the JSON's fraction.
  func expectedLossCells(_ arguments: [String]) throws -> [String] {
    guard case .array(let comparisons)? = try json(arguments)["comparisons"]?.kind else { return [] }
    return comparisons.compactMap { c in number(c, "expectedLoss").map { NumberText.fixed($0 * 100, 3) + " pp" } }
  }

  /// Arms of two, three and four arms (no correction), a sample ratio mismatch (the long verdict
  /// splits the table), and revenue.
  static let expectedLossArms: [[String]] = [
    ["control=10000:1200", "b=10000:1400"],
    ["control=10000:1200", "b=10000:1400", "c=10000:1250"],
    ["control=10000:1200", "b=10000:1400", "c=10000:1250", "d=10000:1190", "--correction", "none"],
    ["control=10000:1200", "b=10500:1400"],
    ["control=10000:1200:25000:900000", "b=10000:1400:27000:1000000", "c=10000:1250:26000:950000"],
  ]

  /// `--arm` before each `name=…` of `arms`; other arguments as they are.
  static func analyze(_ arms: [String]) -> [String] {
    ["analyze"] + arms.flatMap { $0.contains("=") ? ["--arm", $0] : [$0] }
  }

  /// At 100 columns (`COLUMNS=100`, and the width when stdout is not a terminal) the comparison
  /// table keeps its expected-loss column: the raw p, the Δ interval and Δ are left out first.
  @Test(arguments: expectedLossArms, [["COLUMNS": "100"], [:]])
  func expectedLossStaysInTheTerminalAt100Columns(arms: [String], environment: [String: String]) throws {
    let out = text(Self.analyze(arms), environment: environment)
    let lines = out.split(separator: "\n")
    #expect(lines.allSatisfy { TextWidth.columns($0) <= 100 }, "\(out)")
    #expect(lines.contains { $0.hasPrefix("  arm vs control") && $0.contains(Vocabulary.expectedLoss) }, "\(out)")
    #expect(!lines.contains { $0.contains("left out:") && $0.contains(Vocabulary.expectedLoss) }, "\(out)")
    let cells = try expectedLossCells(Self.analyze(arms))
    #expect(cells.count == arms.filter { $0.contains("=") }.count - 1)
    for cell in cells { #expect(out.contains(cell), "\(cell) missing:\n\(out)") }
  }

  /// The Markdown arms table has `exp. loss` right after `P(beat)`, each comparison's value under it
  /// (in percentage points, as the terminal writes it) and nothing under it for the control.
  @Test func markdownShowsTheExpectedLossBesidePBeat() throws {
    let arguments = Self.analyze(Self.expectedLossArms[1])
    let rows = text(arguments + ["--format", "markdown"]).split(separator: "\n").filter { $0.hasPrefix("| ") }
      .map { $0.split(separator: "|", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) } }
    let header = try #require(rows.first { $0.contains("P(beat)") })
    let beat = try #require(header.firstIndex(of: "P(beat)"))
    #expect(header[beat + 1] == Vocabulary.expectedLoss)
    let body = rows.filter { $0.count == header.count && $0 != header && !$0[1].hasPrefix("---") }
    #expect(body.map { $0[beat + 1] } == [""] + (try expectedLossCells(arguments)), "\(body)")
  }

  /// The HTML arms table heads `exp. loss` right after `P(beat)`, and each comparison's cell is
  /// labelled for the phone's cards.
  @Test func htmlShowsTheExpectedLossBesidePBeat() throws {
    let arguments = Self.analyze(Self.expectedLossArms[1])
    let html = text(arguments + ["--format", "html"])
    let head = "<th scope=\"col\" class=\"num\">"
    #expect(html.contains("\(head)P(beat)</th>\(head)\(Vocabulary.expectedLoss)</th>"), "\(html)")
    for cell in try expectedLossCells(arguments) {
      #expect(html.contains("data-label=\"\(Vocabulary.expectedLoss)\" data-role=\"verdict\">\(cell)</td>"), "\(cell)")
    }
  }
}
