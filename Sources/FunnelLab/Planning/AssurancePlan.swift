import FunnelStats

/// Assurance of a planned test: for each planned variant, the probability that the test
/// reaches significance in the direction of the true effect, averaged over the draws of a
/// ``Prediction`` (see ``FunnelStats/Assurance``), beside the power at the assumed effect,
/// and the users per arm that reach a target assurance.
package struct AssurancePlan: Sendable, Hashable {
  /// One planned variant.
  package struct Variant: Sendable, Hashable {
    /// The variant's id.
    package var variant: String
    /// The users per arm of the plan (those the power was computed at).
    package var usersPerArm: Int
    /// The assurance at ``usersPerArm``.
    package var assurance: Double
    /// The share of draws where the variant beats the control.
    package var probabilityToBeatControl: Double?
    /// The predictive interval of the effect (variant − control).
    package var effectInterval: ClosedRange<Double>?
    /// The fewest users per arm whose assurance reaches ``AssurancePlan/target``; `nil` when no size up to
    /// ``FunnelStats/StatsLimits/maxSampleSize`` does (too many draws lie near no effect).
    package var usersPerArmForTarget: Int?
  }

  /// The assurance the sizes are solved for.
  package var target: Double
  /// The number of draws averaged over.
  package var draws: Int
  /// The two-sided significance level of the planned test.
  package var alpha: Double
  /// One entry per planned variant, in the plan's order.
  package var variants: [Variant]

  /// The assurance of every plan in `report` over `prediction`'s draws (made on the same
  /// experiment and metric); a planned variant the prediction lacks is left out.
  package init(report: PlanningReport, prediction: Prediction, target: Double) {
    self.target = target
    draws = prediction.draws.count
    alpha = report.alpha
    variants = report.plans.compactMap { plan in
      let id = plan.diagnosis.variant
      guard let j = prediction.variants.firstIndex(where: { $0.variant == id }) else { return nil }
      let rates = prediction.values.compactMap { row -> Assurance.Draw? in
        guard let p0 = row[0], let p1 = row[j] else { return nil }
        return Assurance.Draw(control: p0, variant: p1)
      }
      let n = plan.diagnosis.usersPerArm
      let effect = prediction.variants[j]
      return Variant(
        variant: id, usersPerArm: n, assurance: Assurance.assurance(rates, usersPerArm: Double(n), alpha: report.alpha),
        probabilityToBeatControl: effect.probabilityToBeatControl, effectInterval: effect.effectInterval,
        usersPerArmForTarget: Assurance.usersPerArm(reaching: target, draws: rates, alpha: report.alpha))
    }
  }
}

extension PlanningReport {
  /// This plan with its ``assurance`` over `prediction`'s draws at `target`.
  package func addingAssurance(_ prediction: Prediction, target: Double) -> PlanningReport {
    var copy = self
    copy.assurance = AssurancePlan(report: self, prediction: prediction, target: target)
    return copy
  }
}
