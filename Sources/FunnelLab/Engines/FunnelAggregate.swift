/// Time statistics of one quantity in whole milliseconds: count, sum, sum of
/// squares and a histogram in 1-second bins (the last bin collects everything
/// from ``TimeStatistic/histogramSeconds`` on).
///
/// Every field is an integer, so `+` is exactly associative and commutative: the
/// merge of per-thread or per-shard parts gives the same bytes in any order.
public struct TimeStatistic: Sendable, Hashable {
  /// Seconds covered by the histogram's 1-second bins; one more bin collects the rest.
  public static let histogramSeconds = 3600
  /// Times counted.
  public var count: UInt64 = 0
  /// Their sum, in milliseconds.
  public var sumMillis: UInt64 = 0
  /// The sum of their squares, in milliseconds² (128 bits: a square of an hour is 1.3·10¹³).
  public var sumSquaredMillis: UInt128 = 0
  /// Times per whole second: bin `k` counts times in [k, k + 1) s, the last bin those of
  /// ``histogramSeconds`` s and more.
  public var histogram = [UInt64](repeating: 0, count: histogramSeconds + 1)

  /// No times.
  public init() {}

  /// Counts one time of `millis` milliseconds; wrapping like every counter of the
  /// engines (see ``FunnelCounter``: the limits keep the sums far from wrapping).
  public mutating func add(millis: UInt64) {
    count &+= 1
    sumMillis &+= millis
    sumSquaredMillis &+= UInt128(millis) &* UInt128(millis)
    histogram[Int(min(millis / 1000, UInt64(Self.histogramSeconds)))] &+= 1
  }

  /// The field-wise sum, wrapping like the engines' counters.
  public static func + (a: TimeStatistic, b: TimeStatistic) -> TimeStatistic {
    var overflow = false
    return combine(a, b, overflow: &overflow)
  }

  /// The sum, wrapping; `overflow` is set when any count wrapped.
  static func combine(_ a: TimeStatistic, _ b: TimeStatistic, overflow: inout Bool) -> TimeStatistic {
    var r = a
    var o = [false, false, false]
    (r.count, o[0]) = a.count.addingReportingOverflow(b.count)
    (r.sumMillis, o[1]) = a.sumMillis.addingReportingOverflow(b.sumMillis)
    (r.sumSquaredMillis, o[2]) = a.sumSquaredMillis.addingReportingOverflow(b.sumSquaredMillis)
    for i in r.histogram.indices {
      let (s, wrapped) = a.histogram[i].addingReportingOverflow(b.histogram[i])
      r.histogram[i] = s
      if wrapped { overflow = true }
    }
    if o.contains(true) { overflow = true }
    return r
  }

  /// Mean in seconds (`nil` when empty): one division of exact integers, `sumMillis / (count · 1000)`, so a
  /// mean with a short decimal (1.25 s) is written as that decimal.
  public var meanSeconds: Double? { count == 0 ? nil : Double(sumMillis) / (Double(count) * 1000) }

  /// Sample standard deviation in seconds.
  public var standardDeviationSeconds: Double? {
    guard count > 1 else { return nil }
    let n = Double(count)
    let mean = Double(sumMillis) / n
    let variance = (Double(sumSquaredMillis) - n * mean * mean) / (n - 1)
    return (max(variance, 0)).squareRoot() / 1000
  }

  /// The `q` quantile in seconds, to the histogram's 1-second resolution: the
  /// midpoint of the bin where the cumulative count first reaches `q·count`.
  public func quantileSeconds(_ q: Double) -> Double? {
    guard count > 0 else { return nil }
    let target = max(1, (q * Double(count)).rounded(.up))
    var cumulative: UInt64 = 0
    for (second, c) in histogram.enumerated() {
      cumulative += c
      if Double(cumulative) >= target {
        return second == Self.histogramSeconds ? Double(second) : Double(second) + 0.5
      }
    }
    return Double(Self.histogramSeconds)
  }
}

/// What the walks of many users add up to: the sufficient statistics of a funnel.
///
/// Counts only, never per-user rows, so memory does not grow with users. Index
/// spaces are those of the ``CompiledFlow`` the users walked (screens, action
/// slots, plan slots, option slots, segments).
public struct FunnelAggregate: Sendable, Hashable {
  /// The scalar counts, one per ``FunnelCounter``; read them as `aggregate[.purchasers]`.
  package var counts = FunnelCounts()
  /// Users who saw each screen at least once.
  public var reach: [UInt64] = []
  /// Screen views, revisits included.
  public var views: [UInt64] = []
  /// Users who quit on each screen.
  public var abandonedAt: [UInt64] = []
  /// Validation or task failures on each screen.
  public var failures: [UInt64] = []
  /// Times each action slot was taken.
  public var actionCounts: [UInt64] = []
  /// Users whose first purchase was each plan slot.
  public var planPurchases: [UInt64] = []
  /// Times each option slot was selected.
  public var optionCounts: [UInt64] = []
  /// Users of each segment.
  public var segmentUsers: [UInt64] = []
  /// Net revenue per user over the revenue horizon.
  package var revenue = RevenueDistribution()
  /// Net revenue per user realized by the analysis day.
  package var realizedRevenue = RevenueDistribution()
  /// Time to finish, for users who completed.
  public var completionTime = TimeStatistic()
  /// Total milliseconds spent on each screen (over all views).
  public var screenMillis: [UInt64] = []
  /// Purchasers per lifecycle: what each purchase paid and when, enough for realized
  /// revenue by any day and renewal by period (``realizedRevenue(before:in:)``,
  /// ``renewals(in:)``).
  package var lifecycles: [PurchaseLifecycle: UInt64] = [:]

