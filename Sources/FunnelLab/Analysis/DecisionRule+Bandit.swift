/// A bandit run against the truth: would the arm it ships (the decided arm, or the leader if
/// shipped now) be the right decision?
extension DecisionRule {
  /// The design check of a bandit run (``Recommendation/DesignCheck``): shipping
  /// ``BanditTimeline/shippedArm`` (nothing when it is the control) against the arms' exact
  /// rates, with ``BanditTimeline/relativeMargin``: it ships an arm inside the margin, a worse
  /// arm, or holds back an arm truly best by more than the margin; `nil` when the exact rates
  /// are not all solved.
  package static func design(_ t: BanditTimeline) -> Recommendation.DesignCheck? {
    guard let control = t.arms.first, let base = control.exactRate, t.arms.allSatisfy({ $0.exactRate != nil }) else { return nil }
    let lifts = t.arms.dropFirst().map { a in (id: a.id, lift: a.exactRate.flatMap { relativeLift($0, control: base) }) }
    let metric = DecisionSummary.Metric(
      id: t.metric.rawValue, label: t.metric.label, higherIsBetter: t.metric.higherIsBetter, relativeMargin: t.relativeMargin)
    return designCheck(
      shipped: t.shippedArm == control.id ? nil : t.shippedArm,
      trueStanding: standing(lifts.map { ($0.id, $0.lift) }, higherIsBetter: metric.higherIsBetter, margin: metric.relativeMargin),
      trueLifts: Dictionary(lifts.map { ($0.id, $0.lift) }, uniquingKeysWith: { a, _ in a }), metric: metric)
  }
}
