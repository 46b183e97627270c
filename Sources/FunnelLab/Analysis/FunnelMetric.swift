/// The metrics a funnel run reports, by name. Proportions are `numerator /
/// denominator` of user counts; `timeToFinish` is a mean over completers.
public enum FunnelMetric: String, Sendable, Hashable, CaseIterable, Codable {
  /// Users who completed the flow, of all users.
  case completionRate
  /// Users who abandoned (quit or step limit), of all users.
  case abandonmentRate
  /// Users who took any skip action, of all users.
  case skipRate
  /// Users who saw at least one paywall (the Pro upsell), of all users.
  case paywallViewRate
  /// Users who bought a plan, of all users.
  case purchaseConversion
  /// Users who bought a plan, of users who saw a paywall.
  case purchaseConversionOfViewers
  /// Users who answered a personalizing question (a goal), of all users.
  case personalizationRate
  /// Mean seconds from the first screen to completion, over completers.
  case timeToFinish

  public var isProportion: Bool { self != .timeToFinish }

  /// A short label for tables.
  public var label: String {
    switch self {
    case .completionRate: "completion"
    case .abandonmentRate: "abandonment"
    case .skipRate: "skip rate"
    case .paywallViewRate: "paywall view"
    case .purchaseConversion: "purchase conversion"
    case .purchaseConversionOfViewers: "conversion of viewers"
    case .personalizationRate: "goal answered"
    case .timeToFinish: "time to finish (s)"
    }
  }

  /// `(numerator, denominator)` of a proportion metric.
  public func counts(in a: FunnelAggregate) -> (successes: UInt64, trials: UInt64)? {
    switch self {
    case .completionRate: (a.completed, a.users)
    case .abandonmentRate: (a.abandoned, a.users)
    case .skipRate: (a.usersWhoSkipped, a.users)
    case .paywallViewRate: (a.paywallViewers, a.users)
    case .purchaseConversion: (a.purchasers, a.users)
    case .purchaseConversionOfViewers: (a.purchasers, a.paywallViewers)
    case .personalizationRate: (a.usersPersonalized, a.users)
    case .timeToFinish: nil
    }
  }

  /// The metric's point estimate (`nil` when its denominator is empty).
  public func value(in a: FunnelAggregate) -> Double? {
    if let (s, n) = counts(in: a) { return n == 0 ? nil : Double(s) / Double(n) }
    return a.completionTime.meanSeconds
  }
}
