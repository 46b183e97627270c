package import FunnelStats

/// What an experiment decided, before how: one line per arm against the control, in
/// identifiers and numbers (the words are the renderers'). Each line carries the call on
/// the primary metric, its relative lift with the interval the call was made on, the chance
/// to beat the control and the truth beside it; then the guardrails, revenue per user, and
/// a conflict between the decision and the money when there is one ("ships on purchase
/// conversion, loses 1.3 % of revenue per user").
package struct DecisionSummary: Sendable, Hashable {
  /// The call on the primary metric alone (the decision adds the guardrails).
  package enum Call: String, Sendable, Hashable, CaseIterable {
    /// Significantly better than the control (after the spec's correction).
    case wins
    /// Significantly worse than the control.
    case loses
    /// Neither: no difference large enough for this test to detect.
    case noDetectableDifference
    /// Significant, but the observed effect is inside the practical-equivalence margin: too
    /// small to matter (``DecisionRule/negligible(relativeLift:relativeMargin:)``).
    case negligible
    /// The sample-ratio check flagged the split: nothing the arms show can be trusted.
    case doNotTrust
  }

  /// Where a conflict with the money was seen.
  package enum Evidence: String, Sendable, Hashable {
    /// The exact engine's difference (what the simulator knows and a real test would not).
    case truth
    /// The test on revenue per user, significant after the spec's correction.
    case observed
  }

  /// A decision that money contradicts.
  package enum Conflict: String, Sendable, Hashable, CaseIterable {
    /// The arm ships, but revenue per user is lower than the control's.
    case shipsButLosesRevenue
    /// The arm does not ship (or is not decided), but revenue per user is higher.
    case heldBackButGainsRevenue
  }

  /// A guardrail's state for one arm.
  package struct GuardrailLine: Sendable, Hashable {
    /// The guarded metric.
    package var metric: FunnelMetric
    /// Its largest acceptable worsening, in the metric's unit.
    package var margin: Double
    /// Whether the arm stays within it.
    package var status: GuardrailStatus
  }

  /// The metric a call is about: a ``FunnelMetric`` of a simulated flow, or the conversion
  /// of `analyze`'s counts.
  package struct Metric: Sendable, Hashable {
    /// The JSON identifier (a ``FunnelMetric``'s raw value).
    package var id: String
    /// Its name in reports (``FunnelMetric/label``).
    package var label: String
    /// Whether a larger value is better.
    package var higherIsBetter: Bool
    /// The practical-equivalence margin, as a share of the control's value: a relative lift
    /// inside ±margin is negligible.
    package var relativeMargin: Double

    /// A flow's metric with the margin of `spec` (the default margin without one).
    package init(_ metric: FunnelMetric, spec: MetricsSpec? = nil) {
      self.init(
        id: metric.rawValue, label: metric.label, higherIsBetter: metric.higherIsBetter,
        relativeMargin: spec?.relativeMargin(for: metric) ?? DecisionRule.defaultRelativeMargin)
    }

    /// Any metric.
    package init(id: String, label: String, higherIsBetter: Bool = true, relativeMargin: Double = DecisionRule.defaultRelativeMargin) {
      self.id = id
      self.label = label
      self.higherIsBetter = higherIsBetter
      self.relativeMargin = relativeMargin
    }

    /// The conversion `analyze` reads from counts: conversions over users.
    package static let conversion = Metric(id: "conversionRate", label: "conversion")
    /// Revenue per user.
    package static let revenuePerUser = Metric(.revenuePerUser)
  }

  /// One metric of an arm against the control: what the test saw and the truth.
  package struct Effect: Sendable, Hashable {
    /// The metric.
    package var metric: Metric
    /// The relative lift arm/control − 1 with its `1 − α` interval.
    package var relativeLift: IntervalEstimate?
    /// The difference arm − control with its `1 − α` interval, in the metric's unit.
    package var difference: IntervalEstimate?
    /// Significant after the spec's correction (the interval then excludes 0).
    package var significant: Bool
    /// The chance that the arm beats the control, oriented by the metric's direction.
    package var probabilityToBeatControl: Double?
    /// The exact relative lift (``ExactEngine``), when solved.
    package var trueRelativeLift: Double?
    /// The exact difference, when solved.
    package var trueDifference: Double?
    /// How the conclusion compares with the truth.
    package var verdict: Verdict?

    /// An effect seen without the truth (`analyze`'s data).
    package init(
      metric: Metric, relativeLift: IntervalEstimate?, difference: IntervalEstimate?, significant: Bool, probabilityToBeatControl: Double?
    ) {
      self.metric = metric
      self.relativeLift = relativeLift
      self.difference = difference
      self.significant = significant
      self.probabilityToBeatControl = probabilityToBeatControl
    }

    /// The effect of a truth-mode comparison: the paired test (significant when `p < alpha`,
    /// which its interval agrees with), the exact engine's truth and the verdict beside it,
    /// graded with `spec`'s margin.
    package init(_ metric: FunnelMetric, _ summary: FunnelSummary, spec: MetricsSpec) {
      self.metric = Metric(metric, spec: spec)
      let c = summary.comparison(metric)
      relativeLift = c?.relativeLift
      difference = c?.difference
      significant = (c?.test?.pValue).map { $0 < spec.alpha } ?? false
      probabilityToBeatControl = nil
      trueRelativeLift = summary.exactRelativeLift(metric)
      trueDifference = summary.exactDifference(metric)
      let margin = summary.controlExact?.value(of: metric).map { spec.equivalenceMargin(for: metric, control: $0) } ?? 0
      verdict = trueDifference.flatMap { truth in
        difference?.estimate.map { Verdict.judge(significant: significant, observed: $0, truth: truth, margin: margin) }
      }
    }

    /// The effect of `arm`'s result on `metric`, with `spec`'s margin.
    package init(_ metric: FunnelMetric, _ arm: ArmMetricResult, spec: MetricsSpec) {
      self.metric = Metric(metric, spec: spec)
      relativeLift = arm.relativeLift ?? arm.comparison?.relativeLift
      difference = arm.comparison?.difference
      significant = arm.significant
      probabilityToBeatControl = arm.probabilityToBeatControl
      trueRelativeLift = arm.trueRelativeLift
      trueDifference = arm.trueDifference
      verdict = arm.verdict
    }
  }

  /// One non-control arm's line.
  package struct Arm: Sendable, Hashable {
    /// The arm's variant id.
    package var arm: String
    /// The call on the primary metric.
    package var call: Call
    /// What the decision rule says (primary metric and guardrails); `nil` in truth mode,
    /// which compares the variants on the same users and has no decision rule.
    package var decision: Decision?
    /// The primary metric against the control.
    package var primary: Effect
    /// Each guardrail, in spec order.
    package var guardrails: [GuardrailLine]
    /// Revenue per user against the control; `nil` for a flow that sells nothing, or when it
    /// is the primary metric.
    package var revenue: Effect?
    /// The decision that money contradicts, and how it was seen; `nil` when it does not.
    package var conflict: MoneyConflict?
  }

  /// A decision that money contradicts, and where that was seen.
  package struct MoneyConflict: Sendable, Hashable {
    /// Which way the decision and the money disagree.
    package var kind: Conflict
    /// The truth, or a significant test.
    package var evidence: Evidence
  }

  /// The control's variant id.
  package var control: String
  /// The metric every call is about.
  package var primary: Metric
  /// Whether the sample-ratio check flagged the split (every call is then ``Call/doNotTrust``).
  package var sampleRatioMismatch: Bool
  /// One line per non-control arm, in arm order.
  package var arms: [Arm]
  /// Whether the arms are judged by the truth alone (truth mode: the same users walk every
  /// variant, the exact engine knows each effect, and no test decides).
  package var judgedByTruth = false
  /// Whether a test decides (every mode but truth mode).
  package var hasTest: Bool { !judgedByTruth }
  /// What to do about the experiment (``DecisionRule/recommend(_:progress:)``).
  package var recommendation: Recommendation { DecisionRule.recommend(self, progress: progress) }
  /// How far along a test read before its end is; `nil` for a test read at its end.
  package var progress: Recommendation.Progress?

  /// The summary of an experiment-mode report. Revenue per user is read wherever the report
  /// has it (primary, guardrail or secondary); it is left out for a flow that sells no plan.
  package init(_ report: ExperimentReport) {
    let sellsPlans = report.lifecycles.contains { $0 != nil }
    let revenue =
      !sellsPlans || report.spec.primary == .revenuePerUser
      ? nil
      : ([report.primary] + report.guardrails.map(\.result) + report.secondary).first { $0.metric == .revenuePerUser }
    let mismatch = report.sampleRatio?.mismatch == true
    self.init(
      control: report.control, primary: report.primary, guardrails: report.guardrails.map { ($0.guardrail, $0.status) },
      revenue: revenue, decisions: report.decisions, sampleRatioMismatch: mismatch, spec: report.spec)
  }

  /// The summary of a truth-mode run (``FunnelSummary/all(_:alpha:)``, the control first):
  /// each variant's call on `spec.primary` by its paired test at `spec.alpha`, with the truth
  /// graded with the spec's margin; no decision rule, so the arms are ranked by the truth and
  /// a money conflict is about the truth (the best arm loses revenue per user).
  package init(truthMode summaries: [FunnelSummary], spec: MetricsSpec) {
    let primary = spec.primary
    control = summaries.first?.variant ?? ""
    self.primary = Metric(primary, spec: spec)
    sampleRatioMismatch = false
    judgedByTruth = true
    let sellsPlans = summaries.contains { $0.purchasers != nil }
    arms = summaries.dropFirst().map { s in
      let effect = Effect(primary, s, spec: spec)
      let call = Self.call(effect, sampleRatioMismatch: false)
      return Arm(
        arm: s.variant, call: call, decision: nil, primary: effect, guardrails: [],
        revenue: !sellsPlans || primary == .revenuePerUser ? nil : Effect(.revenuePerUser, s, spec: spec))
    }
    let best = recommendation.arm
    for i in arms.indices {
      guard let money = arms[i].revenue else { continue }
      let margin = summaries.first?.exact?.value(of: .revenuePerUser).map { spec.equivalenceMargin(for: .revenuePerUser, control: $0) } ?? 0
      arms[i].conflict = Self.conflict(arms[i].arm == best ? .ship : .noDecision, money, margin: margin)
    }
  }

  /// The summary of the parts of a report: the primary metric's results (the control
  /// first), each guardrail's status per arm, revenue per user's results (`nil`: left out)
  /// and each arm's decision.
  package init(
    control: String, primary: MetricResult, guardrails: [(guardrail: Guardrail, status: [String: GuardrailStatus])],
    revenue: MetricResult?, decisions: [(arm: String, decision: Decision)], sampleRatioMismatch: Bool, spec: MetricsSpec
  ) {
    self.control = control
    self.primary = Metric(primary.metric, spec: spec)
    self.sampleRatioMismatch = sampleRatioMismatch
    arms = decisions.compactMap { arm, decision in
      guard let result = primary.arm(arm) else { return nil }
      let effect = Effect(primary.metric, result, spec: spec)
      var line = Arm(
        arm: arm, call: Self.call(effect, sampleRatioMismatch: sampleRatioMismatch), decision: decision, primary: effect,
        guardrails: guardrails.map {
          GuardrailLine(metric: $0.guardrail.metric, margin: $0.guardrail.margin, status: $0.status[arm] ?? .inconclusive)
        },
        revenue: revenue?.arm(arm).map { Effect(.revenuePerUser, $0, spec: spec) })
      if !sampleRatioMismatch, let money = line.revenue {
        line.conflict = Self.conflict(decision, money, margin: revenue?.arm(arm)?.equivalenceMargin ?? 0)
      }
      return line
    }
  }

  /// The summary of `analyze`'s counts: each arm's call on conversion by its adjusted test,
  /// with its chance to beat the control, and revenue per user (Welch) when the data has it.
  /// No truth is known and there is no decision rule, so a conflict is a win on conversion
  /// with a significantly lower revenue per user (or the reverse).
  package init(analysis r: ExperimentAnalysis.Report) {
    control = r.control
    primary = .conversion
    let mismatch = r.sampleRatioMismatch.mismatch
    sampleRatioMismatch = mismatch
    let alpha = r.settings.alpha
    arms = r.comparisons.map { c in
      let effect = Effect(
        metric: .conversion, relativeLift: c.relativeLift, difference: c.absoluteLift, significant: c.significant,
        probabilityToBeatControl: c.probabilityToBeatControl)
      let call = Self.call(effect, sampleRatioMismatch: mismatch)
      var line = Arm(arm: c.arm, call: call, decision: nil, primary: effect, guardrails: [])
      if let welch = c.revenue?.welch {
        line.revenue = Effect(
          metric: .revenuePerUser, relativeLift: nil, difference: welch.difference, significant: welch.test.pValue < alpha,
          probabilityToBeatControl: c.revenue?.bayesian.probabilityToBeat)
      }
      if !mismatch, let money = line.revenue {
        line.conflict = Self.conflict(call == .wins ? .ship : .noDecision, money, margin: 0)
      }
      return line
    }
  }

  /// The summary of a per-user file's analysis (``UserMetricAnalysis``): each arm's call
  /// on the primary comparison, without truth, rule or chance to beat the control.
  package init(users r: UserMetricAnalysis.Report) {
    control = r.control
    primary = Metric(id: r.metricID, label: r.metricLabel)
    sampleRatioMismatch = r.mismatch
    arms = r.comparisons.map { c in
      let effect = Effect(
        metric: Metric(id: r.metricID, label: r.metricLabel), relativeLift: c.relativeLift, difference: c.difference,
        significant: c.significant, probabilityToBeatControl: nil)
      return Arm(arm: c.arm, call: Self.call(effect, sampleRatioMismatch: r.mismatch), decision: nil, primary: effect, guardrails: [])
    }
  }

  /// The call on the primary metric: significant in its better or worse direction by more
  /// than the margin, negligible inside it, or not significant.
  static func call(_ effect: Effect, sampleRatioMismatch: Bool) -> Call {
    if sampleRatioMismatch { return .doNotTrust }
    guard effect.significant, let d = effect.difference?.estimate, d != 0 else { return .noDetectableDifference }
    if let lift = effect.relativeLift?.estimate, DecisionRule.negligible(relativeLift: lift, relativeMargin: effect.metric.relativeMargin) {
      return .negligible
    }
    return (d > 0) == effect.metric.higherIsBetter ? .wins : .loses
  }

  /// Whether revenue per user contradicts `decision`: by the truth when the exact difference
  /// is larger than the practical-equivalence `margin`, else by a significant test.
  static func conflict(_ decision: Decision, _ money: Effect, margin: Double) -> MoneyConflict? {
    let direction: (sign: Double, evidence: Evidence)?
    if let truth = money.trueDifference, abs(truth) > margin, !DecisionRule.tied(truth, 0) {
      direction = (truth, .truth)
    } else if money.significant, let d = money.difference?.estimate, d != 0,
      !(money.relativeLift?.estimate.map { DecisionRule.negligible(relativeLift: $0, relativeMargin: money.metric.relativeMargin) } ?? false)
    {
      direction = (d, .observed)
    } else {
      direction = nil
    }
    guard let direction else { return nil }
    switch decision {
    case .ship where direction.sign < 0: return MoneyConflict(kind: .shipsButLosesRevenue, evidence: direction.evidence)
    case .doNotShip where direction.sign > 0, .noDecision where direction.sign > 0:
      return MoneyConflict(kind: .heldBackButGainsRevenue, evidence: direction.evidence)
    default: return nil
    }
  }
}
