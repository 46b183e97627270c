/// The named parameters of the behavior model, each with a unit, a default and a
/// meaning. Every effect the simulator applies is one of these; there are no other
/// constants in the model.
///
/// Utilities are on the logit scale of a multinomial logit: at each screen a user
/// takes action `a` with probability `exp(U(a)) / Σ exp(U(b))`, where
/// `U(a) = ln p(a) + effects`, `p(a)` being the action's probability in the spec.
/// With every effect at zero the spec's probabilities are reproduced exactly.
public struct BehaviorParameters: Sendable, Hashable {
  /// Added to the utility of quitting per screen already seen (saturating at ``screensSeenCap``); utility
  /// per screen, −20…20.
  public var fatiguePerScreen = 0.04
  /// Screens seen beyond this count add no more fatigue or investment; bounds the compiled state. A whole
  /// number, 1…64.
  public var screensSeenCap = 20.0
  /// Added to the utility of quitting on a required choice or input screen; utility, −20…20.
  public var requiredInputFriction = 0.4
  /// Share of users who skip an optional choice or input screen without an explicit skip action, at
  /// reference conditions; a probability, 0…0.99.
  public var optionalSkipShare = 0.2
  /// Times the user's intent trait, subtracted from the utility of quitting (motivated users quit less);
  /// utility per unit of intent, −20…20.
  public var intentOnQuit = 0.5
  /// Times the user's intent trait, added to the utility of every purchase; utility per unit of intent, −20…20.
  public var intentOnPurchase = 0.8
  /// Added to the utility of every purchase per screen seen before the paywall (saturating); utility per
  /// screen, −20…20.
  public var investmentPerScreen = 0.05
  /// Added to the utility of every purchase when the user answered a personalizing question first; utility, −20…20.
  public var personalizationBoost = 0.3
  /// Added to the utility of the paywall's pre-selected plan (the default effect); utility, −20…20.
  public var defaultPlanBias = 0.8
  /// Added to the utility of a plan with a badge ("Popular", "Best value"); utility, −20…20.
  public var badgeBoost = 0.3
  /// Subtracted from a plan's utility per unit of `ln(monthly-equivalent price / referenceMonthlyPrice)`; −20…20.
  public var priceSensitivity = 1.0
  /// The monthly-equivalent price at which price has no effect: a paywall's purchase probability is stated
  /// at this price. Currency per month, 0.01…10⁶.
  public var referenceMonthlyPrice = 9.99
  /// Months a lifetime (one-time) purchase is taken to cover when turned into a monthly-equivalent price; 1…1200.
  public var lifetimeMonths = 24.0
  /// Added to the utility of every purchase per Pro feature the paywall lists; utility per feature, −20…20.
  public var featureUtility = 0.08
  /// Added to a paywall's median dwell time per Pro feature it lists; seconds per feature, 0…3600.
  public var secondsPerFeature = 1.5
  /// The σ of the lognormal dwell time of a screen that states none; in ln-seconds, 0…5.
  public var dwellSigma = 0.6

  /// The defaults, also listed by ``BehaviorParameter/defaultValue``.
  public init() {}

