/// The outcome counts of one arm drawn by ``AggregateSampler``: how many of the
/// arm's users fell into each outcome class, and the funnel counts they imply.
///
/// It carries only what the outcome classes determine (see
/// ``ExactFunnel/OutcomeClass``): completion, abandonment per screen, step-limit
/// cuts, first-purchase plan, paywall viewers, skippers, users who went back or
/// personalized; plus trial starts (the buyers of plans with a free trial) and
/// trial conversions (a binomial thinning of the trial starts). Reach of individual
/// screens, views, actions, times and revenue are not sampled; use the
/// ``MonteCarloEngine`` for those (or ``ExactFunnel`` for their expectations).
public struct SampledArm: Sendable, Hashable {
  public var users: UInt64 = 0
  /// Users in each class of the sampler's ``AggregateSampler/classes``.
  public var classCounts: [UInt64]
  public var completed: UInt64 = 0
  /// Users who quit on each screen.
  public var abandonedAt: [UInt64]
  /// Walks cut off at the step limit.
  public var stepLimitReached: UInt64 = 0
  /// Users whose first purchase was each plan slot.
  public var planPurchases: [UInt64]
  public var purchasers: UInt64 = 0
  public var paywallViewers: UInt64 = 0
  public var usersWhoSkipped: UInt64 = 0
  public var usersWhoWentBack: UInt64 = 0
  public var usersPersonalized: UInt64 = 0
  /// Purchasers of a plan with a free trial.
  public var trialStarts: UInt64 = 0
  /// Trials that converted to a paid period.
  public var trialConversions: UInt64 = 0

  /// An empty arm with these index spaces.
  public init(classes: Int, screens: Int, plans: Int) {
    classCounts = Array(repeating: 0, count: classes)
    abandonedAt = Array(repeating: 0, count: screens)
    planPurchases = Array(repeating: 0, count: plans)
  }

  /// Abandoned users: quits plus step-limit cuts.
  public var abandoned: UInt64 { users - completed }

  /// `(numerator, denominator)` of a proportion metric, as ``FunnelMetric/counts(in:)``
  /// counts it on a Monte Carlo aggregate (`nil` for the means, time and revenue, which
  /// are not sampled).
  public func counts(for metric: FunnelMetric) -> (successes: UInt64, trials: UInt64)? {
    switch metric {
    case .completionRate: (completed, users)
    case .abandonmentRate: (abandoned, users)
    case .skipRate: (usersWhoSkipped, users)
    case .paywallViewRate: (paywallViewers, users)
    case .purchaseConversion: (purchasers, users)
    case .purchaseConversionOfViewers: (purchasers, paywallViewers)
    case .personalizationRate: (usersPersonalized, users)
    case .trialStartRate: (trialStarts, users)
    case .trialToPaid: (trialConversions, trialStarts)
    case .timeToFinish, .revenuePerUser, .revenuePerPayingUser, .revenuePerPaywallViewer, .realizedRevenuePerUser: nil
    }
  }
}
