package import FunnelStats

/// What a variant's walks and the control's walks of the same users add up to, user by
/// user: the sufficient statistics of paired inference under the common random numbers
/// of truth mode.
///
/// For every binary outcome whose denominator is all users (``PairedTallies/Outcome``),
/// the 2×2 table of (control outcome, variant outcome) per user; for revenue and
/// realized revenue per user, `Σd` and `Σd²` of the per-user differences
/// `d = variant cents − control cents`. Integers only, so `+` is exact, associative and
/// commutative: threads and shards merge in any order to the same bytes, like
/// ``FunnelAggregate``.
package struct PairedTallies: Sendable, Hashable {
  /// A per-user binary outcome with every user in its denominator.
  package enum Outcome: Int, Sendable, Hashable, CaseIterable {
    /// Each counts the users of its metric's numerator (``metric``): completed, abandoned (quits and step-limit
    /// cuts), took a skip, saw a paywall, bought, started a trial, answered a personalizing question.
    case completed, abandoned, skipped, sawPaywall, purchased, startedTrial, personalized

    /// The metric whose numerator the outcome counts.
    package var metric: FunnelMetric {
      switch self {
      case .completed: .completionRate
      case .abandoned: .abandonmentRate
      case .skipped: .skipRate
      case .sawPaywall: .paywallViewRate
      case .purchased: .purchaseConversion
      case .startedTrial: .trialStartRate
      case .personalized: .personalizationRate
      }
    }

    /// The outcome's bit in a user's outcome flags.
    var bit: UInt8 { 1 << UInt8(rawValue) }

    /// Users with this outcome in `aggregate`.
    func count(in aggregate: FunnelAggregate) -> UInt64 { metric.counts(in: aggregate)?.successes ?? 0 }
  }

  /// One outcome's table: users by (control outcome, variant outcome).
  package struct Table: Sendable, Hashable {
    /// Users with the outcome in neither walk.
    package var neither: UInt64 = 0
    /// Users with the outcome in the variant's walk only (a discordant pair).
    package var variantOnly: UInt64 = 0
    /// Users with the outcome in the control's walk only (the other discordant pair).
    package var controlOnly: UInt64 = 0
    /// Users with the outcome in both walks.
    package var both: UInt64 = 0

    /// An empty table: every cell 0.
    package init() {}

    /// The table as FunnelStats counts (`nil` when a cell exceeds `Int.max`).
    package var counts: PairedProportionCount? {
      guard let a = Int(exactly: neither), let b = Int(exactly: variantOnly), let c = Int(exactly: controlOnly),
        let d = Int(exactly: both)
      else { return nil }
      return try? PairedProportionCount(neither: a, treatmentOnly: b, controlOnly: c, both: d)
    }
  }

  /// `Σd` and `Σd²` of per-user differences in whole cents, and how many are not 0.
  package struct DifferenceSums: Sendable, Hashable {
    /// `Σd` in whole cents, signed (the variant earns less when negative).
    package var sum: Int128 = 0
    /// `Σd²` in cents², exact in 128 bits.
    package var sumOfSquares: UInt128 = 0
    /// Users whose difference is not 0: the paired t is trusted only when there are enough
    /// of them (``PairedTallies/minimumDiffering``).
    package var differing: UInt64 = 0

    /// No users: both sums 0.
    package init() {}

    /// The differences' statistic in currency units over `users` users.
    package func statistic(users: UInt64) -> SampleMeanStatistic {
      SampleMeanStatistic(n: Int(clamping: users), sum: Double(sum) / 100, sumOfSquares: Double(sumOfSquares) / 10_000)
    }
  }

  /// The metrics with a per-user difference tally, in order.
  package static let meanMetrics: [FunnelMetric] = [.revenuePerUser, .realizedRevenuePerUser]

  /// The fewest users whose difference is not 0 for the paired t interval of a mean. Under
  /// common random numbers most users earn the same in both walks, so the mean difference is
  /// a sum over the few who differ: with a handful of them its law is lumpy and skewed, and
  /// with none the interval collapses to [0, 0] at p = 1 whatever the true effect. Below
  /// this count the comparison is made as of independent samples (Welch), which stays
  /// valid because the walks' positive correlation only widens it.
  package static let minimumDiffering: UInt64 = 30

  /// The differences' sums of a mean metric (`nil` for any other metric).
  package func differenceSums(_ metric: FunnelMetric) -> DifferenceSums? {
    switch metric {
    case .revenuePerUser: revenue
    case .realizedRevenuePerUser: realizedRevenue
    default: nil
    }
  }

  /// Users walked by both.
  package var users: UInt64 = 0
  /// One table per ``Outcome``, in `allCases` order.
  package var tables = [Table](repeating: Table(), count: Outcome.allCases.count)
  /// Revenue over the horizon, variant − control.
  package var revenue = DifferenceSums()
  /// Revenue realized by the analysis day, variant − control.
  package var realizedRevenue = DifferenceSums()

  /// No users: the identity of `+`.
  package init() {}

  /// Whether `metric` has a paired tally.
  package static func covers(_ metric: FunnelMetric) -> Bool {
    Outcome.allCases.contains { $0.metric == metric } || meanMetrics.contains(metric)
  }

  /// The table of a proportion metric over all users (`nil` for any other metric).
  package func table(_ metric: FunnelMetric) -> PairedProportionCount? {
    Outcome.allCases.first { $0.metric == metric }.flatMap { tables[$0.rawValue].counts }
  }

  /// The per-user differences of a mean metric over all users, in currency units (`nil`
  /// for any other metric).
  package func differences(_ metric: FunnelMetric) -> SampleMeanStatistic? {
    differenceSums(metric)?.statistic(users: users)
  }

  /// Cell-wise sum. Exact integer arithmetic: associative and commutative.
  package static func + (a: PairedTallies, b: PairedTallies) -> PairedTallies {
    var r = a
    r.users &+= b.users
    for i in r.tables.indices {
      r.tables[i].neither &+= b.tables[i].neither
      r.tables[i].variantOnly &+= b.tables[i].variantOnly
      r.tables[i].controlOnly &+= b.tables[i].controlOnly
      r.tables[i].both &+= b.tables[i].both
    }
    for path in [\PairedTallies.revenue, \PairedTallies.realizedRevenue] {
      r[keyPath: path].sum &+= b[keyPath: path].sum
      r[keyPath: path].sumOfSquares &+= b[keyPath: path].sumOfSquares
      r[keyPath: path].differing &+= b[keyPath: path].differing
    }
    return r
  }
}

