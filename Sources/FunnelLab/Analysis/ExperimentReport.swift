package import FunnelStats

/// Whether an experiment's conclusion about an arm matched the truth: the exact
/// difference (``ExactEngine``), read with a practical-equivalence margin
/// (``MetricsSpec/equivalenceMargin(for:)``). Its raw value is the JSON and CSV identifier
/// (the words are FunnelReport's `Vocabulary`).
package enum Verdict: String, Sendable, Hashable, CaseIterable {
  /// Significant, in the direction of a true effect larger than the margin.
  case correct
  /// Significant, opposite to a true effect larger than the margin (a type S error).
  case wrongSign
  /// Not significant although the true effect is larger than the margin (a type II error).
  case missed
  /// Not significant, and the true effect is zero or inside the margin.
  case correctNull
  /// Significant although the true effect is exactly zero (a type I error).
  case falsePositive
  /// Significant on a true effect that is not zero but inside the margin: the test
  /// found a difference too small to matter.
  case negligibleDetected

  /// The verdict for an observed result given the exact difference `truth` and the
  /// practical-equivalence `margin` (≥ 0, in the metric's unit):
  ///
  /// | true effect            | significant, same sign | significant, other sign | not significant |
  /// |------------------------|------------------------|-------------------------|-----------------|
  /// | 0 (a tie: ``DecisionRule/tieTolerance``) | false positive         | false positive          | correct null    |
  /// | 0 < \|truth\| ≤ margin | negligible detected    | negligible detected     | correct null    |
  /// | \|truth\| > margin     | correct                | wrong sign              | missed          |
  package static func judge(significant: Bool, observed: Double, truth: Double, margin: Double) -> Verdict {
    if DecisionRule.tied(truth, 0) { return significant ? .falsePositive : .correctNull }
    if abs(truth) <= margin { return significant ? .negligibleDetected : .correctNull }
    guard significant else { return .missed }
    return (observed > 0) == (truth > 0) ? .correct : .wrongSign
  }
}

/// A guardrail's state for one arm (see ``Guardrail``).
package enum GuardrailStatus: String, Sendable, Hashable {
  /// `ok`: the interval's worst case stays within the margin; `violated`: the estimate itself is worse by more
  /// than the margin; `inconclusive`: neither, or no interval.
  case ok, violated, inconclusive
}

/// What the decision rule of ``MetricsSpec`` says about an arm; its raw value is the JSON
/// identifier (the words are FunnelReport's `Vocabulary`).
package enum Decision: String, Sendable, Hashable {
  /// The primary metric is significantly better and every guardrail is `ok`.
  case ship
  /// The primary metric is significantly worse, or a guardrail is violated.
  case doNotShip
  /// Neither: not significant, or significant with a guardrail inconclusive.
  case noDecision
  /// The sample-ratio check flagged a mismatch: the split is broken, so no decision of the
  /// experiment can be trusted.
  case sampleRatioMismatch
}

/// One arm's result on one metric, next to the truth.
package struct ArmMetricResult: Sendable, Hashable {
  /// The arm's variant id.
  package var arm: String
  /// The arm's own value of the metric with its `1 − α` interval, from the observed users.
  package var estimate: MetricEstimate
  /// Against the control; `nil` for the control.
  package var comparison: MetricComparison?
  /// Relative lift with the score interval of the ratio (proportions).
  package var relativeLift: IntervalEstimate?
  /// The p-value after the spec's multiple-testing correction across the non-control arms; `nil` for the
  /// control or when the test is undefined.
  package var adjustedPValue: Double?
  /// FunnelStats' rule (``ControlComparison``): adjusted p ≤ α and the intervals at 1 − α
  /// exclude zero.
  package var significant: Bool
  /// Bayesian chance that the arm is better than the control on this metric (Beta(1,1) prior
  /// for proportions; normal posterior for means), oriented by `higherIsBetter`.
  package var probabilityToBeatControl: Double?
  /// Chance of being the best of all arms, oriented by `higherIsBetter`.
  package var probabilityToBeBest: Double?
  /// The exact value of the metric in this arm (``ExactEngine``), when solved.
  package var trueValue: Double?
  /// The exact difference arm − control (``ExactEngine``), when solved.
  package var trueDifference: Double?
  /// The exact relative lift arm/control − 1 (``ExactEngine``), when both were solved and
  /// the control's exact value is not 0.
  package var trueRelativeLift: Double? {
    guard let value = trueValue, let difference = trueDifference, value != difference else { return nil }
    return difference == 0 ? 0 : difference / (value - difference)
  }
  /// The practical-equivalence margin the verdict used, in the metric's unit.
  package var equivalenceMargin: Double?
  /// How the conclusion compares with ``trueDifference``; `nil` for the control or when either the observed
  /// or the exact difference is missing.
  package var verdict: Verdict?

  /// An arm's result with only its estimate; the rest is filled in by the analysis.
  package init(arm: String, estimate: MetricEstimate) {
    self.arm = arm
    self.estimate = estimate
    significant = false
  }
}

