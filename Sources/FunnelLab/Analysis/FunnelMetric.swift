package import FunnelStats

/// The metrics a funnel run reports, by name.
///
/// A metric is either a proportion of users (`successes / trials`) or a mean of a
/// per-user quantity (time, revenue) given by its sufficient statistics.
public enum FunnelMetric: String, Sendable, Hashable, CaseIterable, Codable {
  /// Users who completed the flow, of all users.
  case completionRate
  /// Users who abandoned (quit or step limit), of all users.
  case abandonmentRate
  /// Users who took any skip action, of all users.
  case skipRate
  /// Users who saw at least one paywall (the Pro upsell), of all users.
  case paywallViewRate
  /// Users who bought a plan (a store transaction, approved Ask to Buy included), of all users.
  case purchaseConversion
  /// Users who bought a plan, of users who saw a paywall.
  case purchaseConversionOfViewers
  /// Users who started a free trial, of all users.
  case trialStartRate
  /// Trials that converted to a paid period, of trials started.
  case trialToPaid
  /// Purchasers whose first payment was refunded, of purchasers.
  case refundRate
  /// Users who answered a personalizing question (a goal), of all users.
  case personalizationRate
  /// Mean seconds from the first screen to completion, over completers.
  case timeToFinish
  /// Net revenue per user over the revenue horizon (ARPU).
  case revenuePerUser
  /// Net revenue per paying user over the horizon (ARPPU: the lifetime value of a payer at the horizon).
  case revenuePerPayingUser
  /// Net revenue per user who saw a paywall, over the horizon.
  case revenuePerPaywallViewer
  /// Net revenue per user realized by the analysis day.
  case realizedRevenuePerUser

  /// What a metric is computed from.
  package enum Data: Sendable, Hashable {
    case proportion(successes: UInt64, trials: UInt64)
    case mean(SampleMeanStatistic)
  }

  /// Whether the metric is a rate of users (a proportion with a Wilson interval), not a mean.
  public var isProportion: Bool {
    switch self {
    case .timeToFinish, .revenuePerUser, .revenuePerPayingUser, .revenuePerPaywallViewer, .realizedRevenuePerUser: false
    default: true
    }
  }

  /// Whether the metric is money (formatted as currency).
  public var isRevenue: Bool {
    switch self {
    case .revenuePerUser, .revenuePerPayingUser, .revenuePerPaywallViewer, .realizedRevenuePerUser: true
    default: false
    }
  }

  /// A short label for tables.
  public var label: String {
    switch self {
    case .completionRate: "completion"
    case .abandonmentRate: "abandonment"
    case .skipRate: "skip rate"
    case .paywallViewRate: "paywall view"
    case .purchaseConversion: "purchase conversion"
    case .purchaseConversionOfViewers: "conversion of viewers"
    case .trialStartRate: "trial starts"
    case .trialToPaid: "trial to paid"
    case .refundRate: "refund rate"
    case .personalizationRate: "goal answered"
    case .timeToFinish: "time to finish (s)"
    case .revenuePerUser: "revenue per user"
    case .revenuePerPayingUser: "LTV per payer"
    case .revenuePerPaywallViewer: "revenue per viewer"
    case .realizedRevenuePerUser: "realized per user"
    }
  }

  /// How a proportion metric counts its users, from the aggregate's counters.
  package enum Proportion: Sendable, Hashable {
    /// `successes` of `trials`.
    case count(FunnelCounter, of: FunnelCounter)
    /// The `trials` who are not among `successes` (abandonment: users who did not complete).
    case complement(FunnelCounter, of: FunnelCounter)

    /// `(numerator, denominator)` from the counter values `count`.
    package func counts(_ count: (FunnelCounter) -> UInt64) -> (successes: UInt64, trials: UInt64) {
      switch self {
      case .count(let successes, let trials): (count(successes), count(trials))
      case .complement(let others, let trials):
        (count(trials) >= count(others) ? count(trials) - count(others) : 0, count(trials))
      }
    }
  }

