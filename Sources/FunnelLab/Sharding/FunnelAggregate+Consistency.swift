extension FunnelAggregate {
  /// The largest per-user revenue, in cents, an aggregate read back may hold: 10¹² cents
  /// (the dearest plan, 10⁶, paid weekly over the longest horizon is 5.2·10¹⁰ cents).
  static let maxRevenueCents: Int64 = 1_000_000_000_000

  /// Problems of an aggregate read back from a file: counts that no run can produce.
  ///
  /// Every user ends exactly once (`completed + Σ abandonedAt + stepLimitReached =
  /// users`) in exactly one segment (`Σ segmentUsers = users`), and no count exceeds
  /// the count it is part of: a screen's quits ≤ its reach ≤ its views, reach ≤ users;
  /// skippers, back-goers, personalized users, paywall viewers, purchasers ≤ users;
  /// `Σ planPurchases = purchasers`; trials ≤ purchasers, conversions ≤ trials, refunds
  /// ≤ purchasers, restores ≤ restore taps, approvals ≤ pending purchases; earners ≤
  /// purchasers; completion times: `count = completed = Σ histogram`; the lifecycles count
  /// every purchaser once, and their trials, conversions and refunds are those counted.
  /// - Returns: one error per broken relation, at `path`'s field.
  func consistencyErrors(at path: SpecPath) -> [SpecError] {
    var errors: [SpecError] = []
    func check(_ holds: Bool, _ field: String, _ message: String) {
      if !holds { errors.append(SpecError(path: path.key(field), message: message, hint: "the shard file was edited or damaged")) }
    }
    func sum(_ xs: [UInt64]) -> UInt64? {
      var total: UInt64 = 0
      for x in xs {
        let (s, overflow) = total.addingReportingOverflow(x)
        if overflow { return nil }
        total = s
      }
      return total
    }
    let ended = sum([self[.completed], self[.stepLimitReached]] + abandonedAt)
    check(
      ended == self[.users], "users",
      "\(self[.users]) users, but completed + abandoned + cut at the step limit = \(ended.map(String.init) ?? "more than 2^64")")
    let inSegments = sum(segmentUsers)
    check(
      inSegments == self[.users], "segmentUsers",
      "the segments' users sum to \(inSegments.map(String.init) ?? "more than 2^64"), not \(self[.users])")
    for s in reach.indices {
      check(reach[s] <= self[.users], "reach", "screen \(s) reached by \(reach[s]) users of \(self[.users])")
      check(reach[s] <= views[s], "views", "screen \(s) viewed \(views[s]) times by \(reach[s]) users")
      check(abandonedAt[s] <= reach[s], "abandonedAt", "\(abandonedAt[s]) users quit screen \(s), which \(reach[s]) reached")
    }
    for counter in FunnelCounter.allCases {
      guard let bound = counter.bound else { continue }
      check(self[counter] <= self[bound], counter.name, "\(counter.name) = \(self[counter]) is above \(bound.name) = \(self[bound])")
    }
    for (field, distribution) in [("revenue", revenue), ("realizedRevenue", realizedRevenue)] {
      check(
        distribution.earners <= self[.purchasers], field,
        "\(field) = \(distribution.earners) is above purchasers = \(self[.purchasers])")
    }
    let bought = sum(planPurchases)
    check(
      bought == self[.purchasers], "planPurchases",
      "the plans' purchases sum to \(bought.map(String.init) ?? "more than 2^64"), not \(self[.purchasers])"
    )
    check(
      completionTime.count == self[.completed], "completionCount",
      "\(completionTime.count) completion times for \(self[.completed]) completions")
    check(sum(completionTime.histogram) == completionTime.count, "completionHistogram", "the histogram does not sum to completionCount")
    for (name, counter, predicate) in Self.lifecycleCounts {
      let total = sum(lifecycles.filter { predicate($0.key) }.map(\.value))
      check(
        total == self[counter], "lifecycles",
        "the lifecycles hold \(total.map(String.init) ?? "more than 2^64") \(name), not \(counter.name) = \(self[counter])")
    }
    for (field, distribution) in [("revenue", revenue), ("realizedRevenue", realizedRevenue)] {
      let outOfRange = distribution.counts.keys.contains { $0 == Int64.min || abs($0) > Self.maxRevenueCents }
      check(!outOfRange, field, "a revenue beyond ±\(Self.maxRevenueCents) cents per user")
    }
    return errors
  }

  /// What the lifecycles must add up to: every purchaser, trial, conversion and refund.
  static let lifecycleCounts: [(String, FunnelCounter, @Sendable (PurchaseLifecycle) -> Bool)] = [
    ("purchasers", .purchasers, { _ in true }), ("trials", .trialStarts, \.isTrial),
    ("conversions", .trialConversions, \.convertedFromTrial), ("refunds", .refunds, \.refunded),
  ]
}
