/// The truth first: each variant's exact effect against the control on the metrics its flow
/// has (the primary metric, then revenue per user when the flow sells a plan, then
/// completion), and how the variants stand on the primary metric by the one decision rule
/// (``DecisionRule/standing(control:arms:higherIsBetter:relativeMargin:)``, the spec's
/// practical-equivalence margin): the best variant only when it beats the control and every
/// other variant by more than the margin. What `exact` opens with.
package struct ExactEffects: Sendable, Hashable {
  /// One variant against the control.
  package struct Row: Sendable, Hashable {
    /// The variant's id.
    package var variant: String
    /// Per metric (in ``ExactEffects/metrics`` order) the exact relative lift `v/c − 1`;
    /// `nil` when the control's value is 0 or a value is undefined.
    package var relativeLifts: [Double?]
    /// Per metric the exact difference `v − c`.
    package var differences: [Double?]
  }

  /// The control's id.
  package var control: String
  /// The metrics shown, the primary first.
  package var metrics: [FunnelMetric]
  /// Each non-control variant, in spec order.
  package var rows: [Row]
  /// The relative practical-equivalence margin of the primary metric (a share of the control's value).
  package var relativeMargin: Double
  /// How the variants stand on the primary metric: best, equivalent, none beats the control,
  /// or nothing to compare (only the control).
  package var standing: DecisionRule.Standing

  /// The effects of `solutions` (the control first: variant id, whether its flow sells a
  /// plan, its exact funnel) on `primary` and the flow's other headline metrics, ranked with
  /// the relative margin `relativeMargin` (``MetricsSpec/relativeMargin(for:)``).
  package init(
    _ solutions: [(variant: String, sellsPlans: Bool, exact: ExactFunnel)], primary: FunnelMetric,
    relativeMargin: Double = DecisionRule.defaultRelativeMargin
  ) {
    control = solutions.first?.variant ?? ""
    self.relativeMargin = relativeMargin
    standing = DecisionRule.standing(
      control: solutions.first?.exact.value(of: primary), arms: solutions.dropFirst().map { ($0.variant, $0.exact.value(of: primary)) },
      higherIsBetter: primary.higherIsBetter, relativeMargin: relativeMargin)
    let sells = solutions.contains { $0.sellsPlans }
    var metrics = [primary]
    for m in [FunnelMetric.revenuePerUser, .completionRate] where !metrics.contains(m) && (sells || !m.isRevenue) {
      metrics.append(m)
    }
    self.metrics = metrics
    guard let c = solutions.first?.exact else {
      rows = []
      return
    }
    rows = solutions.dropFirst().map { s in
      Row(
        variant: s.variant,
        relativeLifts: metrics.map { m in
          guard let v = s.exact.value(of: m), let base = c.value(of: m) else { return nil }
          return DecisionRule.relativeLift(v, control: base)
        },
        differences: metrics.map { m in
          guard let v = s.exact.value(of: m), let base = c.value(of: m) else { return nil }
          return DecisionRule.difference(v, control: base)
        })
    }
  }

  /// The best variant on the primary metric (``standing`` is `best`); `nil` when the top is
  /// equivalent to another variant, none beats the control by more than the margin, or there
  /// is only the control.
  package var best: String? {
    if case .best(let arm) = standing { arm } else { nil }
  }

  /// The variants whose exact primary metric equals the control's (a difference of exactly 0,
  /// ``DecisionRule/difference(_:control:)``): ties, in spec order.
  package var tiedWithControl: [String] {
    rows.filter { $0.differences.first == 0 }.map(\.variant)
  }

  /// The primary metric's exact relative lift of `variant` against the control; `nil` when
  /// undefined or not a variant.
  package func primaryLift(_ variant: String) -> Double? {
    rows.first { $0.variant == variant }?.relativeLifts.first ?? nil
  }
}
