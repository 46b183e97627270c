import FunnelStats
import FunnelTestSupport
import Testing

@testable import FunnelLab

/// The decision summary: the call on the primary metric, and a conflict with the money
/// said where the decision and revenue per user disagree.
@Suite struct DecisionSummaryTests {
  /// One arm's result on `metric`: a difference `d` (interval ± 0.01), significant or not,
  /// with the exact difference `truth` and the equivalence margin `margin`.
  func result(_ arm: String, _ metric: FunnelMetric, d: Double, significant: Bool, truth: Double?, margin: Double = 0)
    -> ArmMetricResult
  {
    var r = ArmMetricResult(arm: arm, estimate: MetricEstimate(metric: metric, estimate: 0.5 + d, interval: nil, n: 1000))
    let interval = ConfidenceInterval(lower: d - 0.01, upper: d + 0.01, confidenceLevel: 0.95, method: "test")
    r.comparison = MetricComparison(metric: metric, difference: IntervalEstimate(estimate: d, interval: interval), test: nil)
    r.significant = significant
    r.trueValue = truth.map { 0.5 + $0 }
    r.trueDifference = truth
    r.equivalenceMargin = margin
    return r
  }

  func control(_ metric: FunnelMetric) -> ArmMetricResult {
    ArmMetricResult(arm: "control", estimate: MetricEstimate(metric: metric, estimate: 0.5, interval: nil, n: 1000))
  }

  func summary(
    _ metric: FunnelMetric, _ arms: [ArmMetricResult], decisions: [Decision], revenue: [ArmMetricResult]? = nil,
    mismatch: Bool = false
  ) -> DecisionSummary {
    DecisionSummary(
      control: "control", primary: MetricResult(metric: metric, arms: [control(metric)] + arms), guardrails: [],
      revenue: revenue.map { MetricResult(metric: .revenuePerUser, arms: [control(.revenuePerUser)] + $0) },
      decisions: zip(arms, decisions).map { ($0.arm, $1) }, sampleRatioMismatch: mismatch, spec: MetricsSpec())
  }

  @Test func theCallFollowsSignificanceAndTheMetricsDirection() {
    let arms = [
      result("up", .purchaseConversion, d: 0.02, significant: true, truth: 0.02),
      result("down", .purchaseConversion, d: -0.02, significant: true, truth: -0.02),
      result("flat", .purchaseConversion, d: 0.02, significant: false, truth: 0.0),
    ]
    let s = summary(.purchaseConversion, arms, decisions: [.ship, .doNotShip, .noDecision])
    #expect(s.arms.map(\.call) == [.wins, .loses, .noDetectableDifference])
    #expect(s.arms.map(\.decision) == [.ship, .doNotShip, .noDecision])
    #expect(s.arms.map(\.primary.trueDifference) == [0.02, -0.02, 0.0])
    // Lower is better for time to finish: a significant rise loses.
    let slower = summary(.timeToFinish, [result("slower", .timeToFinish, d: 3, significant: true, truth: 3)], decisions: [.doNotShip])
    #expect(slower.arms.map(\.call) == [.loses])
    // A flagged split overrides every call, and no conflict is read from broken data.
    let broken = summary(
      .purchaseConversion, arms, decisions: [.sampleRatioMismatch, .sampleRatioMismatch, .sampleRatioMismatch],
      revenue: arms.map { result($0.arm, .revenuePerUser, d: -1, significant: true, truth: -1) }, mismatch: true)
    #expect(broken.arms.map(\.call) == [.doNotTrust, .doNotTrust, .doNotTrust])
    #expect(broken.arms.allSatisfy { $0.conflict == nil && $0.revenue != nil })
  }

