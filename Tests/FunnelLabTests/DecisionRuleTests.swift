import FunnelStats
import FunnelTestSupport
import Testing

@testable import FunnelLab

/// The one decision rule: ties are exact, the margin means the same everywhere, the best arm
/// is best only by more than the margin, and one recommendation says what to do about the
/// whole experiment, right at its edges (an A/A copy, a change no buyer reaches, an effect
/// inside the margin, six arms, only a control) and against the truth.
@Suite struct DecisionRuleTests {
  // MARK: - Ties and the margin

  @Test func tiedValuesGiveExactlyZeroAndOthersTheirDifference() {
    #expect(DecisionRule.tied(0.19630000000000003, 0.1963))
    #expect(DecisionRule.difference(0.19630000000000003, control: 0.1963) == 0)
    #expect(DecisionRule.relativeLift(0.19630000000000003, control: 0.1963) == 0)
    // Relative to the magnitude: revenue of 6.26 differing in the 14th digit is a tie.
    #expect(DecisionRule.difference(6.26 + 1.87e-14, control: 6.26) == 0)
    // A difference a test could ever see is not a tie.
    #expect(DecisionRule.difference(0.2000001, control: 0.2) == 0.2000001 - 0.2)
    #expect(!DecisionRule.tied(1e-9, 0))
    #expect(DecisionRule.relativeLift(0.1, control: 0) == nil)
    #expect(DecisionRule.negligible(relativeLift: 0.009, relativeMargin: 0.01))
    #expect(DecisionRule.negligible(relativeLift: -0.01, relativeMargin: 0.01))
    #expect(!DecisionRule.negligible(relativeLift: 0.0101, relativeMargin: 0.01))
    #expect(DecisionRule.negligible(relativeLift: 1e-15, relativeMargin: 0))
  }

  /// Each row: the arms' relative lifts, the margin, the standing expected.
  @Test(
    arguments: [
      ([("a", 0.05 as Double?), ("b", 0.01), ("c", -0.02)], 0.01, DecisionRule.Standing.best("a")),
      ([("a", 0.05), ("b", 0.045)], 0.01, .equivalent(["a", "b"])),
      ([("b", 0.045), ("a", 0.05)], 0.01, .equivalent(["a", "b"])),
      ([("a", 0.05), ("b", 0.05)], 0, .equivalent(["a", "b"])),
      ([("a", 0.05), ("b", 0.05 + 1e-17)], 0, .equivalent(["b", "a"])),
      ([("a", 0.008), ("b", 0), ("c", -0.05)], 0.01, .noneBeatsControl(negligible: ["a", "b"])),
      ([("a", 0), ("b", 0)], 0, .noneBeatsControl(negligible: ["a", "b"])),
      ([("a", nil), ("b", 0.03)], 0.01, .best("b")),
      ([], 0.01, .nothingToCompare),
    ] as [([(String, Double?)], Double, DecisionRule.Standing)])
  func theBestArmIsBestOnlyByMoreThanTheMargin(arms: [(String, Double?)], margin: Double, expected: DecisionRule.Standing) {
    #expect(DecisionRule.standing(arms.map { (id: $0.0, difference: $0.1) }, higherIsBetter: true, margin: margin) == expected)
  }

  @Test func lowerIsBetterTurnsTheStandingAround() {
    let arms: [(id: String, difference: Double?)] = [("faster", -5), ("slower", 5)]
    #expect(DecisionRule.standing(arms, higherIsBetter: false, margin: 0.5) == .best("faster"))
  }

  // MARK: - The recommendation on the edge-case flows, in truth mode

  func truthMode(_ name: String, users: Int = 4_000) throws -> DecisionSummary {
    let e = try ExperimentLoader.load(contentsOf: decisionFlowPath(name))
    let run = try ExperimentRunner.run(e, options: RunOptions(users: users))
    return DecisionSummary(truthMode: FunnelSummary.all(run, alpha: e.metrics.alpha), spec: e.metrics)
  }

  @Test func sixArmsShipTheArmTrulyBestAndCallTheOthersByTheMargin() throws {
    let s = try truthMode("six-arms")
    #expect(s.recommendation == Recommendation(.ship, .wins, arm: "bigEffect"))
    let truth = Dictionary(uniqueKeysWithValues: s.arms.map { ($0.arm, $0.primary) })
    // The A/A copy and the change after every purchase tie the control exactly.
    #expect(truth["aaCopy"]?.trueDifference == 0 && truth["aaCopy"]?.trueRelativeLift == 0)
    #expect(truth["afterPurchase"]?.trueDifference == 0 && truth["afterPurchase"]?.trueRelativeLift == 0)
    #expect(s.arms.first { $0.arm == "afterPurchase" }?.revenue?.trueDifference == 0)
    // An effect inside the margin is never graded "missed".
    #expect(truth["tinyEffect"]?.verdict != .missed)
    #expect(s.arms.allSatisfy { $0.conflict == nil })
  }

  @Test func aTieAndANegligibleEffectStopWithNothingWorthShipping() throws {
    for (name, reason) in [("tie", Recommendation.Reason.tie), ("negligible", .negligible)] {
      let s = try truthMode(name)
      #expect(s.recommendation == Recommendation(.stop, reason), "\(name)")
      #expect(s.arms.allSatisfy { $0.conflict == nil }, "\(name)")
    }
    let tie = try truthMode("tie")
    #expect(tie.arms.allSatisfy { $0.primary.trueDifference == 0 && $0.revenue?.trueDifference == 0 })
  }

