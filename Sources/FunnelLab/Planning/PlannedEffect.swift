/// What a planned test would be looking for: a variant's true effect on the planned metric,
/// judged by the decision rule (``DecisionRule``) so that every planner, and every report of a
/// plan, calls it the same way.
package enum PlannedEffect: String, Sendable, Hashable, CaseIterable {
  /// The variant ties the control exactly (``DecisionRule/tied(_:_:)``): there is nothing to
  /// detect, and power, type S and type M have no meaning.
  case none
  /// The true effect lies inside the practical-equivalence margin: too small to matter, so a
  /// test sized to find it is not worth running.
  case negligible
  /// The variant is truly better by more than the margin: a test would find a win.
  case better
  /// The variant is truly worse by more than the margin: a test would find a loss.
  case worse

  /// The call on a variant's exact value against the control's.
  /// - Parameters:
  ///   - variant: the variant's exact value of the metric.
  ///   - control: the control's exact value.
  ///   - higherIsBetter: the metric's direction.
  ///   - relativeMargin: the practical-equivalence margin as a share of the control's value.
  package init(variant: Double, control: Double, higherIsBetter: Bool, relativeMargin: Double) {
    let difference = DecisionRule.difference(variant, control: control)
    if difference == 0 {
      self = .none
    } else if abs(difference) <= DecisionRule.margin(relative: relativeMargin, control: control) {
      self = .negligible
    } else {
      self = (difference > 0) == higherIsBetter ? .better : .worse
    }
  }

  /// Whether the effect is worth a test: larger than the margin, in either direction.
  package var isWorthTesting: Bool { self == .better || self == .worse }
}
