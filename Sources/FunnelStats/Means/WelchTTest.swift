import Foundation

/// Welch's unequal-variance t-test and interval for a difference of means, from sufficient
/// statistics, as scipy `ttest_ind(treatment, control, equal_var=False)`.
///
/// ```
/// se² = s₁²/n₁ + s₀²/n₀,   t = (x̄₁ − x̄₀ − δ₀) / se
/// ν = se⁴ / ((s₁²/n₁)²/(n₁−1) + (s₀²/n₀)²/(n₀−1))          (Welch–Satterthwaite)
/// CI = x̄₁ − x̄₀ ± t_{ν, 1−α/2} · se
/// ```
/// Assumes independent observations; by the CLT it is robust to skew (revenue) once each arm
/// has a few hundred users. Welch (1947).
///
/// - Complexity: O(1) plus one t-distribution evaluation.
public enum WelchTTest {
  /// The method name carried by results.
  public static let methodName = "Welch's t-test"

  /// The result: the test and the interval for `x̄₁ − x̄₀`.
  public struct Result: Sendable, Hashable, Codable {
    /// t, ν, p-value; a neutral result with a diagnostic for degenerate data.
    public var test: TestResult
    /// Difference of means `x̄₁ − x̄₀` and its interval (interval `nil` when degenerate).
    public var difference: IntervalEstimate
    /// The standard error of the difference.
    public var standardError: Double
  }

  /// Runs the test.
  ///
  /// Degenerate data: fewer than two observations in an arm gives a neutral result with
  /// ``Diagnostic/insufficientData``; zero variance in both arms gives
  /// ``Diagnostic/zeroVariance`` (t = 0, p = 1 if the means are equal; otherwise the means
  /// differ with certainty and p = 0 with an infinite-free statistic of 0).
  ///
  /// - Throws: ``StatsError`` for invalid statistics or a confidence level outside (0, 1).
  public static func test(
    treatment: SampleMeanStatistic, control: SampleMeanStatistic,
    alternative: Alternative = .twoSided, nullDifference: Double = 0, confidenceLevel: Double = 0.95
  ) throws(StatsError) -> Result {
    try treatment.validate(field: [.name(.treatment)])
    try control.validate(field: [.name(.control)])
    try checkLevel(confidenceLevel)
    guard let v1 = treatment.variance, let v0 = control.variance,
      let m1 = treatment.mean, let m0 = control.mean
    else {
      let diff = (treatment.mean ?? 0) - (control.mean ?? 0)
      return Result(
        test: TestResult(
          statistic: 0, pValue: 1, alternative: alternative, method: methodName,
          diagnostic: .insufficientData),
        difference: IntervalEstimate(
          estimate: treatment.n > 0 && control.n > 0 ? diff : nil, interval: nil,
          diagnostic: .insufficientData),
        standardError: 0)
    }
    let n1 = Double(treatment.n)
    let n0 = Double(control.n)
    let a = v1 / n1
    let b = v0 / n0
    let se2 = a + b
    let diff = m1 - m0
    guard se2 > 0 else {
      let equal = diff == nullDifference
      let p: Double
      switch alternative {
      case .twoSided: p = equal ? 1 : 0
      case .greater: p = diff > nullDifference ? 0 : 1
      case .less: p = diff < nullDifference ? 0 : 1
      }
      return Result(
        test: TestResult(
          statistic: 0, pValue: p, alternative: alternative, method: methodName,
          diagnostic: .zeroVariance),
        difference: IntervalEstimate(
          estimate: diff,
          interval: ConfidenceInterval(
            lower: diff, upper: diff, confidenceLevel: confidenceLevel, method: "welch"),
          diagnostic: .zeroVariance),
        standardError: 0)
    }
    let se = se2.squareRoot()
    let df = se2 * se2 / (a * a / (n1 - 1) + b * b / (n0 - 1))
    let t = (diff - nullDifference) / se
    let dist = StudentT(degreesOfFreedom: df)
    let p = dist.pValue(t, alternative)
    let alpha = 1 - confidenceLevel
    let q = dist.quantile(p: 1 - alpha / 2, q: alpha / 2)
    return Result(
      test: TestResult(
        statistic: t, pValue: p, alternative: alternative, degreesOfFreedom: df,
        method: methodName),
      difference: IntervalEstimate(
        estimate: diff,
        interval: ConfidenceInterval(
          lower: diff - q * se, upper: diff + q * se, confidenceLevel: confidenceLevel,
          method: "welch")),
      standardError: se)
  }
}
