import Foundation
import Testing

@testable import FunnelLabCLI

/// Goldens of the headlines issue 57 changed, per format: a plan with a tie and an arm inside the
/// margin, a formula with planned looks and traffic, and `analyze --margin`.
@Suite struct PlanningGoldenTests {
  func output(_ arguments: [String]) -> String {
    let console = CapturingConsole()
    let code = FunnelLabCommandLine.run(arguments, console: console)
    #expect(code == 0, "\(console.stderr)")
    return console.stdout
  }

  static let sixArms = ["power", "Tests/Fixtures/decisions/six-arms.json", "--replicates", "200", "--users-per-day", "20000"]

  @Test(arguments: [("json", "power-six-arms.json"), ("csv", "power-six-arms.csv"), ("markdown", "power-six-arms.md")])
  func sixArmsPlanGolden(format: String, file: String) throws {
    try expectGolden(output(Self.sixArms + ["--format", format]), file)
  }

  @Test(arguments: [("json", "power-six-arms-revenue.json"), ("markdown", "power-six-arms-revenue.md")])
  func sixArmsRevenuePlanGolden(format: String, file: String) throws {
    try expectGolden(output(Self.sixArms + ["--metric", "revenuePerUser", "--format", format]), file)
  }

  @Test(arguments: [("json", "power-looks.json"), ("markdown", "power-looks.md")])
  func looksGolden(format: String, file: String) throws {
    try expectGolden(
      output(["power", "--baseline", "0.1", "--mde", "0.01", "--looks", "5", "--users-per-day", "2000", "--format", format]), file)
  }

  @Test(arguments: [("json", "analyze-margin.json"), ("markdown", "analyze-margin.md")])
  func marginGolden(format: String, file: String) throws {
    try expectGolden(
      output([
        "analyze", "--data", "experiments/data/klick-results.csv", "--allocation", "control=90,b=10", "--margin", "0.01", "--format",
        format,
      ]), file)
  }
}
