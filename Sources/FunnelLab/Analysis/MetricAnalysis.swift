public import FunnelStats

/// A metric's estimate with its confidence interval.
public struct MetricEstimate: Sendable, Hashable {
  public var metric: FunnelMetric
  public var estimate: Double?
  /// Wilson score interval for proportions; Student-t interval for means.
  public var interval: ConfidenceInterval?
  /// Users in the denominator.
  public var n: UInt64
}

/// A variant's metric against the control's.
public struct MetricComparison: Sendable, Hashable {
  public var metric: FunnelMetric
  /// Difference variant − control: Newcombe hybrid score interval for proportions,
  /// Welch interval for means.
  public var difference: IntervalEstimate?
  /// Pooled two-proportion z-test, or Welch's t-test.
  public var test: TestResult?
  /// For revenue: Mann–Whitney U with tie correction on the per-user value→count maps
  /// (a shift in the distribution, robust to a few large payers).
  public var rankTest: TestResult?

  public init(metric: FunnelMetric, difference: IntervalEstimate?, test: TestResult?, rankTest: TestResult? = nil) {
    self.metric = metric
    self.difference = difference
    self.test = test
    self.rankTest = rankTest
  }
}

/// Estimates and comparisons of every metric of a run, computed with FunnelStats.
public enum MetricAnalysis {
  /// The estimate of `metric` in `a` at confidence `1 − alpha`.
  public static func estimate(_ metric: FunnelMetric, in a: FunnelAggregate, alpha: Double = 0.05) -> MetricEstimate {
    switch metric.data(in: a) {
    case .proportion(let s, let n):
      guard n > 0, let count = try? ProportionCount(successes: Int(s), trials: Int(n)) else {
        return MetricEstimate(metric: metric, estimate: nil, interval: nil, n: n)
      }
      let wilson = try? ProportionInterval.wilson(count, confidenceLevel: 1 - alpha)
      return MetricEstimate(metric: metric, estimate: Double(s) / Double(n), interval: wilson, n: n)
    case .mean(let m):
      guard let mean = m.mean else { return MetricEstimate(metric: metric, estimate: nil, interval: nil, n: 0) }
      var interval: ConfidenceInterval?
      if m.n > 1, let variance = m.variance {
        let t = StudentT(degreesOfFreedom: Double(m.n - 1)).ppf(1 - alpha / 2)
        let half = t * (variance / Double(m.n)).squareRoot()
        interval = ConfidenceInterval(lower: mean - half, upper: mean + half, confidenceLevel: 1 - alpha, method: "Student t interval")
      }
      return MetricEstimate(metric: metric, estimate: mean, interval: interval, n: UInt64(m.n))
    }
  }

  /// `variant` against `control` for `metric`.
  public static func compare(_ metric: FunnelMetric, variant: FunnelAggregate, control: FunnelAggregate, alpha: Double = 0.05)
    -> MetricComparison
  {
    switch (metric.data(in: variant), metric.data(in: control)) {
    case (.proportion(let s1, let n1), .proportion(let s0, let n0)):
      guard let treatment = try? ProportionCount(successes: Int(s1), trials: Int(n1)),
        let base = try? ProportionCount(successes: Int(s0), trials: Int(n0)), n1 > 0, n0 > 0
      else { return MetricComparison(metric: metric, difference: nil, test: nil) }
      let difference = try? ProportionDifference.newcombeInterval(treatment: treatment, control: base, confidenceLevel: 1 - alpha)
      let test = try? TwoProportionZTest.test(treatment: treatment, control: base)
      return MetricComparison(metric: metric, difference: difference, test: test)
    case (.mean(let m1), .mean(let m0)):
      guard let welch = try? WelchTTest.test(treatment: m1, control: m0, confidenceLevel: 1 - alpha) else {
        return MetricComparison(metric: metric, difference: nil, test: nil)
      }
      var rank: TestResult?
      if metric == .revenuePerUser || metric == .realizedRevenuePerUser {
        let pick: (FunnelAggregate) -> RevenueDistribution = metric == .revenuePerUser ? { $0.revenue } : { $0.realizedRevenue }
        rank = try? MannWhitneyUTest.test(
          treatment: pick(variant).valueCounts(users: variant.users), control: pick(control).valueCounts(users: control.users)
        ).test
      }
      return MetricComparison(metric: metric, difference: welch.difference, test: welch.test, rankTest: rank)
    default:
      return MetricComparison(metric: metric, difference: nil, test: nil)
    }
  }
}