/// A metric across all arms.
package struct MetricResult: Sendable, Hashable {
  /// The metric every row is about.
  package var metric: FunnelMetric
  /// One result per arm in the run's order, the control first (its comparison fields are `nil`).
  package var arms: [ArmMetricResult]

  /// The result of the arm with variant id `id`; `nil` when there is none.
  package func arm(_ id: String) -> ArmMetricResult? { arms.first { $0.arm == id } }
}

/// The analysis of an experiment-mode run the way an experiment platform would show
/// it: every arm against the control on the primary metric and the guardrails, the
/// sample-ratio check, the decision rule — and, beside it, the truth.
package struct ExperimentReport: Sendable {
  /// The experiment's name.
  package var experiment: String
  /// The run's seed: the same seed and spec give the same report.
  package var seed: UInt64
  /// The control's variant id: the first variant (empty only for a run without variants).
  package var control: String
  /// Every arm's variant id, in the spec's order, the control first.
  package var arms: [String]
  /// Users the hash assignment put in each arm, indexed like ``arms``.
  package var armUsers: [UInt64]
  /// Each arm's planned share of traffic (from the assignment weights, equal shares without them), summing to 1.
  package var plannedShares: [Double]
  /// The χ² check of ``armUsers`` against ``plannedShares``; `nil` when it could not be computed (e.g. no users).
  package var sampleRatio: SampleRatioMismatch.Result?
  /// The spec's metrics section: primary metric, guardrails, α, correction, equivalence margins.
  package var spec: MetricsSpec
  /// Every arm against the control on the spec's primary metric.
  package var primary: MetricResult
  /// Each guardrail in spec order, with its metric's results and each non-control arm's status: `ok` when the
  /// interval's worst case stays within the margin, `violated` when the estimate itself is worse by more than
  /// the margin, otherwise (or without an interval) `inconclusive`.
  package var guardrails: [(guardrail: Guardrail, result: MetricResult, status: [String: GuardrailStatus])]
  /// Other metrics reported for context.
  package var secondary: [MetricResult]
  /// Each non-control arm's decision, in arm order: `do not ship` on a violated guardrail or a significant
  /// worsening, `ship` on a significant improvement with every guardrail `ok`, otherwise `no decision`; every
  /// arm `sampleRatioMismatch` when the sample-ratio check flags a mismatch.
  package var decisions: [(arm: String, decision: Decision)]
  /// Each arm's realized revenue by day and renewal by period, in ``arms`` order; `nil`
  /// entries for a flow that sells no plans.
  package var lifecycles: [LifecycleSummary?]
  /// The primary metric by observable segment and adjusted for the strata and the
  /// pre-period covariate; `nil` when the population has neither (or the metric is not over all users).
  package var segments: SegmentReport?

  /// Analyses `observed` (an experiment-mode run) under `spec`, beside the truth:
  /// the exact solution each variant carries (``VariantRun/exact``), against which
  /// every verdict is graded.
  package init(observed: RunResult, spec: MetricsSpec) {
    experiment = observed.experiment
    seed = observed.seed
    self.spec = spec
    arms = observed.variants.map(\.variant.id)
    control = arms.first ?? ""
    armUsers = observed.variants.map { $0.aggregate[.users] }
    plannedShares = observed.assignment?.shares ?? Array(repeating: 1 / Double(max(arms.count, 1)), count: arms.count)
    sampleRatio = try? SampleRatioMismatch.check(observed: armUsers.map { Int($0) }, weights: plannedShares)
    lifecycles = observed.variants.map { LifecycleSummary($0.aggregate, flow: $0.flow, exact: $0.exact, alpha: spec.alpha) }
    primary = Self.analyze(spec.primary, observed: observed, spec: spec)
    var guardrails: [(Guardrail, MetricResult, [String: GuardrailStatus])] = []
    for g in spec.guardrails {
      let result = Self.analyze(g.metric, observed: observed, spec: spec)
      var status: [String: GuardrailStatus] = [:]
      for arm in result.arms.dropFirst() { status[arm.arm] = Self.status(of: arm, guardrail: g) }
      guardrails.append((g, result, status))
    }
    self.guardrails = guardrails
    let listed = Set([spec.primary] + spec.guardrails.map(\.metric))
    let flows = observed.variants.map(\.flow)
    secondary = [FunnelMetric.completionRate, .purchaseConversion, .revenuePerUser]
      .filter { !listed.contains($0) && $0.applies(to: flows) }
      .map { Self.analyze($0, observed: observed, spec: spec) }
    var decisions: [(String, Decision)] = []
    for arm in primary.arms.dropFirst() {
      let statuses = guardrails.compactMap { $0.2[arm.arm] }
      decisions.append((arm.arm, Self.decide(arm, metric: spec.primary, spec: spec, guardrails: statuses)))
    }
    self.decisions = sampleRatio?.mismatch == true ? decisions.map { ($0.0, .sampleRatioMismatch) } : decisions
    segments = SegmentReport(observed: observed, spec: spec)
  }

  /// Whether there is an arm to compare with the control (a spec with only a control has
  /// nothing to compare: no test, no correction, no decision).
  package var comparesArms: Bool { arms.count > 1 }

  static func oriented(_ x: Double, _ higherIsBetter: Bool) -> Double { higherIsBetter ? x : -x }

  static func status(of arm: ArmMetricResult, guardrail g: Guardrail) -> GuardrailStatus {
    guard let d = arm.comparison?.difference?.estimate, let interval = arm.comparison?.difference?.interval else { return .inconclusive }
    let up = g.metric.higherIsBetter
    let worstCase = up ? interval.lower : -interval.upper
    if worstCase >= -g.margin { return .ok }
    if oriented(d, up) < -g.margin { return .violated }
    return .inconclusive
  }

  static func decide(_ arm: ArmMetricResult, metric: FunnelMetric, spec: MetricsSpec, guardrails: [GuardrailStatus]) -> Decision {
    DecisionRule.decide(
      significant: arm.significant, difference: arm.comparison?.difference?.estimate,
      relativeLift: (arm.relativeLift ?? arm.comparison?.relativeLift)?.estimate, higherIsBetter: metric.higherIsBetter,
      relativeMargin: spec.relativeMargin(for: metric), guardrails: guardrails)
  }

  /// Every arm against the control on `metric` by FunnelStats' one pipeline
  /// (``ControlComparison``: its test, intervals, correction, significance rule and Bayesian
  /// values), graded against the exact engine's difference.
  static func analyze(_ metric: FunnelMetric, observed: RunResult, spec: MetricsSpec) -> MetricResult {
    guard let control = observed.variants.first else { return MetricResult(metric: metric, arms: []) }
    let alpha = spec.alpha
    let settings = ControlComparison.Settings(alpha: alpha, correction: spec.correction, higherIsBetter: metric.higherIsBetter)
    let pipeline = MetricAnalysis.data(metric, observed.variants.map(\.aggregate)).flatMap {
      try? ControlComparison.compare($0, control: 0, settings: settings)
    }
    var results: [ArmMetricResult] = []
    for (index, run) in observed.variants.enumerated() {
      let isControl = run.variant.id == control.variant.id
      var result = ArmMetricResult(arm: run.variant.id, estimate: MetricAnalysis.estimate(metric, in: run.aggregate, alpha: alpha))
      result.trueValue = run.exact?.value(of: metric)
      result.probabilityToBeBest = pipeline?.probabilityToBeBest[index] ?? nil
      if !isControl {
        let row = pipeline?.row(index)
        result.comparison = MetricComparison(
          metric: metric, difference: row?.difference, test: row?.test,
          rankTest: MetricAnalysis.rankTest(metric, variant: run.aggregate, control: control.aggregate))
        result.relativeLift = row?.relativeLift
        result.adjustedPValue = row?.adjustedPValue
        result.significant = row?.significant ?? false
        result.probabilityToBeatControl = row?.probabilityToBeatControl
        result.trueDifference = observed.exactDifference(metric, variant: run.variant.id)
        result.equivalenceMargin = control.exact?.value(of: metric).map { spec.equivalenceMargin(for: metric, control: $0) }
      }
      results.append(result)
    }
    // Verdicts against the exact difference.
    for i in results.indices.dropFirst() {
      if let truth = results[i].trueDifference, let observed = results[i].comparison?.difference?.estimate {
        results[i].verdict = Verdict.judge(
          significant: results[i].significant, observed: observed, truth: truth, margin: results[i].equivalenceMargin ?? 0)
      }
    }
    return MetricResult(metric: metric, arms: results)
  }
}
