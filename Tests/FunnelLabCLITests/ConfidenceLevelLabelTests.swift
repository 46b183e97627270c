import Foundation
import FunnelReport
import FunnelTestSupport
import Testing

@testable import FunnelLabCLI

/// Interval labels come from α: at α = 0.1 every report of every command says 90 %
/// and never 95 %, in every format.
@Suite struct ConfidenceLevelLabelTests {
  static let spec = "experiments/klick-onboarding.json"
  static let commands: [(name: String, arguments: [String])] = [
    ("run", ["run", spec, "--users", "2000", "--seed", "7", "-q", "--alpha", "0.1"]),
    ("experiment", ["run", spec, "--users", "2000", "--seed", "7", "-q", "--mode", "experiment", "--alpha", "0.1"]),
    ("grid", ["grid", spec, "--users", "300", "--seed", "7", "-q", "--alpha", "0.1"]),
    ("analyze", ["analyze", "--arm", "control=1000:120", "--arm", "b=1000:150", "--alpha", "0.1"]),
    ("power", ["power", "--baseline", "0.1", "--mde", "0.02", "--alpha", "0.1"]),
    ("planning", ["power", spec, "--variant", "features5", "--replicates", "200", "--users-per-day", "20000", "--alpha", "0.1"]),
  ]

  static func output(_ arguments: [String]) -> String {
    let console = CapturingConsole()
    let code = FunnelLabCommandLine.run(arguments, console: console)
    #expect(code == 0, "\(arguments): \(console.stderr)")
    return console.stdout
  }

  /// Whether `text` has a "95%" or "95 %" label: not the end of a number such as 66.95%.
  static func saysNinetyFive(_ text: String) -> Bool {
    text.matches(of: /(^|[^0-9.])95 ?%/.anchorsMatchLineEndings()).isEmpty == false
  }

  @Test func theLabelCheckSeesLabelsNotNumbers() {
    #expect(Self.saysNinetyFive("a 95% interval") && Self.saysNinetyFive("(95 % CI)"))
    #expect(!Self.saysNinetyFive("66.95% · 195% · 0.95"))
  }

  /// Each command runs once, end to end, in Markdown (compared with its golden at α = 0.1); the
  /// report it wrote is rendered in the other formats through the command's own call
  /// (``CapturingConsole``), and none of them says 95 %.
  @Test(arguments: commands.map(\.name))
  func everyFormatSaysNinetyPercent(command: String) throws {
    let arguments = try #require(Self.commands.first { $0.name == command }).arguments
    let others: [ReportFormat] = [.table, .csv, .html]
    let console = CapturingConsole(alsoRendering: others)
    let code = FunnelLabCommandLine.run(arguments + ["--format", "markdown"], console: console)
    #expect(code == 0, "\(arguments): \(console.stderr)")
    try expectGolden(console.stdout, "alpha-0.1/\(command).md")
    for format in [ReportFormat.markdown] + others {
      let text = try #require(format == .markdown ? console.stdout : console.rendering(format), "\(command): no \(format.rawValue)")
      #expect(!Self.saysNinetyFive(text), "\(command) --format \(format.rawValue) prints a fixed 95% label")
      // The formula-mode power report has no interval to label.
      guard command != "power" else { continue }
      if format == .csv {
        // A CSV carries the level as data: a confidence_level column (0.9), or the planning report's alpha column (0.1).
        let level = text.contains("confidence_level") && text.contains(",0.9")
        let alpha = text.split(separator: "\n").first?.split(separator: ",").contains("alpha") == true && text.contains(",0.1,")
        #expect(level || alpha, "\(command) CSV does not say its level")
      } else {
        #expect(text.contains("90%"), "\(command) --format \(format.rawValue) does not label its intervals 90%")
      }
    }
  }
}
