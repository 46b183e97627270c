/// A scalar count of a funnel: the one list of them.
///
/// ``FunnelAggregate`` and ``SampledArm`` store one count per case
/// (`aggregate[.purchasers]`); their sum, the shard files' JSON, the Monte Carlo
/// engine's accumulator, the run report's `counts` and the consistency checks of
/// merged shards are loops over ``allCases``. A new counter is one new case here
/// (and the code that counts it).
///
/// **Overflow.** The engines add with wrapping arithmetic (`&+=`): the documented
/// limits (at most 10¹⁰ users per variant, ``Limits/users``; each walk at most 10⁴
/// steps, ``Limits/stepLimit``, each adding at most a few events) keep every one of
/// these counts below 10¹⁶, far from 2⁶⁴, so a wrap cannot happen there. Counts read from outside (shard files) are summed with
/// ``FunnelAggregate/checkedSum(_:_:)``, which refuses a sum past 2⁶⁴ in any count,
/// scalar or per screen.
public enum FunnelCounter: Int, CaseIterable, Sendable, Hashable {
  /// Users who started the flow.
  case users
  /// Users who reached the end of the flow.
  case completed
  /// Walks cut off at the step limit (abandoned, but not on a screen).
  case stepLimitReached
  /// Users who took a skip action at least once.
  case usersWhoSkipped
  /// Users who took a back action at least once.
  case usersWhoWentBack
  /// Users who saw at least one paywall.
  case paywallViewers
  /// Users who bought a plan: a first purchase, or a pending purchase approved later.
  case purchasers
  /// Users who answered a personalization question (a goal, a name).
  case usersPersonalized
  /// Taps on a plan that reached the store (retries are in ``purchaseAttempts``).
  case purchaseTaps
  /// Store attempts, retries included.
  case purchaseAttempts
  /// Payment sheets dismissed.
  case purchaseCancels
  /// Purchases that failed after the user's retries.
  case purchaseFailures
  /// Purchases left pending (Ask to Buy).
  case purchasePendings
  /// Pending purchases approved later (their users are purchasers).
  case pendingApprovals
  /// "Restore purchases" taps.
  case restoreAttempts
  /// Restore taps that restored an entitlement.
  case restores
  /// Purchasers whose purchase started a free trial.
  case trialStarts
  /// Trials that converted to a paid period.
  case trialConversions
  /// Purchasers whose first payment was refunded.
  case refunds

  /// The name in shard files and JSON reports: the case's name (which is also what
  /// `"\(counter)"` prints; the enum is deliberately not `CustomStringConvertible`).
  package var name: String { String(describing: self) }

  /// The count this one never exceeds in a consistent aggregate (each of these
  /// users or events is one of those), or `nil`.
  package var bound: FunnelCounter? {
    switch self {
    case .users, .purchaseTaps, .purchaseAttempts, .purchaseCancels, .purchaseFailures, .purchasePendings, .restoreAttempts: nil
    case .completed, .stepLimitReached, .usersWhoSkipped, .usersWhoWentBack, .purchasers, .paywallViewers, .usersPersonalized: .users
    case .pendingApprovals: .purchasePendings
    case .restores: .restoreAttempts
    case .trialStarts, .refunds: .purchasers
    case .trialConversions: .trialStarts
    }
  }
}

/// One `UInt64` per ``FunnelCounter``, indexed by the counter.
package struct FunnelCounts: Sendable, Hashable {
  private var values = [UInt64](repeating: 0, count: FunnelCounter.allCases.count)

  /// All zero.
  package init() {}

  /// The count of `counter`.
  package subscript(counter: FunnelCounter) -> UInt64 {
    get { values[counter.rawValue] }
    set { values[counter.rawValue] = newValue }
  }

  /// The counter-wise sum, wrapping; `overflow` is set when any count wrapped.
  static func combine(_ a: FunnelCounts, _ b: FunnelCounts, overflow: inout Bool) -> FunnelCounts {
    var r = a
    for i in r.values.indices {
      let (s, wrapped) = a.values[i].addingReportingOverflow(b.values[i])
      r.values[i] = s
      if wrapped { overflow = true }
    }
    return r
  }
}
