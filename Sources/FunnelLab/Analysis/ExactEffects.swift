/// The truth first: each variant's exact effect against the control on the metrics its flow
/// has (the primary metric, then revenue per user when the flow sells a plan, then
/// completion), and the variant best on the primary metric. What `exact` opens with.
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

  /// The effects of `solutions` (the control first: variant id, whether its flow sells a
  /// plan, its exact funnel) on `primary` and the flow's other headline metrics.
  package init(_ solutions: [(variant: String, sellsPlans: Bool, exact: ExactFunnel)], primary: FunnelMetric) {
    control = solutions.first?.variant ?? ""
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

  /// The variant whose exact effect on the primary metric is best, with its relative lift;
  /// `nil` when none beats the control by more than ``DecisionRule/tieTolerance``.
  package var best: (variant: String, relativeLift: Double?)? {
    let sign = (metrics.first?.higherIsBetter ?? true) ? 1.0 : -1.0
    let ranked = rows.compactMap { r in r.differences.first.flatMap { $0 }.map { (r, $0 * sign) } }.sorted { $0.1 > $1.1 }
    guard let (row, gain) = ranked.first, gain > DecisionRule.tieTolerance else { return nil }
    return (row.variant, row.relativeLifts.first ?? nil)
  }
}