  /// Each row: the decision, revenue per user's observed difference and significance, its
  /// exact difference and margin, and the conflict expected (kind, evidence).
  @Test(arguments: [
    (
      Decision.ship, -0.2, false, -0.02 as Double?, 0.01, DecisionSummary.Conflict.shipsButLosesRevenue as DecisionSummary.Conflict?,
      DecisionSummary.Evidence.truth as DecisionSummary.Evidence?
    ),
    (.ship, -0.2, true, -0.005, 0.01, .shipsButLosesRevenue, .observed),
    (.ship, -0.2, false, -0.005, 0.01, nil, nil),
    (.ship, 0.2, true, 0.03, 0.01, nil, nil),
    (.doNotShip, -0.2, false, 0.03, 0.01, .heldBackButGainsRevenue, .truth),
    (.noDecision, 0.2, true, nil, 0, .heldBackButGainsRevenue, .observed),
    (.doNotShip, -0.2, true, -0.03, 0.01, nil, nil),
    (.noDecision, 0.0, false, 0.0, 0, nil, nil),
  ])
  func moneyThatContradictsTheDecisionIsAConflict(
    decision: Decision, observed: Double, significant: Bool, truth: Double?, margin: Double,
    kind: DecisionSummary.Conflict?, evidence: DecisionSummary.Evidence?
  ) throws {
    let arm = result("b", .purchaseConversion, d: 0.01, significant: decision != .noDecision, truth: 0.01)
    let money = result("b", .revenuePerUser, d: observed, significant: significant, truth: truth, margin: margin)
    let line = try #require(summary(.purchaseConversion, [arm], decisions: [decision], revenue: [money]).arms.first)
    #expect(line.conflict?.kind == kind)
    #expect(line.conflict?.evidence == evidence)
    #expect(line.revenue?.trueDifference == truth)
  }

  /// A flow without a paywall has no revenue line; one with plans has it, from the report's
  /// secondary metrics.
  @Test func revenueIsReadOnlyForAFlowThatSellsPlans() throws {
    for (name, sells) in [("urbannest-onboarding", false), ("betfree-onboarding", true)] {
      var e = try ExperimentLoader.load(contentsOf: experimentPath(name))
      e.variants = Array(e.variants.prefix(2))
      let run = try ExperimentRunner.run(e, options: RunOptions(users: 2_000, mode: .experiment))
      let summary = DecisionSummary(ExperimentReport(observed: run, spec: e.metrics))
      #expect(summary.arms.map(\.arm) == [e.variants[1].id], "\(name)")
      #expect(summary.arms.allSatisfy { ($0.revenue != nil) == sells }, "\(name)")
      #expect(summary.primary == DecisionSummary.Metric(e.metrics.primary))
    }
  }

  /// BetFree at its planned size, in experiment mode: the test ships the higher yearly price
  /// on purchase conversion although it truly loses revenue per user, and holds back the
  /// lifetime default that truly gains it; both conflicts are said, by the truth.
  @Test func betfreesDecisionsOnConversionConflictWithItsMoney() throws {
    let e = try ExperimentLoader.load(contentsOf: experimentPath("betfree-onboarding"))
    let run = try ExperimentRunner.run(e, options: RunOptions(mode: .experiment))
    let summary = DecisionSummary(ExperimentReport(observed: run, spec: e.metrics))
    let lines = Dictionary(uniqueKeysWithValues: summary.arms.map { ($0.arm, $0) })
    let price = try #require(lines["yearlyPrice4999"])
    #expect(price.decision == .ship && price.call == .wins)
    #expect(price.conflict == DecisionSummary.MoneyConflict(kind: .shipsButLosesRevenue, evidence: .truth))
    #expect(try #require(price.revenue?.trueRelativeLift) < -0.01)
    let lifetime = try #require(lines["defaultLifetime"])
    #expect(lifetime.decision == .doNotShip && lifetime.call == .loses)
    #expect(lifetime.conflict == DecisionSummary.MoneyConflict(kind: .heldBackButGainsRevenue, evidence: .truth))
    #expect(try #require(lines["defaultMonthly"]).conflict == nil)
  }
}
