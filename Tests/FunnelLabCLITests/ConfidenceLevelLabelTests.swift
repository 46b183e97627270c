import Foundation
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

  @Test(.longStage, arguments: commands.map(\.name))
  func everyFormatSaysNinetyPercent(command: String) throws {
    let arguments = try #require(Self.commands.first { $0.name == command }).arguments
    for format in ["table", "csv", "markdown", "html"] {
      let text = Self.output(arguments + ["--format", format])
      #expect(!Self.saysNinetyFive(text), "\(command) --format \(format) prints a fixed 95% label")
      // The formula-mode power report has no interval to label.
      guard command != "power" else { continue }
      if format == "csv" {
        // A CSV carries the level as data: a confidence_level column (0.9), or the planning report's alpha column (0.1).
        let level = text.contains("confidence_level") && text.contains(",0.9")
        let alpha = text.split(separator: "\n").first?.split(separator: ",").contains("alpha") == true && text.contains(",0.1,")
        #expect(level || alpha, "\(command) CSV does not say its level")
      } else {
        #expect(text.contains("90%"), "\(command) --format \(format) does not label its intervals 90%")
      }
    }
  }

  /// Golden Markdown of every renderer at α = 0.1.
  @Test(arguments: commands.map(\.name))
  func goldenAtAlphaTenPercent(command: String) throws {
    let arguments = try #require(Self.commands.first { $0.name == command }).arguments
    try expectGolden(Self.output(arguments + ["--format", "markdown"]), "alpha-0.1/\(command).md")
  }
}
