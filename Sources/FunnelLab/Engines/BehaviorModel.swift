import Foundation

/// The behavior model: how likely each outcome of a screen is, for a user in a state.
///
/// For every state the utilities of the screen's outcomes are
/// ```
/// U(a) = ln p_s(a)                                   spec probability (segment s may override)
///      + [a = quit] · (fatiguePerScreen·n + requiredInputFriction·[required] − intentOnQuit·θ)
///      + [a = purchase plan j] · (V_j + intentOnPurchase·θ + investmentPerScreen·n
///                                 + personalizationBoost·f + featureUtility·features)
///        − ln J                                       J plans share the purchase probability
/// V_j  = utility_j − priceSensitivity·ln(monthlyEquivalent_j / referenceMonthlyPrice)
///        + defaultPlanBias·[j is default] + badgeBoost·[j has a badge]
/// ```
/// with `n` the screens seen before this one (saturated at `screensSeenCap`), `f`
/// the personalized flag and `θ` the bin mean of the user's intent. A paywall's
/// purchase probability is thus the probability of buying when every plan is at the
/// reference price with no default, badge or other effect, however many plans there are. The outcome
/// probabilities are `softmax(U)`. An optional choice or input with no explicit skip
/// gains a skip with `U = ln(q/(1−q))`, `q = optionalSkipShare`, so that it takes the
/// share `q` at reference conditions. A `type` action with validation failure
/// probability `v` splits into `U + ln(1−v)` (valid) and `U + ln v` (stay); a task's
/// `continue` likewise with its failure probability (the compiler adds those shares).
package enum BehaviorModel {
  /// What the model knows of a user when a screen is shown.
  package struct State: Sendable, Hashable {
    /// `θ`: the user's intent (the mean of its trait bin).
    package var intent: Double
    /// `n`: screens seen before this one, saturated at `screensSeenCap`.
    package var screensSeen: Double
    /// `f`: whether the user answered a personalization question.
    package var personalized: Bool
  }

  /// `U(a)` of one outcome: `action` is the spec's action (`nil` for the implicit skip of
  /// an optional choice or input), `plan` the plan slot of a purchase outcome;
  /// `overrides` are the segment's probabilities for the screen's actions.
  package static func utility(
    of action: Action?, plan: CompiledFlow.PlanSlot?, on screen: Screen, overrides: [String: Double]?,
    behavior b: BehaviorParameters, state: State
  ) -> Double {
    let theta = state.intent
    let n = state.screensSeen
    var u: Double
    if let action {
      let p = overrides?[action.id] ?? action.probability ?? 0
      u = p > 0 ? log(p) : -.infinity
      if action.kind == .quit {
        u += b.fatiguePerScreen * n - b.intentOnQuit * theta
        if screen.required == true { u += b.requiredInputFriction }
      }
    } else {
      let q = b.optionalSkipShare
      u = q > 0 ? log(q / (1 - q)) : -.infinity
    }
    if let slot = plan {
      let monthly = slot.plan.monthlyEquivalentPrice(lifetimeMonths: b.lifetimeMonths)
      u += slot.plan.utility - b.priceSensitivity * log(monthly / b.referenceMonthlyPrice)
      u -= log(Double(screen.paywall?.plans.count ?? 1))
      if slot.isDefault { u += b.defaultPlanBias }
      if slot.plan.badge != nil { u += b.badgeBoost }
      u += b.intentOnPurchase * theta + b.investmentPerScreen * n
      u += b.personalizationBoost * (state.personalized ? 1 : 0) + b.featureUtility * Double(screen.paywall?.features ?? 0)
    }
    return u
  }

  /// `softmax(U)` as cumulative integer thresholds (``CompiledFlow/thresholds(of:)``):
  /// an outcome of utility `-∞` gets probability 0.
  package static func thresholds(utilities: ArraySlice<Double>) -> [UInt64] {
    let maxU = utilities.max() ?? 0
    let weights = utilities.map { $0 == -.infinity ? 0 : exp($0 - maxU) }
    return CompiledFlow.thresholds(of: weights)
  }
}
