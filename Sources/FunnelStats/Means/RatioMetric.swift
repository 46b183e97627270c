import Foundation

/// A ratio metric, `Σx / Σy` over an arm's users (revenue per payer, per paywall viewer,
/// purchases per session), compared between two arms by the delta method.
///
/// Users are the unit of randomisation, so the numerator and the denominator of one user are
/// correlated and the users' ratios are not the observations: with `n` users, means `x̄`, `ȳ`,
/// sample variances `s²ₓ`, `s²ᵧ` and covariance `sₓᵧ` (all with `n − 1`), the ratio
/// `R = x̄/ȳ` has the delta-method variance
///
/// ```
/// Var(R) ≈ (s²ₓ − 2R·sₓᵧ + R²·s²ᵧ) / (n·ȳ²)
/// ```
///
/// (Deng, Knoblich & Lu, "Applying the Delta Method in Metric Analytics", KDD 2018). Two
/// independent arms: `Δ = R₁ − R₀` with `SE = √(Var₁ + Var₀)`, tested and bounded with Student's
/// t at the Welch–Satterthwaite degrees of freedom `ν = (Var₁ + Var₀)² / (Var₁²/(n₁ − 1) + Var₀²/(n₀ − 1))`;
/// the relative lift `R₁/R₀ − 1` with the interval of `log(R₁/R₀)`, whose variance is
/// `Var₁/R₁² + Var₀/R₀²`, with Student's t at the degrees of freedom of those two variances. This
/// is what tea-tasting's `RatioOfMeans` reports two-sided (checked to 1e-9). The intervals are
/// two-sided at `confidenceLevel` whatever the `alternative`, as ``WelchTTest``'s are; only the
/// p-value is one-sided for `greater` or `less`.
///
/// - Complexity: O(1) from each arm's sums.
public enum RatioMetric {
  /// The method name carried by results.
  public static let methodName = "ratio of means, delta method"

  /// One arm's users reduced to the sums the delta method needs.
  public struct Arm: Sendable, Hashable, Codable {
    /// Users.
    public var users: Double
    /// `Σx`, the numerator.
    public var numeratorSum: Double
    /// `Σy`, the denominator.
    public var denominatorSum: Double
    /// `Σx²`.
    public var numeratorSumOfSquares: Double
    /// `Σy²`.
    public var denominatorSumOfSquares: Double
    /// `Σxy`.
    public var sumOfProducts: Double

    /// An arm's sums.
    public init(
      users: Double, numeratorSum: Double, denominatorSum: Double, numeratorSumOfSquares: Double, denominatorSumOfSquares: Double,
      sumOfProducts: Double
    ) {
      self.users = users
      self.numeratorSum = numeratorSum
      self.denominatorSum = denominatorSum
      self.numeratorSumOfSquares = numeratorSumOfSquares
      self.denominatorSumOfSquares = denominatorSumOfSquares
      self.sumOfProducts = sumOfProducts
    }

    /// The sums of per-user `numerators` and `denominators` (the same length).
    public init(numerators: [Double], denominators: [Double]) {
      var sums = [0.0, 0, 0, 0, 0]
      for (x, y) in zip(numerators, denominators) {
        sums[0] += x
        sums[1] += y
        sums[2] += x * x
        sums[3] += y * y
        sums[4] += x * y
      }
      self.init(
        users: Double(min(numerators.count, denominators.count)), numeratorSum: sums[0], denominatorSum: sums[1],
        numeratorSumOfSquares: sums[2], denominatorSumOfSquares: sums[3], sumOfProducts: sums[4])
    }

    /// `R = Σx/Σy`; `nil` when `Σy` is 0.
    public var ratio: Double? { denominatorSum != 0 ? numeratorSum / denominatorSum : nil }

    /// The delta-method variance of ``ratio``; `nil` with fewer than 2 users or `Σy` 0.
    public var variance: Double? {
      guard users >= 2, let r = ratio else { return nil }
      let n = users
      let mx = numeratorSum / n
      let my = denominatorSum / n
      let vx = (numeratorSumOfSquares - n * mx * mx) / (n - 1)
      let vy = (denominatorSumOfSquares - n * my * my) / (n - 1)
      let cxy = (sumOfProducts - n * mx * my) / (n - 1)
      return max((vx - 2 * r * cxy + r * r * vy) / (n * my * my), 0)
    }
  }

