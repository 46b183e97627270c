public import FunnelStats

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
public struct PairedTallies: Sendable, Hashable {
  /// A per-user binary outcome with every user in its denominator.
  public enum Outcome: Int, Sendable, Hashable, CaseIterable {
    case completed, abandoned, skipped, sawPaywall, purchased, startedTrial, personalized

    /// The metric whose numerator the outcome counts.
    public var metric: FunnelMetric {
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
  }

  /// One outcome's table: users by (control outcome, variant outcome).
  public struct Table: Sendable, Hashable {
    public var neither: UInt64 = 0
    public var variantOnly: UInt64 = 0
    public var controlOnly: UInt64 = 0
    public var both: UInt64 = 0

    public init() {}

    /// The table as FunnelStats counts (`nil` when a cell exceeds `Int.max`).
    public var counts: PairedProportionCount? {
      guard let a = Int(exactly: neither), let b = Int(exactly: variantOnly), let c = Int(exactly: controlOnly),
        let d = Int(exactly: both)
      else { return nil }
      return try? PairedProportionCount(neither: a, treatmentOnly: b, controlOnly: c, both: d)
    }
  }

  /// `Σd` and `Σd²` of per-user differences in whole cents.
  public struct DifferenceSums: Sendable, Hashable {
    public var sum: Int128 = 0
    public var sumOfSquares: UInt128 = 0

    public init() {}

    /// The differences' statistic in currency units over `users` users.
    public func statistic(users: UInt64) -> SampleMeanStatistic {
      SampleMeanStatistic(n: Int(clamping: users), sum: Double(sum) / 100, sumOfSquares: Double(sumOfSquares) / 10_000)
    }
  }

  /// The metrics with a per-user difference tally, in order.
  public static let meanMetrics: [FunnelMetric] = [.revenuePerUser, .realizedRevenuePerUser]

  /// Users walked by both.
  public var users: UInt64 = 0
  /// One table per ``Outcome``, in `allCases` order.
  public var tables = [Table](repeating: Table(), count: Outcome.allCases.count)
  /// Revenue over the horizon, variant − control.
  public var revenue = DifferenceSums()
  /// Revenue realized by the analysis day, variant − control.
  public var realizedRevenue = DifferenceSums()

  public init() {}

  /// Whether `metric` has a paired tally.
  public static func covers(_ metric: FunnelMetric) -> Bool {
    Outcome.allCases.contains { $0.metric == metric } || meanMetrics.contains(metric)
  }

  /// The table of a proportion metric over all users (`nil` for any other metric).
  public func table(_ metric: FunnelMetric) -> PairedProportionCount? {
    Outcome.allCases.first { $0.metric == metric }.flatMap { tables[$0.rawValue].counts }
  }

  /// The per-user differences of a mean metric over all users, in currency units (`nil`
  /// for any other metric).
  public func differences(_ metric: FunnelMetric) -> SampleMeanStatistic? {
    switch metric {
    case .revenuePerUser: revenue.statistic(users: users)
    case .realizedRevenuePerUser: realizedRevenue.statistic(users: users)
    default: nil
    }
  }

  /// Cell-wise sum. Exact integer arithmetic: associative and commutative.
  public static func + (a: PairedTallies, b: PairedTallies) -> PairedTallies {
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
}

/// One thread's paired tallies of one variant, in raw memory for the hot loop.
final class PairedAccumulator {
  /// Per outcome three cells: variant only, control only, both (neither follows from users).
  let cells: UnsafeMutableBufferPointer<UInt64>
  var users: UInt64 = 0
  var revenue = PairedTallies.DifferenceSums()
  var realized = PairedTallies.DifferenceSums()

  init() {
    cells = .allocate(capacity: 3 * PairedTallies.Outcome.allCases.count)
    cells.initialize(repeating: 0)
  }

  deinit { cells.deallocate() }

  /// Adds one user's pair of outcomes. Most users of a variant that changes little
  /// behave the same in both, so the work is a few bit operations per user.
  @inline(__always)
  func add(control c: UserOutcome, variant v: UserOutcome) {
    users &+= 1
    var any = c.flags | v.flags
    while any != 0 {
      let k = any.trailingZeroBitCount
      let cell = Int((c.flags >> k) & 1) << 1 | Int((v.flags >> k) & 1)
      cells[3 * k + cell - 1] &+= 1
      any &= any &- 1
    }
    if c.revenueCents != v.revenueCents { Self.add(v.revenueCents &- c.revenueCents, to: &revenue) }
    if c.realizedCents != v.realizedCents { Self.add(v.realizedCents &- c.realizedCents, to: &realized) }
  }

  @inline(__always)
  static func add(_ d: Int64, to sums: inout PairedTallies.DifferenceSums) {
    sums.sum &+= Int128(d)
    sums.sumOfSquares &+= UInt128(d.magnitude) &* UInt128(d.magnitude)
  }

  func tallies() -> PairedTallies {
    var t = PairedTallies()
    t.users = users
    for k in t.tables.indices {
      t.tables[k].variantOnly = cells[3 * k]
      t.tables[k].controlOnly = cells[3 * k + 1]
      t.tables[k].both = cells[3 * k + 2]
      t.tables[k].neither = users &- cells[3 * k] &- cells[3 * k + 1] &- cells[3 * k + 2]
    }
    t.revenue = revenue
    t.realizedRevenue = realized
    return t
  }
}
