public import FunnelStats

/// A metric's estimate with its confidence interval.
public struct MetricEstimate: Sendable, Hashable {
  /// The metric estimated.
  public var metric: FunnelMetric
  /// The observed value: a fraction for a proportion, the mean in the metric's unit for a mean; `nil` when
  /// the denominator is empty.
  public var estimate: Double?
  /// Wilson score interval for proportions; Student-t interval for means.
  public var interval: ConfidenceInterval?
  /// Users in the denominator.
  public var n: UInt64
}

/// A variant's metric against the control's.
public struct MetricComparison: Sendable, Hashable {
  /// The metric compared.
  public var metric: FunnelMetric
  /// Difference variant − control: Miettinen–Nurminen score interval for proportions,
  /// Welch interval for means (each the inversion of its test).
  public var difference: IntervalEstimate?
  /// The relative lift variant/control − 1 with an interval that agrees with ``test``
  /// (it excludes 0 exactly when the test rejects): the score interval of the ratio for
  /// independent proportions, Fieller's interval otherwise (``RelativeLift``).
  public var relativeLift: IntervalEstimate?
  /// The Miettinen–Nurminen score test, or Welch's t-test.
  public var test: TestResult?
  /// For revenue: Mann–Whitney U with tie correction on the per-user value→count maps
  /// (a shift in the distribution, robust to a few large payers).
  public var rankTest: TestResult?
  /// Whether the comparison was made on each user's pair of outcomes (truth mode, the same
  /// users in both variants); `false` when the arms were compared as independent samples.
  public var isPaired: Bool

  /// A comparison; `nil` parts mean the method could not be applied (e.g. an empty arm).
  public init(
    metric: FunnelMetric, difference: IntervalEstimate?, relativeLift: IntervalEstimate? = nil, test: TestResult?,
    rankTest: TestResult? = nil, isPaired: Bool = false
  ) {
    self.metric = metric
    self.difference = difference
    self.relativeLift = relativeLift
    self.test = test
    self.rankTest = rankTest
    self.isPaired = isPaired
  }
}

/// Estimates and comparisons of every metric of a run, computed with FunnelStats.
package enum MetricAnalysis {
  /// The estimate of `metric` in `a` at confidence `1 − alpha`.
  package static func estimate(_ metric: FunnelMetric, in a: FunnelAggregate, alpha: Double = 0.05) -> MetricEstimate {
    switch metric.data(in: a) {
    case .proportion(let s, let n):
      guard n > 0, let count = try? ProportionCount(successes: Int(s), trials: Int(n)) else {
        return MetricEstimate(metric: metric, estimate: nil, interval: nil, n: n)
      }
      let wilson = try? ProportionInterval.wilson(count, confidenceLevel: 1 - alpha)
      return MetricEstimate(metric: metric, estimate: Double(s) / Double(n), interval: wilson, n: n)
    case .mean(let m):
      guard let mean = metric.value(in: a) else { return MetricEstimate(metric: metric, estimate: nil, interval: nil, n: 0) }
      let interval = (try? m.studentTInterval(confidenceLevel: 1 - alpha)) ?? nil
      return MetricEstimate(metric: metric, estimate: mean, interval: interval, n: UInt64(m.n))
    }
  }

  /// `variant` against `control` for `metric`, by FunnelStats' one pipeline
  /// (``ControlComparison``): the Miettinen–Nurminen score test and interval for
  /// proportions, Welch's test and interval for means; unadjusted (one comparison).
  package static func compare(_ metric: FunnelMetric, variant: FunnelAggregate, control: FunnelAggregate, alpha: Double = 0.05)
    -> MetricComparison
  {
    let settings = ControlComparison.Settings(alpha: alpha, correction: .none, higherIsBetter: metric.higherIsBetter, bayesian: false)
    guard let data = data(metric, [control, variant]),
      let row = (try? ControlComparison.compare(data, control: 0, settings: settings))?.rows.first
    else { return MetricComparison(metric: metric, difference: nil, test: nil) }
    return MetricComparison(
      metric: metric, difference: row.difference, relativeLift: row.relativeLift, test: row.test,
      rankTest: rankTest(metric, variant: variant, control: control))
  }

  /// The data of `metric` in every aggregate, in order, as FunnelStats takes it; `nil` when
  /// the kinds differ or a count does not fit an `Int`.
  package static func data(_ metric: FunnelMetric, _ aggregates: [FunnelAggregate]) -> ControlComparison.Data? {
    var counts: [ProportionCount] = []
    var means: [SampleMeanStatistic] = []
    for a in aggregates {
      switch metric.data(in: a) {
      case .proportion(let s, let n):
        guard let s = Int(exactly: s), let n = Int(exactly: n), let count = try? ProportionCount(successes: s, trials: n) else {
          return nil
        }
        counts.append(count)
      case .mean(let m):
        means.append(m)
      }
    }
    if counts.count == aggregates.count { return .proportions(counts) }
    if means.count == aggregates.count { return .means(means) }
    return nil
  }

  /// For revenue: Mann–Whitney U with tie correction on the per-user value→count maps.
  static func rankTest(_ metric: FunnelMetric, variant: FunnelAggregate, control: FunnelAggregate) -> TestResult? {
    guard metric == .revenuePerUser || metric == .realizedRevenuePerUser else { return nil }
    let pick: (FunnelAggregate) -> RevenueDistribution = metric == .revenuePerUser ? { $0.revenue } : { $0.realizedRevenue }
    return try? MannWhitneyUTest.test(
      treatment: pick(variant).valueCounts(users: variant[.users]), control: pick(control).valueCounts(users: control[.users])
    ).test
  }
}