  /// The value of `parameter`, read or written by name (no range check: validation checks
  /// ``BehaviorParameter/range``).
  public subscript(parameter: BehaviorParameter) -> Double {
    get {
      switch parameter {
      case .fatiguePerScreen: fatiguePerScreen
      case .screensSeenCap: screensSeenCap
      case .requiredInputFriction: requiredInputFriction
      case .optionalSkipShare: optionalSkipShare
      case .intentOnQuit: intentOnQuit
      case .intentOnPurchase: intentOnPurchase
      case .investmentPerScreen: investmentPerScreen
      case .personalizationBoost: personalizationBoost
      case .defaultPlanBias: defaultPlanBias
      case .badgeBoost: badgeBoost
      case .priceSensitivity: priceSensitivity
      case .referenceMonthlyPrice: referenceMonthlyPrice
      case .lifetimeMonths: lifetimeMonths
      case .featureUtility: featureUtility
      case .secondsPerFeature: secondsPerFeature
      case .dwellSigma: dwellSigma
      }
    }
    set {
      switch parameter {
      case .fatiguePerScreen: fatiguePerScreen = newValue
      case .screensSeenCap: screensSeenCap = newValue
      case .requiredInputFriction: requiredInputFriction = newValue
      case .optionalSkipShare: optionalSkipShare = newValue
      case .intentOnQuit: intentOnQuit = newValue
      case .intentOnPurchase: intentOnPurchase = newValue
      case .investmentPerScreen: investmentPerScreen = newValue
      case .personalizationBoost: personalizationBoost = newValue
      case .defaultPlanBias: defaultPlanBias = newValue
      case .badgeBoost: badgeBoost = newValue
      case .priceSensitivity: priceSensitivity = newValue
      case .referenceMonthlyPrice: referenceMonthlyPrice = newValue
      case .lifetimeMonths: lifetimeMonths = newValue
      case .featureUtility: featureUtility = newValue
      case .secondsPerFeature: secondsPerFeature = newValue
      case .dwellSigma: dwellSigma = newValue
      }
    }
  }

  /// These parameters with `overrides` applied on top.
  public func applying(_ overrides: [BehaviorParameter: Double]) -> BehaviorParameters {
    var copy = self
    for parameter in BehaviorParameter.allCases {
      if let value = overrides[parameter] { copy[parameter] = value }
    }
    return copy
  }
}

/// The name of one behavior parameter, with its documentation.
public enum BehaviorParameter: String, Sendable, Hashable, CaseIterable, Comparable {
  /// ``BehaviorParameters/fatiguePerScreen``; the spec key `fatiguePerScreen`.
  case fatiguePerScreen
  /// ``BehaviorParameters/screensSeenCap``; the spec key `screensSeenCap`.
  case screensSeenCap
  /// ``BehaviorParameters/requiredInputFriction``; the spec key `requiredInputFriction`.
  case requiredInputFriction
  /// ``BehaviorParameters/optionalSkipShare``; the spec key `optionalSkipShare`.
  case optionalSkipShare
  /// ``BehaviorParameters/intentOnQuit``; the spec key `intentOnQuit`.
  case intentOnQuit
  /// ``BehaviorParameters/intentOnPurchase``; the spec key `intentOnPurchase`.
  case intentOnPurchase
  /// ``BehaviorParameters/investmentPerScreen``; the spec key `investmentPerScreen`.
  case investmentPerScreen
  /// ``BehaviorParameters/personalizationBoost``; the spec key `personalizationBoost`.
  case personalizationBoost
  /// ``BehaviorParameters/defaultPlanBias``; the spec key `defaultPlanBias`.
  case defaultPlanBias
  /// ``BehaviorParameters/badgeBoost``; the spec key `badgeBoost`.
  case badgeBoost
  /// ``BehaviorParameters/priceSensitivity``; the spec key `priceSensitivity`.
  case priceSensitivity
  /// ``BehaviorParameters/referenceMonthlyPrice``; the spec key `referenceMonthlyPrice`.
  case referenceMonthlyPrice
  /// ``BehaviorParameters/lifetimeMonths``; the spec key `lifetimeMonths`.
  case lifetimeMonths
  /// ``BehaviorParameters/featureUtility``; the spec key `featureUtility`.
  case featureUtility
  /// ``BehaviorParameters/secondsPerFeature``; the spec key `secondsPerFeature`.
  case secondsPerFeature
  /// ``BehaviorParameters/dwellSigma``; the spec key `dwellSigma`.
  case dwellSigma

  /// Declaration order (that of `allCases`), not alphabetical: reports list parameters in this order.
  public static func < (a: Self, b: Self) -> Bool {
    allCases.firstIndex(of: a) ?? 0 < allCases.firstIndex(of: b) ?? 0
  }