  /// The comparison of two arms' ratios.
  public struct Result: Sendable, Hashable, Codable {
    /// Each arm's ratio, control then treatment.
    public var ratios: [Double]
    /// Each arm's delta-method standard error, control then treatment.
    public var standardErrors: [Double]
    /// `Δ = R₁ − R₀` and its t interval.
    public var difference: IntervalEstimate
    /// `R₁/R₀ − 1` and its interval from `log(R₁/R₀)`; no interval when a ratio is not positive.
    public var relativeLift: IntervalEstimate
    /// The t-test of `Δ = 0` (Welch–Satterthwaite degrees of freedom).
    public var test: TestResult
  }

  /// Compares `treatment` with `control`.
  /// - Throws: ``StatsError`` for an arm with fewer than 2 users, a zero denominator sum, non-finite
  ///   sums, or a confidence level outside (0, 1).
  public static func compare(
    treatment: Arm, control: Arm, alternative: Alternative = .twoSided, confidenceLevel: Double = 0.95
  ) throws(StatsError) -> Result {
    try checkLevel(confidenceLevel)
    var moments: [(ratio: Double, variance: Double, users: Double)] = []
    for (arm, name) in [(control, StatsError.Field.Name.control), (treatment, .treatment)] {
      let sums = [
        arm.users, arm.numeratorSum, arm.denominatorSum, arm.numeratorSumOfSquares, arm.denominatorSumOfSquares, arm.sumOfProducts,
      ]
      guard sums.allSatisfy(\.isFinite) else {
        throw StatsError(.invalidParameter, field: [.name(name)], message: "every sum must be finite")
      }
      guard let r = arm.ratio, let v = arm.variance else {
        throw StatsError(
          .invalidParameter, field: [.name(name)], message: "needs at least 2 users and a denominator sum other than 0")
      }
      moments.append((r, v, arm.users))
    }
    let (c, t) = (moments[0], moments[1])
    let variance = c.variance + t.variance
    let se = variance.squareRoot()
    let d = t.ratio - c.ratio
    let tail = (1 - confidenceLevel) / 2
    let df = variance * variance / (t.variance * t.variance / (t.users - 1) + c.variance * c.variance / (c.users - 1))
    let dist = StudentT(degreesOfFreedom: df.isFinite && df > 0 ? df : 1)
    let z = dist.quantile(p: 1 - tail, q: tail)
    let statistic = se > 0 ? d / se : 0
    let p: Double =
      if se > 0 {
        dist.pValue(statistic, alternative)
      } else {
        switch alternative {
        case .twoSided: d == 0 ? 1 : 0
        case .greater: d > 0 ? 0 : 1
        case .less: d < 0 ? 0 : 1
        }
      }
    var lift = IntervalEstimate(estimate: c.ratio != 0 ? t.ratio / c.ratio - 1 : nil, interval: nil)
    if c.ratio > 0, t.ratio > 0 {
      let log = Foundation.log(t.ratio / c.ratio)
      let a = t.variance / (t.ratio * t.ratio)
      let b = c.variance / (c.ratio * c.ratio)
      let logSE = (a + b).squareRoot()
      // Its own Welch–Satterthwaite degrees of freedom, from the log scale's variances.
      let logDF = (a + b) * (a + b) / (a * a / (t.users - 1) + b * b / (c.users - 1))
      let q = StudentT(degreesOfFreedom: logDF.isFinite && logDF > 0 ? logDF : 1).quantile(p: 1 - tail, q: tail)
      lift.interval = ConfidenceInterval(
        lower: exp(log - q * logSE) - 1, upper: exp(log + q * logSE) - 1, confidenceLevel: confidenceLevel,
        method: "delta method on the log ratio")
    }
    return Result(
      ratios: [c.ratio, t.ratio], standardErrors: [c.variance.squareRoot(), t.variance.squareRoot()],
      difference: IntervalEstimate(
        estimate: d,
        interval: ConfidenceInterval(lower: d - z * se, upper: d + z * se, confidenceLevel: confidenceLevel, method: methodName)),
      relativeLift: lift,
      test: TestResult(
        statistic: statistic, pValue: min(max(p, 0), 1), alternative: alternative, degreesOfFreedom: df, method: methodName))
  }
}