  /// An empty aggregate with these index spaces.
  public init(screens: Int, actions: Int, plans: Int, options: Int, segments: Int) {
    for counter in Self.indexedCounters {
      let size =
        switch counter.space {
        case .screens: screens
        case .actions: actions
        case .plans: plans
        case .options: options
        case .segments: segments
        }
      self[keyPath: counter.field] = Array(repeating: 0, count: size)
    }
  }

  /// An empty aggregate shaped for `flow`.
  public init(for flow: CompiledFlow) {
    self.init(
      screens: flow.screenCount, actions: flow.actions.count, plans: flow.plans.count,
      options: flow.options.count, segments: flow.segmentCount)
  }

  /// The count of `counter`.
  public subscript(counter: FunnelCounter) -> UInt64 {
    get { counts[counter] }
    set { counts[counter] = newValue }
  }

  /// Abandoned users: quits plus walks cut at the step limit.
  public var abandoned: UInt64 { abandonedAt.reduce(0, +) + self[.stepLimitReached] }

  /// Element-wise sum. Exact integer arithmetic: associative and commutative. A count
  /// that would pass 2⁶⁴ wraps, as the engine's own counters do; ``checkedSum(_:_:)``
  /// refuses it instead.
  public static func + (a: FunnelAggregate, b: FunnelAggregate) -> FunnelAggregate {
    var overflow = false
    return combine(a, b, overflow: &overflow)
  }

  /// `a + b`, or `nil` when a count of the sum would pass 2⁶⁴ (e.g. shard files whose
  /// counts were edited).
  public static func checkedSum(_ a: FunnelAggregate, _ b: FunnelAggregate) -> FunnelAggregate? {
    var overflow = false
    let sum = combine(a, b, overflow: &overflow)
    return overflow ? nil : sum
  }

  /// The element-wise sum, wrapping; `overflow` is set when any count wrapped.
  static func combine(_ a: FunnelAggregate, _ b: FunnelAggregate, overflow: inout Bool) -> FunnelAggregate {
    var wrapped = false
    func plus(_ x: UInt64, _ y: UInt64) -> UInt64 {
      let (s, o) = x.addingReportingOverflow(y)
      if o { wrapped = true }
      return s
    }
    func add(_ x: [UInt64], _ y: [UInt64]) -> [UInt64] {
      precondition(x.count == y.count, "aggregates of different flows cannot be merged")
      return zip(x, y).map { plus($0, $1) }
    }
    var r = a
    r.counts = FunnelCounts.combine(a.counts, b.counts, overflow: &wrapped)
    for counter in indexedCounters { r[keyPath: counter.field] = add(a[keyPath: counter.field], b[keyPath: counter.field]) }
    r.revenue = RevenueDistribution.combine(a.revenue, b.revenue, overflow: &wrapped)
    r.realizedRevenue = RevenueDistribution.combine(a.realizedRevenue, b.realizedRevenue, overflow: &wrapped)
    r.completionTime = TimeStatistic.combine(a.completionTime, b.completionTime, overflow: &wrapped)
    for (lifecycle, count) in b.lifecycles {
      let (s, o) = r.lifecycles[lifecycle, default: 0].addingReportingOverflow(count)
      r.lifecycles[lifecycle] = s
      if o { wrapped = true }
    }
    if wrapped { overflow = true }
    return r
  }

  /// The index space of a per-index counter.
  public enum IndexSpace: Sendable, Hashable {
    case screens, actions, plans, options, segments
  }

  /// A per-index counter: its name in shard files, its field and its index space.
  public struct IndexedCounter: Sendable {
    /// The name in shard files (the field's name).
    public var name: String
    /// The field of ``FunnelAggregate`` that holds the counts.
    public nonisolated(unsafe) var field: WritableKeyPath<FunnelAggregate, [UInt64]>
    /// What the counts are indexed by.
    public var space: IndexSpace
  }

  /// Every per-index counter, once, in shard-file order: the initializer, the sum and
  /// the shard JSON iterate it (the scalar counts are ``FunnelCounter``).
  public static var indexedCounters: [IndexedCounter] {
    [
      IndexedCounter(name: "reach", field: \.reach, space: .screens),
      IndexedCounter(name: "views", field: \.views, space: .screens),
      IndexedCounter(name: "abandonedAt", field: \.abandonedAt, space: .screens),
      IndexedCounter(name: "failures", field: \.failures, space: .screens),
      IndexedCounter(name: "actionCounts", field: \.actionCounts, space: .actions),
      IndexedCounter(name: "planPurchases", field: \.planPurchases, space: .plans),
      IndexedCounter(name: "optionCounts", field: \.optionCounts, space: .options),
      IndexedCounter(name: "segmentUsers", field: \.segmentUsers, space: .segments),
      IndexedCounter(name: "screenMillis", field: \.screenMillis, space: .screens),
    ]
  }
}
