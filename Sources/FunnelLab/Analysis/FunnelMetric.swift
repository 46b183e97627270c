public import FunnelStats

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
  public enum Data: Sendable, Hashable {
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
    case .personalizationRate: "goal answered"
    case .timeToFinish: "time to finish (s)"
    case .revenuePerUser: "revenue per user"
    case .revenuePerPayingUser: "LTV per payer"
    case .revenuePerPaywallViewer: "revenue per viewer"
    case .realizedRevenuePerUser: "realized per user"
    }
  }

  /// The counters of a proportion metric's numerator and denominator; `nil` for the
  /// means and for abandonment (quits plus step-limit cuts, not one counter).
  public var counters: (successes: FunnelCounter, trials: FunnelCounter)? {
    switch self {
    case .completionRate: (.completed, .users)
    case .skipRate: (.usersWhoSkipped, .users)
    case .paywallViewRate: (.paywallViewers, .users)
    case .purchaseConversion: (.purchasers, .users)
    case .purchaseConversionOfViewers: (.purchasers, .paywallViewers)
    case .trialStartRate: (.trialStarts, .users)
    case .trialToPaid: (.trialConversions, .trialStarts)
    case .personalizationRate: (.usersPersonalized, .users)
    case .abandonmentRate, .timeToFinish, .revenuePerUser, .revenuePerPayingUser, .revenuePerPaywallViewer, .realizedRevenuePerUser: nil
    }
  }

  /// The metric's data in an aggregate.
  public func data(in a: FunnelAggregate) -> Data {
    switch self {
    case .abandonmentRate: .proportion(successes: a.abandoned, trials: a[.users])
    case .completionRate, .skipRate, .paywallViewRate, .purchaseConversion, .purchaseConversionOfViewers, .trialStartRate, .trialToPaid,
      .personalizationRate:
      counters.map { .proportion(successes: a[$0.successes], trials: a[$0.trials]) } ?? .proportion(successes: 0, trials: 0)
    case .timeToFinish:
      .mean(
        SampleMeanStatistic(
          n: Int(a.completionTime.count), sum: Double(a.completionTime.sumMillis) / 1000,
          sumOfSquares: Double(a.completionTime.sumSquaredMillis) / 1_000_000))
    case .revenuePerUser: .mean(a.revenue.statistic(users: a[.users]))
    case .revenuePerPayingUser: .mean(a.revenue.statistic(users: a[.purchasers]))
    case .revenuePerPaywallViewer: .mean(a.revenue.statistic(users: a[.paywallViewers]))
    case .realizedRevenuePerUser: .mean(a.realizedRevenue.statistic(users: a[.users]))
    }
  }

  /// `(numerator, denominator)` of a proportion metric.
  public func counts(in a: FunnelAggregate) -> (successes: UInt64, trials: UInt64)? {
    if case .proportion(let s, let n) = data(in: a) { return (s, n) }
    return nil
  }

  /// The metric's point estimate (`nil` when its denominator is empty).
  public func value(in a: FunnelAggregate) -> Double? {
    switch data(in: a) {
    case .proportion(let s, let n): n == 0 ? nil : Double(s) / Double(n)
    case .mean(let m): m.mean
    }
  }
}
