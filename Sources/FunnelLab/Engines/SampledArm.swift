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
package struct SampledArm: Sendable, Hashable {
  /// The counts the classes determine (users, completed, stepLimitReached, purchasers,
  /// paywallViewers, usersWhoSkipped, usersWhoWentBack, usersPersonalized, trialStarts,
  /// trialConversions); the store's event counts stay 0. Read them as `arm[.purchasers]`.
  package var counts = FunnelCounts()
  /// Users in each class of the sampler's ``AggregateSampler/classes``.
  package var classCounts: [UInt64]
  /// Users who quit on each screen.
  package var abandonedAt: [UInt64]
  /// Users whose first purchase was each plan slot.
  package var planPurchases: [UInt64]

  /// An empty arm with these index spaces.
  package init(classes: Int, screens: Int, plans: Int) {
    classCounts = Array(repeating: 0, count: classes)
    abandonedAt = Array(repeating: 0, count: screens)
    planPurchases = Array(repeating: 0, count: plans)
  }

  /// The count of `counter`.
  package subscript(counter: FunnelCounter) -> UInt64 {
    get { counts[counter] }
    set { counts[counter] = newValue }
  }

  /// Abandoned users: quits plus step-limit cuts.
  package var abandoned: UInt64 { self[.users] - self[.completed] }

  /// `(numerator, denominator)` of a proportion metric, as ``FunnelMetric/counts(in:)``
  /// counts it on a Monte Carlo aggregate (`nil` for the means, time and revenue, which
  /// are not sampled).
  package func counts(for metric: FunnelMetric) -> (successes: UInt64, trials: UInt64)? {
    metric.proportion.map { $0.counts { self[$0] } }
  }
}
