import FunnelStats

/// The readable funnel of one variant, derived from its aggregate: what a report
/// shows. Pure arithmetic on counts; no simulation.
package struct FunnelSummary: Sendable {
  /// One row of the funnel.
  package struct ScreenRow: Sendable, Hashable {
    /// The screen's id in the spec.
    package var id: String
    /// The screen's kind (info, choice, paywall, …).
    package var kind: ScreenKind
    /// Users who saw the screen at least once.
    package var reached: UInt64
    /// `reached / users` of the variant, a fraction in [0, 1].
    package var reachRate: Double
    /// Times the screen was shown, counting repeat views after `back` or a failure.
    package var views: UInt64
    /// Users who quit on this screen.
    package var droppedOff: UInt64
    /// `droppedOff / reached` (0 when unreached).
    package var dropOffRate: Double
    /// Mean seconds per view.
    package var meanSeconds: Double?
    /// Validation or task failures.
    package var failures: UInt64
    /// Times each action was taken here, in the compiled order.
    package var actions: [(id: String, count: UInt64)]

    /// Compares the counts (id, reached, views, dropped off, failures, actions); `kind` and the rates and
    /// seconds derived from those counts are not compared.
    package static func == (a: ScreenRow, b: ScreenRow) -> Bool {
      a.id == b.id && a.reached == b.reached && a.views == b.views && a.droppedOff == b.droppedOff
        && a.failures == b.failures && a.actions.map(\.id) == b.actions.map(\.id) && a.actions.map(\.count) == b.actions.map(\.count)
    }

    /// Hashes `id`, `reached` and `views`: a subset of what ``==(_:_:)`` compares, as hashing requires.
    package func hash(into h: inout Hasher) {
      h.combine(id)
      h.combine(reached)
      h.combine(views)
    }
  }

  /// One plan's share of purchases.
  package struct PlanRow: Sendable, Hashable {
    /// The id of the paywall that offers the plan.
    package var screen: String
    /// The plan's id.
    package var plan: String
    /// Whether the paywall pre-selects this plan.
    package var isDefault: Bool
    /// Users whose first purchase was this plan.
    package var purchases: UInt64
    /// Share of purchasers whose first purchase was this plan.
    package var share: Double
  }

  /// The variant's id.
  package var variant: String
  /// Users who walked the variant's flow: the denominator of every per-user rate.
  package var users: UInt64
  /// One row per screen, in the spec's order.
  package var screens: [ScreenRow]
  /// One row per plan of every paywall, in compiled order (screen by screen); empty without a paywall.
  package var plans: [PlanRow]
  /// Every ``FunnelMetric`` in declaration order with its value from the counts; `nil` when its denominator
  /// is zero (e.g. purchase conversion of paywall viewers when nobody saw a paywall).
  package var metrics: [(metric: FunnelMetric, value: Double?)]
  /// Every metric with its confidence interval.
  package var estimates: [MetricEstimate]
  /// Every metric against the control (empty for the control itself). In truth mode the
  /// metrics over all users are compared pairwise on the same users
  /// (``MetricAnalysis/comparePaired(_:tallies:variant:control:alpha:)``: Tango/McNemar, paired t); the
  /// others, and every metric of a run without paired tallies, as independent samples.
  /// Each result names its method.
  package var comparisons: [MetricComparison]
  /// Each plan's share of purchasers with a Wilson interval, in plan order.
  package var planShares: [MetricEstimate]
  /// Users whose walk hit the step limit and was counted as abandoned (a sign of a loop in the flow).
  package var stepLimitReached: UInt64
  /// Users who completed the flow.
  package var completed: UInt64 = 0
  /// Users who bought a plan; `nil` when the flow sells none.
  package var purchasers: UInt64?
  /// Median and 90th percentile of the time to finish: Monte Carlo estimates (from
  /// the completion-time histogram); the exact engine solves the mean and the
  /// standard deviation only.
  package var medianSecondsToFinish: Double?
  /// The 90th percentile of the time to finish, in seconds (1-second histogram bins); `nil` when nobody finished.
  package var p90SecondsToFinish: Double?
  /// The significance level the intervals and tests use (`1 − alpha` intervals).
  package var alpha: Double
  /// The variant's exact solution (``ExactEngine``), when the run solved it.
  package var exact: ExactFunnel?
  /// The control's exact solution, when the run solved it (for exact differences).
  package var controlExact: ExactFunnel?
  /// Realized revenue by day and renewal by period; `nil` when the flow sells no plans.
  package var lifecycle: LifecycleSummary?

  /// The summary of `run`, compared with `control` when given (and not `run` itself).
  package init(_ run: VariantRun, control: VariantRun? = nil, alpha: Double = 0.05) {
    let a = run.aggregate
    let f = run.flow
    let n = Double(max(a[.users], 1))
    self.alpha = alpha
    exact = run.exact
    controlExact = control?.exact
    variant = run.variant.id
    users = a[.users]
    completed = a[.completed]
    purchasers = f.plans.isEmpty ? nil : a[.purchasers]
    screens = f.screenIDs.indices.map { i in
      let slots = f.actions.indices.filter { f.actions[$0].screen == i }
      return ScreenRow(
        id: f.screenIDs[i], kind: f.screenKinds[i], reached: a.reach[i], reachRate: Double(a.reach[i]) / n,
        views: a.views[i], droppedOff: a.abandonedAt[i],
        dropOffRate: a.reach[i] == 0 ? 0 : Double(a.abandonedAt[i]) / Double(a.reach[i]),
        meanSeconds: a.views[i] == 0 ? nil : Double(a.screenMillis[i]) / (Double(a.views[i]) * 1000),
        failures: a.failures[i], actions: slots.map { (f.actions[$0].id, a.actionCounts[$0]) })
    }
    let purchasers = Double(max(a[.purchasers], 1))
    plans = f.plans.indices.map { j in
      PlanRow(
        screen: f.screenIDs[f.plans[j].screen], plan: f.plans[j].plan.id, isDefault: f.plans[j].isDefault,
        purchases: a.planPurchases[j], share: Double(a.planPurchases[j]) / purchasers)
    }
    // Only the metrics the flows can have: no purchase or revenue metric for a flow that sells nothing.
    let applicable = FunnelMetric.allCases.filter { $0.applies(to: [f] + (control.map { [$0.flow] } ?? [])) }
    metrics = applicable.map { ($0, $0.value(in: a)) }
    estimates = applicable.map { MetricAnalysis.estimate($0, in: a, alpha: alpha) }
    if let control, control.variant.id != run.variant.id {
      comparisons = applicable.map {
        MetricAnalysis.compare($0, variant: a, control: control.aggregate, paired: run.paired, alpha: alpha)
      }
    } else {
      comparisons = []
    }
    planShares = a.planPurchases.map { count in
      let share = a[.purchasers] == 0 ? nil : Double(count) / Double(a[.purchasers])
      let interval = (try? ProportionCount(successes: Int(count), trials: Int(a[.purchasers])))
        .flatMap { try? ProportionInterval.wilson($0, confidenceLevel: 1 - alpha) }
      return MetricEstimate(metric: .purchaseConversion, estimate: share, interval: interval, n: a[.purchasers])
    }
    stepLimitReached = a[.stepLimitReached]
    medianSecondsToFinish = a.completionTime.quantileSeconds(0.5)
    p90SecondsToFinish = a.completionTime.quantileSeconds(0.9)
    lifecycle = LifecycleSummary(a, flow: f, exact: run.exact, alpha: alpha)
  }

  /// The value of `metric` in ``metrics``; `nil` when undefined.
  package func value(_ metric: FunnelMetric) -> Double? { metrics.first { $0.metric == metric }?.value ?? nil }

  /// The estimate of `metric` with its `1 − alpha` interval, from ``estimates``.
  package func estimate(_ metric: FunnelMetric) -> MetricEstimate? { estimates.first { $0.metric == metric } }

  /// The comparison of `metric` with the control; `nil` for the control itself.
  package func comparison(_ metric: FunnelMetric) -> MetricComparison? { comparisons.first { $0.metric == metric } }

  /// The exact value of `metric` (no sampling noise), when solved.
  package func exactValue(_ metric: FunnelMetric) -> Double? { exact?.value(of: metric) }

  /// The exact difference from the control of `metric`, when both were solved; exactly 0 for
  /// a tie (``DecisionRule/tied(_:_:)``).
  package func exactDifference(_ metric: FunnelMetric) -> Double? {
    guard let v = exact?.value(of: metric), let c = controlExact?.value(of: metric) else { return nil }
    return DecisionRule.difference(v, control: c)
  }

  /// The exact relative lift `variant/control − 1` of `metric`, when both were solved and
  /// the control's value is not 0.
  package func exactRelativeLift(_ metric: FunnelMetric) -> Double? {
    guard let v = exact?.value(of: metric), let c = controlExact?.value(of: metric) else { return nil }
    return DecisionRule.relativeLift(v, control: c)
  }

  /// Summaries of every variant of a run, each compared with the control.
  package static func all(_ result: RunResult, alpha: Double = 0.05) -> [FunnelSummary] {
    result.variants.map { FunnelSummary($0, control: result.control, alpha: alpha) }
  }
}
