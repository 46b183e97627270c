/// How one purchase played out over the revenue horizon, in as few fields as say what it
/// earned by any day: the plan, when it started, whether a trial converted, how many
/// payments fell within the horizon and whether the first was refunded.
///
/// Purchasers with the same lifecycle paid the same amounts on the same days, so a
/// count per lifecycle (``FunnelAggregate/lifecycles``) is a sufficient statistic for
/// realized revenue by any day and for renewal by period, and it merges by addition.
package struct PurchaseLifecycle: Sendable, Hashable, Comparable {
  /// The plan slot bought (an index into ``CompiledFlow/plans``).
  package var plan: Int
  /// Days after the tap when the purchase happened (an approved Ask to Buy comes later).
  package var delayDays: Double
  /// Whether the purchase started a free trial.
  package var isTrial: Bool
  /// Whether the trial converted to a paid period (false without a trial).
  package var convertedFromTrial: Bool
  /// Payments charged within the horizon, the refunded first one included.
  package var payments: Int
  /// Whether the first payment was refunded.
  package var refunded: Bool

  /// A lifecycle; see the properties.
  package init(plan: Int, delayDays: Double, isTrial: Bool, convertedFromTrial: Bool, payments: Int, refunded: Bool) {
    self.plan = plan
    self.delayDays = delayDays
    self.isTrial = isTrial
    self.convertedFromTrial = convertedFromTrial
    self.payments = payments
    self.refunded = refunded
  }

  /// Hashes the fields packed into two words: one `Hasher` round fewer than field by
  /// field, on the purchase path of every purchaser.
  package func hash(into hasher: inout Hasher) {
    let flags = (isTrial ? 1 : 0) | (convertedFromTrial ? 2 : 0) | (refunded ? 4 : 0)
    hasher.combine(UInt64(truncatingIfNeeded: plan) << 40 ^ UInt64(truncatingIfNeeded: payments) << 3 ^ UInt64(flags))
    hasher.combine(delayDays)
  }

  /// Orders by plan, delay, trial, conversion, payments and refund: the order of shard files.
  package static func < (a: PurchaseLifecycle, b: PurchaseLifecycle) -> Bool {
    (a.plan, a.delayDays, a.isTrial ? 1 : 0, a.convertedFromTrial ? 1 : 0, a.payments, a.refunded ? 1 : 0)
      < (b.plan, b.delayDays, b.isTrial ? 1 : 0, b.convertedFromTrial ? 1 : 0, b.payments, b.refunded ? 1 : 0)
  }
}

extension SubscriptionLifecycle {
  /// The lifecycle of a purchase of plan slot `slot` that ended as `outcome`.
  func lifecycle(of transaction: StoreTransaction, slot: Int, outcome: Outcome) -> PurchaseLifecycle {
    PurchaseLifecycle(
      plan: slot, delayDays: transaction.delayDays, isTrial: transaction.isTrial,
      convertedFromTrial: outcome.convertedFromTrial, payments: outcome.payments, refunded: outcome.refunded)
  }

  /// What a purchase with `lifecycle` of `plan` had earned, net, before `day` (days from
  /// the tap), in cents: the same payments, days and cents as ``outcome(of:plan:using:)``,
  /// so by the analysis day it is the outcome's `realizedCents`, and by the horizon its
  /// `horizonCents`.
  /// - Complexity: O(payments).
  package func earnedCents(_ lifecycle: PurchaseLifecycle, plan: Plan, before day: Double) -> Int64 {
    var schedule = PaymentSchedule(delayDays: lifecycle.delayDays, isTrial: lifecycle.isTrial, plan: plan, settings: settings)
    var total: Int64 = 0
    for _ in 0..<max(lifecycle.payments, 0) {
      guard let payment = schedule.next(), payment.day < day else { break }
      if payment.index > 0 || !lifecycle.refunded { total += payment.cents }
    }
    return total
  }

  /// The number of payments a purchase with `lifecycle` of `plan` could make within the
  /// horizon if it renewed every time: its renewals are observable up to this many.
  /// - Complexity: O(payments within the horizon).
  package func possiblePayments(_ lifecycle: PurchaseLifecycle, plan: Plan) -> Int {
    var schedule = PaymentSchedule(delayDays: lifecycle.delayDays, isTrial: lifecycle.isTrial, plan: plan, settings: settings)
    var count = 0
    while schedule.next() != nil { count += 1 }
    return count
  }
}
