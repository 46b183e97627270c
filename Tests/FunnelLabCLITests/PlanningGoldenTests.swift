import Foundation
import FunnelReport
import Testing

@testable import FunnelLabCLI

/// Goldens of the headlines issue 57 changed, per format: a plan with a tie and an arm inside the
/// margin, a formula with planned looks and traffic, and `analyze --margin`.
@Suite struct PlanningGoldenTests {
  static let sixArms = ["power", "Tests/Fixtures/decisions/six-arms.json", "--replicates", "200", "--users-per-day", "20000"]

  @Test func sixArmsPlanGolden() throws {
    try expectGoldens(
      Self.sixArms, [(.json, "power-six-arms.json"), (.csv, "power-six-arms.csv"), (.markdown, "power-six-arms.md")])
  }

  @Test func sixArmsRevenuePlanGolden() throws {
    try expectGoldens(
      Self.sixArms + ["--metric", "revenuePerUser"], [(.json, "power-six-arms-revenue.json"), (.markdown, "power-six-arms-revenue.md")])
  }

  @Test func looksGolden() throws {
    try expectGoldens(
      ["power", "--baseline", "0.1", "--mde", "0.01", "--looks", "5", "--users-per-day", "2000"],
      [(.json, "power-looks.json"), (.markdown, "power-looks.md")])
  }

  @Test func marginGolden() throws {
    try expectGoldens(
      ["analyze", "--data", "experiments/data/klick-results.csv", "--allocation", "control=90,b=10", "--margin", "0.01"],
      [(.json, "analyze-margin.json"), (.markdown, "analyze-margin.md")])
  }
}
