package import FunnelStats

/// What an arm's purchases earned over time: realized revenue per user by day (the curve
/// RevenueCat and Adapty call realized LTV) and renewal by plan and period, each with
/// its interval and, when the arm was solved, the exact value beside it.
///
/// Read from the purchasers' lifecycles (``FunnelAggregate/lifecycles``), so it merges
/// across shards like every other count.
package struct LifecycleSummary: Sendable, Hashable {
  /// Realized revenue per user by one day.
  package struct RevenueByDay: Sendable, Hashable {
    /// Days since the purchase screen; payments before this day count.
    package var day: Double
    /// Mean net revenue per user (all users; 0 for those who bought nothing) with its
    /// Student-t interval.
    package var estimate: IntervalEstimate
    /// The exact engine's expectation (``ExactFunnel/realizedRevenueCurve``), when solved.
    package var exact: Double?
  }

  /// Renewal of one plan at one period.
  package struct Renewal: Sendable, Hashable {
    /// The plan's id.
    package var plan: String
    /// The renewal's number: 1 is the renewal after the first paid period.
    package var period: Int
    /// Subscribers who paid period ``period`` with the next payment before the horizon.
    package var eligible: UInt64
    /// Of those, the ones who renewed.
    package var renewed: UInt64
    /// The renewal rate with its Wilson interval; churn is its complement.
    package var estimate: IntervalEstimate
    /// The exact renewal probability (``ExactFunnel/planRenewal``), when solved.
    package var exact: Double?
  }

  /// The plans' currency (the first plan's).
  package var currency: String
  /// The revenue settings' analysis day (the day ``FunnelMetric/realizedRevenuePerUser`` reads).
  package var analysisDay: Double
  /// The arm's users: the denominator of realized revenue per user.
  package var users: UInt64
  /// Realized revenue per user at each of ``RevenueSettings/curveDays``, in order.
  package var revenueByDay: [RevenueByDay]
  /// Renewals by plan (in plan order) and period (in order), for periods someone reached.
  package var renewals: [Renewal]

  /// The summary of `aggregate`, walked through `flow`, at confidence `1 − alpha`; `nil`
  /// when the flow sells no plans.
  package init?(_ aggregate: FunnelAggregate, flow: CompiledFlow, exact: ExactFunnel?, alpha: Double) {
    guard !flow.plans.isEmpty else { return nil }
    let users = aggregate[.users]
    self.users = users
    currency = flow.plans.first?.plan.currency ?? ""
    analysisDay = flow.revenue.analysisDay
    revenueByDay = flow.revenue.curveDays.map { day in
      let distribution = aggregate.revenue(before: day, in: flow)
      let statistic = distribution.statistic(users: users)
      let interval = try? statistic.studentTInterval(confidenceLevel: 1 - alpha)
      return RevenueByDay(
        day: day,
        estimate: IntervalEstimate(estimate: distribution.mean(users: users), interval: interval ?? nil),
        exact: exact?.realizedRevenueCurve.first { $0.day == day }?.perUser)
    }
    renewals = aggregate.renewals(in: flow).map { r in
      let count = Int(exactly: r.renewed).flatMap { renewed in
        Int(exactly: r.eligible).flatMap { try? ProportionCount(successes: renewed, trials: $0) }
      }
      let interval = count.flatMap { try? ProportionInterval.wilson($0, confidenceLevel: 1 - alpha) }
      return Renewal(
        plan: flow.plans[r.plan].plan.id, period: r.period, eligible: r.eligible, renewed: r.renewed,
        estimate: IntervalEstimate(estimate: Double(r.renewed) / Double(r.eligible), interval: interval),
        exact: exact.flatMap { $0.planRenewal.indices.contains(r.plan) ? $0.planRenewal[r.plan] : nil })
    }
  }
}