  /// The unit the value is expressed in.
  public var unit: String {
    switch self {
    case .fatiguePerScreen, .investmentPerScreen: "utility per screen seen"
    case .screensSeenCap: "screens (whole number)"
    case .requiredInputFriction, .personalizationBoost, .defaultPlanBias, .badgeBoost: "utility"
    case .optionalSkipShare: "probability"
    case .intentOnQuit, .intentOnPurchase: "utility per unit of intent"
    case .priceSensitivity: "utility per unit of ln(price ratio)"
    case .referenceMonthlyPrice: "currency per month"
    case .lifetimeMonths: "months"
    case .featureUtility: "utility per feature listed"
    case .secondsPerFeature: "seconds per feature listed"
    case .dwellSigma: "ln-seconds (lognormal σ)"
    }
  }

  /// The default value (that of `BehaviorParameters()`).
  public var defaultValue: Double { BehaviorParameters()[self] }

  /// The values accepted.
  public var range: ClosedRange<Double> {
    switch self {
    case .screensSeenCap: 1...64
    case .optionalSkipShare: 0...0.99
    case .referenceMonthlyPrice: 0.01...1e6
    case .lifetimeMonths: 1...1200
    case .dwellSigma: 0...5
    case .secondsPerFeature: 0...3600
    case .fatiguePerScreen, .requiredInputFriction, .investmentPerScreen, .personalizationBoost,
      .defaultPlanBias, .badgeBoost, .priceSensitivity, .intentOnQuit, .intentOnPurchase, .featureUtility:
      -20...20
    }
  }

  /// Whether only whole numbers are accepted (``screensSeenCap``, a count of screens): such a parameter
  /// cannot be drawn from a distribution (``ParameterUncertainty``).
  public var isWholeNumber: Bool { self == .screensSeenCap }

  /// What the parameter does.
  public var meaning: String {
    switch self {
    case .fatiguePerScreen:
      "Added to the utility of quitting for every screen already seen (saturating at screensSeenCap): users tire as the flow grows."
    case .screensSeenCap:
      "Screens seen beyond this count no longer add fatigue or investment; it bounds the simulator's state so the flow compiles to a finite chain."
    case .requiredInputFriction:
      "Added to the utility of quitting on a required choice or input screen (Continue disabled until answered)."
    case .optionalSkipShare:
      "On an optional choice or input screen with no explicit skip action, the share of users who skip it (a skip action is added with this share at reference conditions)."
    case .intentOnQuit:
      "Multiplies the user's intent trait and is subtracted from the utility of quitting: motivated users quit less."
    case .intentOnPurchase:
      "Multiplies the user's intent trait and is added to the utility of every purchase: motivated users buy more."
    case .investmentPerScreen:
      "Added to the utility of every purchase for each screen seen before the paywall (saturating): users who invested time value the product more."
    case .personalizationBoost:
      "Added to the utility of every purchase when the user answered a personalizing question (a goal) before the paywall."
    case .defaultPlanBias:
      "Added to the utility of the pre-selected plan: the default effect."
    case .badgeBoost:
      "Added to the utility of a plan that carries a badge such as \"Popular\" or \"Best value\"."
    case .priceSensitivity:
      "Subtracted from a plan's utility per unit of ln(monthly-equivalent price / referenceMonthlyPrice)."
    case .referenceMonthlyPrice:
      "The monthly-equivalent price at which price has no effect on a plan's utility; a paywall's purchase probability is stated at this price."
    case .lifetimeMonths:
      "The months a lifetime (one-time) purchase is taken to cover when turned into a monthly-equivalent price."
    case .featureUtility:
      "Added to the utility of every purchase per Pro feature a paywall lists."
    case .secondsPerFeature:
      "Added to a paywall's median dwell time per Pro feature it lists."
    case .dwellSigma:
      "The σ of the lognormal dwell time of a screen that does not state its own."
    }
  }
}
