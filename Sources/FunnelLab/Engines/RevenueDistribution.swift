package import FunnelStats

/// Per-user revenue as a value→count map of whole cents, over the users who earned
/// anything (everyone else earned 0). Revenue takes few distinct values (a plan's
/// price times a number of payments), so the map stays small and is a sufficient
/// statistic for means, Welch's test, Mann–Whitney and the bootstrap.
///
/// Integer keys and counts: `+` is exact, associative and commutative.
package struct RevenueDistribution: Sendable, Hashable {
  /// Users per non-zero revenue in whole cents; users with 0 are not stored (the total number of users is
  /// known elsewhere).
  package var counts: [Int64: UInt64] = [:]

  /// No users with revenue: the identity of `+`.
  package init() {}

  /// Counts one user who earned `cents`; 0 is ignored, negative values are counted like any other.
  package mutating func add(cents: Int64) {
    guard cents != 0 else { return }
    counts[cents, default: 0] &+= 1
  }

  /// Adds the counts value by value; a count that would pass 2⁶⁴ wraps (``FunnelAggregate/checkedSum(_:_:)``
  /// refuses that instead).
  package static func + (a: RevenueDistribution, b: RevenueDistribution) -> RevenueDistribution {
    var overflow = false
    return combine(a, b, overflow: &overflow)
  }

  /// The sum, wrapping; `overflow` is set when any count wrapped.
  static func combine(_ a: RevenueDistribution, _ b: RevenueDistribution, overflow: inout Bool) -> RevenueDistribution {
    var r = a
    for (value, count) in b.counts {
      let (s, wrapped) = r.counts[value, default: 0].addingReportingOverflow(count)
      r.counts[value] = s
      if wrapped { overflow = true }
    }
    return r
  }

  /// Total cents.
  package var totalCents: Int128 { counts.reduce(0) { $0 + Int128($1.key) * Int128($1.value) } }

  /// The mean over `users` users in currency units, `totalCents / (users · 100)` as one division of exact
  /// integers (a sum of per-user doubles would write 0.9181876999999999 for 0.9181877); `nil` when `users` is 0.
  ///
  /// - Complexity: O(distinct values).
  package func mean(users: UInt64) -> Double? {
    users == 0 ? nil : Double(totalCents) / (Double(users) * 100)
  }

  /// Users with non-zero revenue.
  package var earners: UInt64 { counts.values.reduce(0, +) }

  /// Mean, sum and sum of squares over `users` users, in currency units.
  package func statistic(users: UInt64) -> SampleMeanStatistic {
    var sum = 0.0, squares = 0.0
    for (cents, count) in counts.sorted(by: { $0.key < $1.key }) {
      let x = Double(cents) / 100
      sum += x * Double(count)
      squares += x * x * Double(count)
    }
    return SampleMeanStatistic(n: Int(users), sum: sum, sumOfSquares: squares)
  }

  /// The value→count map over all `users` users (zeros included), in currency units.
  package func valueCounts(users: UInt64) -> [Double: Int] {
    var map: [Double: Int] = [:]
    for (cents, count) in counts { map[Double(cents) / 100] = Int(count) }
    let zeros = Int(users) - Int(earners)
    if zeros > 0 { map[0] = zeros }
    return map
  }
}