  @Test func onlyAControlHasNothingToCompare() throws {
    let s = try truthMode("control-only", users: 500)
    #expect(s.arms.isEmpty)
    #expect(s.recommendation == Recommendation(.nothingToCompare, .controlOnly))
  }

  // MARK: - The recommendation of a test, and the design against the truth

  /// An arm's primary result: observed lift `lift` (significant or not), true lift `truth`.
  func arm(_ id: String, lift: Double, significant: Bool, truth: Double?) -> ArmMetricResult {
    var r = ArmMetricResult(
      arm: id, estimate: MetricEstimate(metric: .purchaseConversion, estimate: 0.2 * (1 + lift), interval: nil, n: 1000))
    let d = 0.2 * lift
    let interval = ConfidenceInterval(lower: d - 0.001, upper: d + 0.001, confidenceLevel: 0.95, method: "test")
    r.comparison = MetricComparison(metric: .purchaseConversion, difference: IntervalEstimate(estimate: d, interval: interval), test: nil)
    r.relativeLift = IntervalEstimate(estimate: lift, interval: nil)
    r.significant = significant
    r.trueValue = truth.map { 0.2 * (1 + $0) }
    r.trueDifference = truth.map { 0.2 * $0 }
    return r
  }

  func test(_ arms: [ArmMetricResult], guardrail: [String: GuardrailStatus] = [:], mismatch: Bool = false) -> DecisionSummary {
    let spec = MetricsSpec(guardrails: [Guardrail(metric: .completionRate, margin: 0.02)])
    let status = arms.map { guardrail[$0.arm] ?? .ok }
    let control = ArmMetricResult(
      arm: "control", estimate: MetricEstimate(metric: .purchaseConversion, estimate: 0.2, interval: nil, n: 1000))
    return DecisionSummary(
      control: "control", primary: MetricResult(metric: .purchaseConversion, arms: [control] + arms),
      guardrails: [(spec.guardrails[0], Dictionary(uniqueKeysWithValues: zip(arms.map(\.arm), status)))], revenue: nil,
      decisions: zip(arms, status).map { a, g in
        (a.arm, ExperimentReport.decide(a, metric: .purchaseConversion, spec: spec, guardrails: [g]))
      },
      sampleRatioMismatch: mismatch, spec: spec)
  }

  /// The simulator's own best finding first: the test ships an arm whose true lift is inside
  /// the margin while the arm truly +16 % is held back by an inconclusive guardrail.
  @Test func aTestThatShipsANegligibleArmAndHoldsBackTheBestSaysSo() {
    let s = test(
      [arm("tinyEffect", lift: 0.0318, significant: true, truth: 0.0005), arm("big", lift: 0.15, significant: true, truth: 0.16)],
      guardrail: ["big": .inconclusive])
    let r = s.recommendation
    #expect(r.action == .ship && r.arm == "tinyEffect")
    #expect(
      r.design
        == Recommendation.DesignCheck(.shipsNegligible, shipped: "tinyEffect", shippedTrueLift: 0.0005, best: "big", bestTrueLift: 0.16))
  }

  @Test func theRecommendationFollowsTheRule() {
    // A significant effect inside the margin is negligible: nothing worth shipping.
    let negligible = test([arm("a", lift: 0.005, significant: true, truth: 0.004)])
    #expect(negligible.arms.map(\.call) == [.negligible])
    #expect(negligible.recommendation.action == .stop && negligible.recommendation.reason == .negligible)
    #expect(negligible.recommendation.design?.kind == .right)
    // A win held by an inconclusive guardrail keeps running; a violated one is not trusted.
    let held = test([arm("a", lift: 0.05, significant: true, truth: 0.05)], guardrail: ["a": .inconclusive])
    #expect(held.recommendation.action == .keepRunning && held.recommendation.reason == .guardrailInconclusive)
    let broken = test([arm("a", lift: 0.05, significant: true, truth: 0.05)], guardrail: ["a": .violated])
    #expect(broken.recommendation == Recommendation(.doNotTrust, .guardrailViolated, arm: "a", design: broken.recommendation.design))
    #expect(broken.recommendation.design?.kind == .holdsBackBest)
    // Two winners within the margin of each other: ship the better, the other is equivalent.
    let two = test([arm("a", lift: 0.05, significant: true, truth: 0.05), arm("b", lift: 0.055, significant: true, truth: 0.052)])
    #expect(two.recommendation.arm == "b" && two.recommendation.equivalentArms == ["a"])
    #expect(two.recommendation.design?.kind == .right)
    // Only losers: stop. Nothing detectable at the planned size: stop. Before it: keep running.
    let worse = test([arm("a", lift: -0.05, significant: true, truth: -0.05)])
    #expect(worse.recommendation.reason == .worse)
    var flat = test([arm("a", lift: 0.01, significant: false, truth: 0)])
    #expect(flat.recommendation.action == .stop && flat.recommendation.reason == .noDetectableDifference)
    flat.progress = Recommendation.Progress(shareOfPlannedSize: 0.4, daysLeft: 6)
    #expect(flat.recommendation.action == .keepRunning && flat.recommendation.reason == .belowPlannedSize)
    flat.progress = Recommendation.Progress(shareOfPlannedSize: nil, daysLeft: nil)
    #expect(flat.recommendation.reason == .plannedSizeUnknown)
    // A broken split overrides everything.
    let mismatch = test([arm("a", lift: 0.05, significant: true, truth: 0.05)], mismatch: true)
    #expect(mismatch.recommendation.action == .doNotTrust && mismatch.recommendation.reason == .sampleRatioMismatch)
  }
}
