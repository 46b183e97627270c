import FunnelStats
import FunnelTestSupport
import Testing

@testable import FunnelLab

/// The exact realized-revenue curve (``ExactFunnel/realizedRevenueCurve``).
@Suite struct RealizedRevenueCurveTests {
  /// It rises from the first week to the horizon, ends at the horizon revenue, passes
  /// through the realized revenue at the analysis day, and each point is what a whole solve
  /// with that day as the analysis day gives.
  @Test(.longStage, arguments: ["klick-onboarding", "betfree-onboarding"])
  func curveIsTheRealizedRevenueOfEachDay(name: String) throws {
    var e = try ExperimentLoader.load(contentsOf: experimentPath(name))
    let x = ExactEngine.solve(try FlowCompiler.compile(e, variant: 0))
    let curve = x.realizedRevenueCurve
    #expect(curve.count >= 14)
    #expect(zip(curve, curve.dropFirst()).allSatisfy { $0.day < $1.day && $0.perUser <= $1.perUser + 1e-12 })
    #expect(abs((curve.last?.perUser ?? .nan) - x.revenuePerUser) < 1e-12)
    let atAnalysisDay = try #require(curve.first { $0.day == e.revenue.analysisDay })
    #expect(atAnalysisDay.perUser == x.realizedRevenuePerUser)
    for point in curve where [7.0, 14].contains(point.day) || Int(point.day) % 91 == 0 {
      e.revenue.analysisDay = point.day
      let solved = ExactEngine.solve(try FlowCompiler.compile(e, variant: 0))
      #expect(abs(solved.realizedRevenuePerUser - point.perUser) < 1e-12, "\(name) day \(point.day)")
    }
  }

  /// A Monte Carlo run with the analysis day at a point of the curve realizes that point's
  /// revenue per user, within a statistical band (3 days × 2 flows).
  @Test func monteCarloAgreesWithTheCurve() throws {
    let band = StatisticalBand(checks: 6)
    for name in ["klick-onboarding", "betfree-onboarding"] {
      var e = try ExperimentLoader.load(contentsOf: experimentPath(name))
      let curve = ExactEngine.solve(try FlowCompiler.compile(e, variant: 0)).realizedRevenueCurve
      for point in [curve[0], curve[curve.count / 2], curve[curve.count - 1]] {
        e.revenue.analysisDay = point.day
        let flow = try FlowCompiler.compile(e, variant: 0)
        let a = MonteCarloEngine().run(flow, users: 100_000, seed: 29)
        guard case .mean(let m) = FunnelMetric.realizedRevenuePerUser.data(in: a) else { throw CurveTestFailure() }
        band.expectMean(m, exact: point.perUser, "\(name) realized by day \(point.day)")
      }
    }
  }

  @Test func daysRunFromTheFirstWeekToTheHorizon() {
    var settings = RevenueSettings()
    settings.horizonMonths = 3
    settings.analysisDay = 20
    let days = settings.curveDays
    #expect(days.map { ($0 * 100).rounded() / 100 } == [7, 14, 20, 30.44, 60.88, 91.31])
    settings.analysisDay = 1000  // beyond the horizon: left out
    #expect(!settings.curveDays.contains(1000))
  }
}

private struct CurveTestFailure: Error {}