/// One user's outcome in one variant, as the paired tallies need it.
struct UserOutcome {
  /// ``PairedTallies/Outcome`` bits.
  var flags: UInt8 = 0
  var revenueCents: Int64 = 0
  var realizedCents: Int64 = 0
  /// The user's population cell, `segment · traitBins + bin`.
  var cell: Int32 = 0
}

/// One thread's paired tallies of one variant, in raw memory for the hot loop (no
/// exclusivity checks, as in ``Accumulator``).
final class PairedAccumulator {
  /// Users, then per outcome the discordant cells: variant only, control only. The
  /// concordant cells follow from the control's margins (``tallies(controlMargins:)``).
  let counts: UnsafeMutableBufferPointer<UInt64>
  /// Σd of revenue and of realized revenue, in cents.
  let sums: UnsafeMutableBufferPointer<Int128>
  /// Σd² of revenue and of realized revenue, in cents².
  let squares: UnsafeMutableBufferPointer<UInt128>
  /// Users whose revenue, and whose realized revenue, differs.
  let differing: UnsafeMutableBufferPointer<UInt64>

  init() {
    counts = .allocate(capacity: 1 + 2 * PairedTallies.Outcome.allCases.count)
    counts.initialize(repeating: 0)
    sums = .allocate(capacity: 2)
    sums.initialize(repeating: 0)
    squares = .allocate(capacity: 2)
    squares.initialize(repeating: 0)
    differing = .allocate(capacity: 2)
    differing.initialize(repeating: 0)
  }

  deinit {
    counts.deallocate()
    sums.deallocate()
    squares.deallocate()
    differing.deallocate()
  }

  /// Adds one user's pair of outcomes. Under common random numbers most users behave
  /// the same in both, so the work is usually one comparison per field.
  @inline(__always)
  func add(control c: UserOutcome, variant v: UserOutcome) {
    counts[0] &+= 1
    var discordant = c.flags ^ v.flags
    while discordant != 0 {
      let k = discordant.trailingZeroBitCount
      // Slot 1 + 2k: variant only; 2 + 2k: control only.
      let slot: Int = 1 + 2 * k + Int((c.flags >> k) & 1)
      counts[slot] &+= 1
      discordant &= discordant &- 1
    }
    if c.revenueCents != v.revenueCents { add(v.revenueCents &- c.revenueCents, at: 0) }
    if c.realizedCents != v.realizedCents { add(v.realizedCents &- c.realizedCents, at: 1) }
  }

  @inline(__always)
  func add(_ d: Int64, at i: Int) {
    sums[i] &+= Int128(d)
    squares[i] &+= UInt128(d.magnitude) &* UInt128(d.magnitude)
    differing[i] &+= 1
  }

  /// The tallies, given the control's count of each outcome over the same users.
  func tallies(controlMargins: [UInt64]) -> PairedTallies {
    var t = PairedTallies()
    t.users = counts[0]
    for k in t.tables.indices {
      let (variantOnly, controlOnly) = (counts[1 + 2 * k], counts[2 + 2 * k])
      let both = controlMargins[k] &- controlOnly
      t.tables[k].variantOnly = variantOnly
      t.tables[k].controlOnly = controlOnly
      t.tables[k].both = both
      t.tables[k].neither = t.users &- variantOnly &- controlOnly &- both
    }
    (t.revenue.sum, t.revenue.sumOfSquares, t.revenue.differing) = (sums[0], squares[0], differing[0])
    (t.realizedRevenue.sum, t.realizedRevenue.sumOfSquares, t.realizedRevenue.differing) = (sums[1], squares[1], differing[1])
    return t
  }
}
