package import FunnelStats

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
package struct SubscriptionLifecycle: Sendable, Hashable {
  /// What one transaction turned out to earn; all zero for a trial that did not convert.
  package struct Outcome: Sendable, Hashable {
    /// Net revenue within the horizon, in whole cents of the plan's currency (a refunded first payment counts 0).
    package var horizonCents: Int64 = 0
    /// The part of ``horizonCents`` paid before the analysis day, in cents.
    package var realizedCents: Int64 = 0
    /// Payments charged within the horizon, the refunded first one included.
    package var payments = 0
    /// Whether the transaction was a trial that converted to a paid period.
    package var convertedFromTrial = false
    /// Whether the first payment was refunded.
    package var refunded = false
  }

  static let daysPerMonth = 365.25 / 12

  /// Trial conversion, renewals, refunds, store fee, horizon and analysis day.
  package var settings: RevenueSettings

  /// A lifecycle under `settings` (a plan's own renewal probability still overrides the settings').
  package init(settings: RevenueSettings) { self.settings = settings }

  /// The revenue of `transaction` for `plan`, drawing renewals from `rng`.
  /// - Complexity: O(payments within the horizon).
  package func outcome(of transaction: StoreTransaction, plan: Plan, using rng: inout Xoshiro256StarStar) -> Outcome {
    var outcome = Outcome()
    var schedule = PaymentSchedule(delayDays: transaction.delayDays, isTrial: transaction.isTrial, plan: plan, settings: settings)
    if transaction.isTrial {
      guard rng.nextUnitDouble() < settings.trialConversion else { return outcome }
      outcome.convertedFromTrial = true
    }
    let renewalProbability = renewal(of: plan)
    while let payment = schedule.next() {
      var cents = payment.cents
      if payment.index == 0, rng.nextUnitDouble() < settings.refundProbability {
        outcome.refunded = true
        cents = 0
      }
      outcome.horizonCents += cents
      if payment.day < settings.analysisDay { outcome.realizedCents += cents }
      outcome.payments += 1
      guard schedule.renews, rng.nextUnitDouble() < renewalProbability else { break }
    }
    return outcome
  }

  /// The probability that a subscription to `plan` renews at the end of a paid period: the
  /// plan's own, or the settings' for its period.
  package func renewal(of plan: Plan) -> Double { plan.renewalProbability ?? settings.renewal(for: plan.period) }

  /// The payments of one purchase, in order, while they fall before the horizon: the
  /// days and net cents that ``outcome(of:plan:using:)``, its expectation and a
  /// ``PurchaseLifecycle`` read back all share, computed one way.
  struct PaymentSchedule {
    /// One payment: its position (0 = the first), its day from the tap and its net cents.
    struct Payment {
      var index: Int
      var day: Double
      var cents: Int64
    }

    // The plan's numbers only (no strings to retain on the purchase path).
    let price: Double
    let introPrice: Double
    let introPeriods: Int
    let storeFee: Double
    let horizonDays: Double
    let periodDays: Double?
    private(set) var day: Double
    private(set) var index = 0

    /// The schedule of a purchase made `delayDays` after the tap: the first payment is
    /// then, or after the trial for a trial.
    init(delayDays: Double, isTrial: Bool, plan: Plan, settings: RevenueSettings) {
      price = plan.price
      introPrice = plan.introPrice ?? plan.price
      introPeriods = plan.introPeriods
      storeFee = settings.storeFee
      horizonDays = settings.horizonMonths * SubscriptionLifecycle.daysPerMonth
      periodDays = plan.period.months.map { $0 * SubscriptionLifecycle.daysPerMonth }
      day = delayDays + (isTrial ? Double(plan.trialDays) : 0)
    }

    /// Whether the plan renews at all (a lifetime plan pays once).
    var renews: Bool { periodDays != nil }

    /// The next payment, one period after the last (the days are accumulated, exactly as
    /// every reader of the schedule sees them); `nil` past the horizon or after a
    /// lifetime plan's one payment. Each payment is `round(100 · price · (1 − storeFee))`
    /// cents, the intro price for the first `introPeriods`.
    mutating func next() -> Payment? {
      if index > 0 {
        guard let periodDays else { return nil }
        day += periodDays
      }
      guard day < horizonDays else { return nil }
      let charged = index < introPeriods ? introPrice : price
      // Prices are validated to at most 10⁶, so the cents always fit.
      let cents = Int64(rounding: charged * 100 * (1 - storeFee)) ?? 0
      defer { index += 1 }
      return Payment(index: index, day: day, cents: cents)
    }
  }
}

extension RevenueSettings {
  /// The days of a realized-revenue curve (``ExactFunnel/realizedRevenueCurve``,
  /// ``LifecycleSummary/revenueByDay``): 7, 14, the analysis day and the end of every month
  /// to the horizon (`k · 365.25/12`), sorted, without repeats.
  package var curveDays: [Double] {
    let months = max(Int(horizonMonths.rounded(.down)), 0)
    let horizon = horizonMonths * SubscriptionLifecycle.daysPerMonth
    var days = [7, 14, analysisDay] + (1...max(months, 1)).map { Double($0) * SubscriptionLifecycle.daysPerMonth }
    days.append(horizon)
    return Array(Set(days.filter { $0 > 0 && $0 <= horizon })).sorted()
  }
}
