import Foundation

/// The paired t-test and interval for a mean difference, from the sufficient statistics
/// of the per-unit differences `dᵢ = x₁ᵢ − x₀ᵢ` (each unit observed under the treatment
/// and the control), as scipy `ttest_rel(x₁, x₀)` or `ttest_1samp(d, δ₀)`:
///
/// ```
/// d̄ = Σd / n,   s² = (Σd² − (Σd)²/n) / (n − 1),   se = s / √n
/// t = (d̄ − δ₀) / se,   ν = n − 1,   CI = d̄ ± t_{ν, 1−α/2} · se
/// ```
/// Pairing removes the between-unit variance the two conditions share, so under common
/// random numbers the interval is far narrower than Welch's on the same data. Assumes
/// independent pairs; by the CLT robust to skewed differences (revenue) once there are a
/// few hundred pairs. Student (1908).
///
/// - Complexity: O(1) plus one t-distribution evaluation.
public enum PairedTTest {
  /// The method name carried by test results.
  public static let methodName = "paired t-test"
  /// The method name carried by intervals.
  public static let intervalMethodName = "paired t interval"

  /// The result: the test, the mean difference `d̄` with its interval, and the standard
  /// error `s/√n` (the same shape as Welch's).
  public typealias Result = WelchTTest.Result

  /// Runs the test on the differences' statistic.
  ///
  /// Degenerate data: fewer than two pairs gives a neutral result with
  /// ``Diagnostic/insufficientData``; differences that are all equal give
  /// ``Diagnostic/zeroVariance`` with the point interval `[d̄, d̄]` and `p = 1` when
  /// `d̄ = δ₀` (every difference is exactly the null value), else `p = 0`.
  ///
  /// - Throws: ``StatsError`` for invalid statistics or a level outside (0, 1).
  public static func test(
    differences d: SampleMeanStatistic, alternative: Alternative = .twoSided, nullDifference: Double = 0,
    confidenceLevel: Double = 0.95
  ) throws(StatsError) -> Result {
    try d.validate(field: [.name(.differences)])
    try checkLevel(confidenceLevel)
    guard let mean = d.mean, let variance = d.variance else {
      return Result(
        test: TestResult(statistic: 0, pValue: 1, alternative: alternative, method: methodName, diagnostic: .insufficientData),
        difference: IntervalEstimate(estimate: d.mean, interval: nil, diagnostic: .insufficientData), standardError: 0)
    }
    let n = Double(d.n)
    let se = (variance / n).squareRoot()
    guard se > 0 else {
      let p: Double
      switch alternative {
      case .twoSided: p = mean == nullDifference ? 1 : 0
      case .greater: p = mean > nullDifference ? 0 : 1
      case .less: p = mean < nullDifference ? 0 : 1
      }
      let point = ConfidenceInterval(lower: mean, upper: mean, confidenceLevel: confidenceLevel, method: intervalMethodName)
      return Result(
        test: TestResult(
          statistic: 0, pValue: p, alternative: alternative, degreesOfFreedom: n - 1, method: methodName,
          diagnostic: .zeroVariance),
        difference: IntervalEstimate(estimate: mean, interval: point, diagnostic: .zeroVariance), standardError: 0)
    }
    let dist = StudentT(degreesOfFreedom: n - 1)
    let t = (mean - nullDifference) / se
    let p = dist.pValue(t, alternative)
    let alpha = 1 - confidenceLevel
    let q = dist.quantile(p: 1 - alpha / 2, q: alpha / 2)
    return Result(
      test: TestResult(statistic: t, pValue: p, alternative: alternative, degreesOfFreedom: n - 1, method: methodName),
      difference: IntervalEstimate(
        estimate: mean,
        interval: ConfidenceInterval(
          lower: mean - q * se, upper: mean + q * se, confidenceLevel: confidenceLevel, method: intervalMethodName)),
      standardError: se)
  }
}

extension StudentT {
  /// The p-value of the statistic `t` under this distribution for `alternative`.
  func pValue(_ t: Double, _ alternative: Alternative) -> Double {
    switch alternative {
    case .twoSided: min(1, 2 * sf(abs(t)))
    case .greater: sf(t)
    case .less: cdf(t)
    }
  }
}
