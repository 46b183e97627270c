import FunnelStats
import FunnelTestSupport
import Testing

@testable import FunnelLab

/// Relative lifts in runs: every comparison carries one whose interval agrees with the test
/// beside it, the exact lift is the exact engine's, and the refund rate has its truth.
@Suite struct RelativeLiftInRunsTests {
  /// In truth mode (paired) and for the unpaired metrics, over every seed flow: the lift's
  /// interval excludes 0 exactly when the difference's interval does (both invert the same test).
  @Test(.longStage, arguments: seedExperiments)
  func liftIntervalsAgreeWithTheDifferences(name: String) throws {
    let e = try ExperimentLoader.load(contentsOf: experimentPath(name))
    let result = try ExperimentRunner.run(e, options: RunOptions(users: 20_000))
    var compared = 0
    for s in FunnelSummary.all(result).dropFirst() {
      for c in s.comparisons {
        guard let d = c.difference?.interval, let lift = c.relativeLift?.interval else { continue }
        let p = c.test?.pValue ?? .nan
        // A p-value at the level itself could fall either way by rounding.
        guard abs(p - 0.05) > 1e-6 else { continue }
        #expect(!lift.contains(0) == !d.contains(0), "\(name) \(s.variant) \(c.metric): lift \(lift) Δ \(d) p \(p)")
        if let estimate = c.relativeLift?.estimate { #expect(lift.lower <= estimate && estimate <= lift.upper) }
        compared += 1
      }
    }
    #expect(compared > 0 || result.variants.count == 1)
  }

  /// The exact lift is exact value / exact control − 1, in summaries and experiment reports.
  @Test(.longStage) func exactLiftIsTheExactRatio() throws {
    let e = try ExperimentLoader.load(contentsOf: experimentPath("klick-onboarding"))
    let result = try ExperimentRunner.run(e, options: RunOptions(users: 2_000))
    let summaries = FunnelSummary.all(result)
    let control = try #require(summaries.first?.exact)
    for s in summaries.dropFirst() {
      let v = try #require(s.exact)
      for metric: FunnelMetric in [.completionRate, .purchaseConversion, .revenuePerUser] {
        let expected = try #require(v.value(of: metric)) / (try #require(control.value(of: metric))) - 1
        #expect(abs((s.exactRelativeLift(metric) ?? .nan) - expected) < 1e-12, "\(s.variant) \(metric)")
      }
    }
    var arm = ArmMetricResult(arm: "b", estimate: MetricEstimate(metric: .purchaseConversion, estimate: nil, interval: nil, n: 0))
    arm.trueValue = 0.05
    arm.trueDifference = 0.01
    #expect(abs((arm.trueRelativeLift ?? .nan) - 0.25) < 1e-15)
    arm.trueDifference = 0.05
    #expect(arm.trueRelativeLift == nil)  // the control's exact value is 0
  }

  /// The refund rate (refunds of purchasers) agrees with the exact engine's on every seed
  /// flow that sells plans (one family of checks).
  @Test func refundRateMatchesTheExactEngine() throws {
    let band = StatisticalBand(checks: seedExperiments.count)
    for name in seedExperiments {
      let e = try ExperimentLoader.load(contentsOf: experimentPath(name))
      let flow = try FlowCompiler.compile(e, variant: 0)
      let a = MonteCarloEngine().run(flow, users: 200_000, seed: 23)
      let exact = ExactEngine.solve(flow)
      guard let truth = exact.value(of: .refundRate) else {
        #expect(flow.plans.isEmpty || a[.purchasers] == 0, "\(name): refunds without an exact rate")
        continue
      }
      #expect(truth > 0 || flow.revenue.refundProbability == 0, "\(name)")
      band.expectProportion(a[.refunds], of: a[.purchasers], exact: truth, "\(name) refund rate")
    }
  }
}