  /// Where a mean metric's per-user values come from.
  package enum MeanSource: Sendable, Hashable {
    /// Seconds to finish, over completers.
    case timeToFinish
    /// Net revenue to the horizon, per user counted by the counter.
    case revenue(per: FunnelCounter)
    /// Revenue realized by the analysis day, per user counted by the counter.
    case realizedRevenue(per: FunnelCounter)
  }

  /// What the metric is made of: a proportion of counted users, or a mean.
  package enum Definition: Sendable, Hashable {
    /// A proportion of users.
    case proportion(Proportion)
    /// A mean of a per-user quantity.
    case mean(MeanSource)
  }

  /// The metric's definition: the one place that says which counters make each metric.
  package var definition: Definition {
    switch self {
    case .completionRate: .proportion(.count(.completed, of: .users))
    case .abandonmentRate: .proportion(.complement(.completed, of: .users))
    case .skipRate: .proportion(.count(.usersWhoSkipped, of: .users))
    case .paywallViewRate: .proportion(.count(.paywallViewers, of: .users))
    case .purchaseConversion: .proportion(.count(.purchasers, of: .users))
    case .purchaseConversionOfViewers: .proportion(.count(.purchasers, of: .paywallViewers))
    case .trialStartRate: .proportion(.count(.trialStarts, of: .users))
    case .trialToPaid: .proportion(.count(.trialConversions, of: .trialStarts))
    case .refundRate: .proportion(.count(.refunds, of: .purchasers))
    case .personalizationRate: .proportion(.count(.usersPersonalized, of: .users))
    case .timeToFinish: .mean(.timeToFinish)
    case .revenuePerUser: .mean(.revenue(per: .users))
    case .revenuePerPayingUser: .mean(.revenue(per: .purchasers))
    case .revenuePerPaywallViewer: .mean(.revenue(per: .paywallViewers))
    case .realizedRevenuePerUser: .mean(.realizedRevenue(per: .users))
    }
  }

  /// How a proportion metric counts; `nil` for the means.
  package var proportion: Proportion? {
    if case .proportion(let p) = definition { return p }
    return nil
  }

  /// The metric's data in an aggregate.
  package func data(in a: FunnelAggregate) -> Data {
    switch definition {
    case .proportion(let p):
      let (successes, trials) = p.counts { a[$0] }
      return .proportion(successes: successes, trials: trials)
    case .mean(.timeToFinish):
      return .mean(
        SampleMeanStatistic(
          n: Int(a.completionTime.count), sum: Double(a.completionTime.sumMillis) / 1000,
          sumOfSquares: Double(a.completionTime.sumSquaredMillis) / 1_000_000))
    case .mean(.revenue(let per)): return .mean(a.revenue.statistic(users: a[per]))
    case .mean(.realizedRevenue(let per)): return .mean(a.realizedRevenue.statistic(users: a[per]))
    }
  }

  /// `(numerator, denominator)` of a proportion metric.
  package func counts(in a: FunnelAggregate) -> (successes: UInt64, trials: UInt64)? {
    if case .proportion(let s, let n) = data(in: a) { return (s, n) }
    return nil
  }

  /// The metric's point estimate (`nil` when its denominator is empty): a proportion `successes / trials`, a
  /// mean its exact integer total over its users (``RevenueDistribution/mean(users:)``,
  /// ``TimeStatistic/meanSeconds``), each one division of exact integers.
  package func value(in a: FunnelAggregate) -> Double? {
    switch definition {
    case .proportion(let p):
      let (successes, trials) = p.counts { a[$0] }
      return trials == 0 ? nil : Double(successes) / Double(trials)
    case .mean(.timeToFinish): return a.completionTime.meanSeconds
    case .mean(.revenue(let per)): return a.revenue.mean(users: a[per])
    case .mean(.realizedRevenue(let per)): return a.realizedRevenue.mean(users: a[per])
    }
  }
}
