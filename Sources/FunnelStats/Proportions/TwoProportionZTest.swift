import Foundation

/// The two-proportion z-test with pooled variance, as statsmodels
/// `proportions_ztest([x₁, x₀], [n₁, n₀], value=δ₀, prop_var=False)`.
///
/// ```
/// p̄ = (x₁ + x₀) / (n₁ + n₀)
/// z = (p̂₁ − p̂₀ − δ₀) / √(p̄(1−p̄)(1/n₁ + 1/n₀))
/// ```
/// two-sided `p = 2Φ(−|z|)`, greater `p = Φ(−z)`, less `p = Φ(z)`. Assumes independent
/// Bernoulli users and large enough counts (≳ 5 successes and failures per arm); otherwise use
/// ``FisherExactTest``.
///
/// - Complexity: O(1).
public enum TwoProportionZTest {
  /// The method name carried by results.
  public static let methodName = "two-proportion pooled z-test"

  /// Tests treatment (index 1) against control (index 0).
  ///
  /// Degenerate data: an empty arm throws `.emptyArm`; zero pooled variance (no successes or
  /// no failures anywhere) returns `z = 0`, `p = 1` with ``Diagnostic/zeroVariance``.
  ///
  /// - Throws: ``StatsError`` for an empty arm.
  public static func test(
    treatment: ProportionCount, control: ProportionCount, alternative: Alternative = .twoSided,
    nullDifference: Double = 0
  ) throws(StatsError) -> TestResult {
    try TwoProportionScoreTest.checkArms(treatment, control)
    let n1 = Double(treatment.trials)
    let n0 = Double(control.trials)
    let p1 = Double(treatment.successes) / n1
    let p0 = Double(control.successes) / n0
    let pooled = (Double(treatment.successes) + Double(control.successes)) / (n1 + n0)
    let variance = pooled * (1 - pooled) * (1 / n1 + 1 / n0)
    guard variance > 0 else {
      return TestResult(
        statistic: 0, pValue: 1, alternative: alternative, method: methodName,
        diagnostic: .zeroVariance)
    }
    let z = (p1 - p0 - nullDifference) / variance.squareRoot()
    return TestResult(
      statistic: z, pValue: normalPValue(z, alternative), alternative: alternative,
      method: methodName)
  }
}
