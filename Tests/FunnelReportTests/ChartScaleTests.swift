import Testing

@testable import FunnelReport

/// ``ChartScale``: nice steps, tick labels with their units, levels from zero.
@Suite struct ChartScaleTests {
  /// The smallest 1, 2 or 5 × 10ᵏ at or above the raw step.
  @Test(arguments: [(0.3, 0.5), (1, 1), (1.01, 2), (2.5, 5), (7, 10), (0.0013, 0.002), (420, 500)])
  func niceStep(raw: Double, nice: Double) {
    #expect(abs(ChartScale.niceStep(atLeast: raw) - nice) < nice * 1e-12)
  }

  /// Differences carry a sign and the unit (attached for `%`), zero is plain `0`, and the
  /// decimals follow the step.
  @Test func tickLabelsCarryTheUnit() {
    let pp = ChartScale(lower: -10, upper: 10, step: 5, unit: "pp", signed: true)
    #expect(pp.ticks.map(pp.label) == ["-10 pp", "-5 pp", "0", "+5 pp", "+10 pp"])
    let usd = ChartScale(lower: -0.2, upper: 0.2, step: 0.1, unit: "USD", signed: true)
    #expect(usd.ticks.map(usd.label) == ["-0.2 USD", "-0.1 USD", "0", "+0.1 USD", "+0.2 USD"])
    let percent = ChartScale.levels([37], unit: "%")
    #expect(percent.ticks.map(percent.label) == ["0", "10%", "20%", "30%", "40%"])
  }

  /// Levels start at zero and end at a tick above the largest value (or the floor given).
  @Test func levelsStartAtZeroAndCoverTheLargestValue() {
    let revenue = ChartScale.levels([0.954, 1.048, 0.977], unit: "USD")
    #expect(revenue.lower == 0 && revenue.upper >= 1.048 && revenue.upper <= 1.5, "\(revenue)")
    let share = ChartScale.levels([], atLeast: 100, unit: "%")
    #expect(share.lower == 0 && share.upper == 100)
    #expect(ChartScale.levels([], unit: "").upper == 1, "nothing to show: one unit")
  }

  /// Positions: the ends of the plot at the ends of the domain, clamped beyond them.
  @Test func positionsAreLinearAndClamped() {
    let s = ChartScale(lower: -2, upper: 2, step: 1, unit: "s", signed: true)
    #expect(s.x(-2, plot: 30...370) == 30 && s.x(0, plot: 30...370) == 200 && s.x(2, plot: 30...370) == 370)
    #expect(s.x(99, plot: 30...370) == 370 && s.x(-.infinity, plot: 30...370) == 30)
  }
}
