public import FunnelStats

/// What one transaction earns: the payments it leads to within the revenue horizon,
/// net of the store's fee and refunds, in cents; and the part realized by the
/// analysis day.
///
/// Timeline (days from the tap): a trial of `d` days converts with `trialConversion`
/// at day `d + delay`; a paid period starts at `delay` otherwise. A subscription then
/// renews at the end of each period with its renewal probability while the next
/// payment falls before the horizon (`horizonMonths · 365.25/12` days). A lifetime
/// plan pays once. Intro offers charge `introPrice` for the first `introPeriods`
/// periods. The first payment is refunded with `refundProbability`. Each payment is
/// `round(100 · price · (1 − storeFee))` cents.
public struct SubscriptionLifecycle: Sendable, Hashable {
  /// What one transaction turned out to earn; all zero for a trial that did not convert.
  public struct Outcome: Sendable, Hashable {
    /// Net revenue within the horizon, in whole cents of the plan's currency (a refunded first payment counts 0).
    public var horizonCents: Int64 = 0
    /// The part of ``horizonCents`` paid before the analysis day, in cents.
    public var realizedCents: Int64 = 0
    /// Payments charged within the horizon, the refunded first one included.
    public var payments = 0
    /// Whether the transaction was a trial that converted to a paid period.
    public var convertedFromTrial = false
    /// Whether the first payment was refunded.
    public var refunded = false
  }

  static let daysPerMonth = 365.25 / 12

  /// Trial conversion, renewals, refunds, store fee, horizon and analysis day.
  public var settings: RevenueSettings

  /// A lifecycle under `settings` (a plan's own renewal probability still overrides the settings').
  public init(settings: RevenueSettings) { self.settings = settings }

  /// The revenue of `transaction` for `plan`, drawing renewals from `rng`.
  /// - Complexity: O(payments within the horizon).
  public func outcome(of transaction: StoreTransaction, plan: Plan, using rng: inout Xoshiro256StarStar) -> Outcome {
    var outcome = Outcome()
    let horizonDays = settings.horizonMonths * Self.daysPerMonth
    var day = transaction.delayDays
    if transaction.isTrial {
      day += Double(plan.trialDays)
      guard rng.nextUnitDouble() < settings.trialConversion else { return outcome }
      outcome.convertedFromTrial = true
    }
    let periodDays = plan.period.months.map { $0 * Self.daysPerMonth }
    let renewal = plan.renewalProbability ?? settings.renewal(for: plan.period)
    var index = 0
    while day < horizonDays {
      let price = index < plan.introPeriods ? (plan.introPrice ?? plan.price) : plan.price
      // Prices are validated to at most 10⁶, so the cents always fit.
      var cents = Int64(rounding: price * 100 * (1 - settings.storeFee)) ?? 0
      if index == 0, rng.nextUnitDouble() < settings.refundProbability {
        outcome.refunded = true
        cents = 0
      }
      outcome.horizonCents += cents
      if day < settings.analysisDay { outcome.realizedCents += cents }
      outcome.payments += 1
      index += 1
      guard let periodDays, rng.nextUnitDouble() < renewal else { break }
      day += periodDays
    }
    return outcome
  }
}
