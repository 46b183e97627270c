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
    terms(of: action, plan: plan, on: screen, overrides: overrides, behavior: b).value(in: state)
  }

  /// The parts of `U(a)` that do not depend on the user's state (its spec probability, a
  /// plan's value, price and badge), computed once per outcome and segment: the compiler
  /// evaluates them for every state of its table (``UtilityTerms/value(in:)``).
  package static func terms(
    of action: Action?, plan: CompiledFlow.PlanSlot?, on screen: Screen, overrides: [String: Double]?, behavior b: BehaviorParameters
  ) -> UtilityTerms {
    var terms: UtilityTerms
    if let action {
      let p = overrides?[action.id] ?? action.probability ?? 0
      terms = UtilityTerms(start: p > 0 ? log(p) : -.infinity)
      if action.kind == .quit {
        terms.quit = .init(
          fatiguePerScreen: b.fatiguePerScreen, intentOnQuit: b.intentOnQuit,
          friction: screen.required == true ? b.requiredInputFriction : nil)
      }
    } else {
      let q = b.optionalSkipShare
      terms = UtilityTerms(start: q > 0 ? log(q / (1 - q)) : -.infinity)
    }
    if let slot = plan {
      let paywall = screen.paywall
      let monthly = slot.plan.monthlyEquivalentPrice(lifetimeMonths: b.lifetimeMonths)
      terms.purchase = .init(
        value: slot.plan.utility - b.priceSensitivity * log(monthly / b.referenceMonthlyPrice),
        logPlanCount: log(Double(paywall?.plans.count ?? 1)), defaultBias: slot.isDefault ? b.defaultPlanBias : nil,
        badgeBoost: slot.plan.badge != nil ? b.badgeBoost : nil, intentOnPurchase: b.intentOnPurchase,
        investmentPerScreen: b.investmentPerScreen, personalizationBoost: b.personalizationBoost,
        features: b.featureUtility * Double(paywall?.features ?? 0))
    }
    return terms
  }

  /// One outcome's utility as a function of the state: its state-free parts, and the
  /// coefficients of `n`, `θ` and `f` (see ``BehaviorModel``). ``value(in:)`` adds them in
  /// the model's order, so that a table built from terms equals one built from
  /// ``BehaviorModel/utility(of:plan:on:overrides:behavior:state:)`` bit for bit.
  package struct UtilityTerms: Sendable {
    /// A quit's terms: `fatiguePerScreen·n − intentOnQuit·θ`, plus the friction of a required screen.
    struct Quit: Sendable {
      var fatiguePerScreen: Double
      var intentOnQuit: Double
      var friction: Double?
    }

    /// A purchase's terms: the plan's value `V_j` in its parts, then the state's.
    struct Purchase: Sendable {
      var value: Double
      var logPlanCount: Double
      var defaultBias: Double?
      var badgeBoost: Double?
      var intentOnPurchase: Double
      var investmentPerScreen: Double
      var personalizationBoost: Double
      /// `featureUtility·features`.
      var features: Double
    }

    /// `ln p_s(a)`, or the implicit skip's log-odds.
    var start: Double
    var quit: Quit?
    var purchase: Purchase?

    /// Whether the value changes with the state (else every state's row of the screen is the same).
    var dependsOnState: Bool { quit != nil || purchase != nil }
    /// Whether the value changes with the personalized flag `f`.
    var dependsOnPersonalization: Bool { purchase != nil }

    /// `U(a)` in `state`.
    package func value(in state: State) -> Double {
      let theta = state.intent
      let n = state.screensSeen
      var u = start
      if let quit {
        u += quit.fatiguePerScreen * n - quit.intentOnQuit * theta
        if let friction = quit.friction { u += friction }
      }
      if let p = purchase {
        u += p.value
        u -= p.logPlanCount
        if let bias = p.defaultBias { u += bias }
        if let badge = p.badgeBoost { u += badge }
        u += p.intentOnPurchase * theta + p.investmentPerScreen * n
        u += p.personalizationBoost * (state.personalized ? 1 : 0) + p.features
      }
      return u
    }
  }

  /// `softmax(U)` as cumulative integer thresholds (``CompiledFlow/thresholds(of:)``):
  /// an outcome of utility `-∞` gets probability 0.
  package static func thresholds(utilities: ArraySlice<Double>) -> [UInt64] {
    var weights: [Double] = []
    var result = [UInt64](repeating: 0, count: utilities.count)
    writeThresholds(utilities: Array(utilities), count: utilities.count, weights: &weights, into: &result, at: 0)
    return result
  }

  /// ``thresholds(utilities:)`` of `utilities[0..<count]`, written to `table[start..<start + count]`;
  /// `weights` is scratch space (kept between calls, so that a table's rows allocate nothing).
  static func writeThresholds(
    utilities: [Double], count: Int, weights: inout [Double], into table: inout [UInt64], at start: Int
  ) {
    guard count > 0 else { return }
    var maxU = utilities[0]
    for k in 1..<count where maxU < utilities[k] { maxU = utilities[k] }
    weights.removeAll(keepingCapacity: true)
    for k in 0..<count { weights.append(utilities[k] == -.infinity ? 0 : exp(utilities[k] - maxU)) }
    CompiledFlow.writeThresholds(of: weights, into: &table, at: start)
  }
}
