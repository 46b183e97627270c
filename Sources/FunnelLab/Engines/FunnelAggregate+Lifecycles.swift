import FunnelStats

/// Renewals of one plan at one period, counted over the purchasers whose next payment
/// fell within the revenue horizon (later renewals are not observable, so they are not
/// counted as churn).
package struct RenewalCount: Sendable, Hashable {
  /// The plan slot (an index into ``CompiledFlow/plans``).
  package var plan: Int
  /// The renewal's number: 1 is the renewal after the first paid period.
  package var period: Int
  /// Subscribers who paid period `period` and whose next payment falls before the horizon.
  package var eligible: UInt64
  /// Of those, the ones who renewed (paid period `period + 1`).
  package var renewed: UInt64
}

extension FunnelAggregate {
  /// Net revenue per user (over all users; 0 for everyone who bought nothing) earned
  /// before `day` days from the purchase screen, from ``lifecycles``, as a value→count map
  /// of whole cents. Before the analysis day it is ``realizedRevenue``, by the horizon
  /// ``revenue``, exactly.
  /// - Complexity: O(lifecycles × payments).
  package func revenue(before day: Double, in flow: CompiledFlow) -> RevenueDistribution {
    let lifecycle = SubscriptionLifecycle(settings: flow.revenue)
    var distribution = RevenueDistribution()
    for (l, count) in lifecycles where flow.plans.indices.contains(l.plan) {
      let cents = lifecycle.earnedCents(l, plan: flow.plans[l.plan].plan, before: day)
      guard cents != 0 else { continue }
      distribution.counts[cents, default: 0] &+= count
    }
    return distribution
  }

  /// Renewals by plan and period, from ``lifecycles``: for each plan that renews and each
  /// renewal `k` that some purchaser could reach within the horizon, the purchasers who
  /// paid period `k` with period `k + 1` still before the horizon, and how many paid it.
  /// Sorted by plan, then period; empty without renewing plans.
  /// - Complexity: O(lifecycles × payments).
  package func renewals(in flow: CompiledFlow) -> [RenewalCount] {
    let lifecycle = SubscriptionLifecycle(settings: flow.revenue)
    var counts: [Int: [(eligible: UInt64, renewed: UInt64)]] = [:]
    for (l, count) in lifecycles.sorted(by: { $0.key < $1.key }) where flow.plans.indices.contains(l.plan) {
      let plan = flow.plans[l.plan].plan
      guard plan.period.months != nil, l.payments >= 1 else { continue }
      let possible = lifecycle.possiblePayments(l, plan: plan)
      guard possible >= 2 else { continue }
      var rows = counts[l.plan] ?? Array(repeating: (0, 0), count: possible - 1)
      if rows.count < possible - 1 { rows += Array(repeating: (0, 0), count: possible - 1 - rows.count) }
      for k in 1..<min(l.payments + 1, possible) {
        rows[k - 1].eligible &+= count
        if l.payments >= k + 1 { rows[k - 1].renewed &+= count }
      }
      counts[l.plan] = rows
    }
    return counts.keys.sorted().flatMap { plan in
      (counts[plan] ?? []).enumerated().map {
        RenewalCount(plan: plan, period: $0.offset + 1, eligible: $0.element.eligible, renewed: $0.element.renewed)
      }
    }.filter { $0.eligible > 0 }
  }
}
