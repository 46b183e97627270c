import Foundation

/// Two one-sided tests (TOST) of equivalence for two proportions with the unpooled (Wald)
/// variance, as statsmodels `tost_proportions_2indep(x₁, n₁, x₀, n₀, low, upp,
/// method="wald")`, and the power of that test at true rates, as statsmodels'
/// normal-approximation power of an equivalence z-test (`_power_ztost`, `discrete=False`).
///
/// ```
/// d = p̂₁ − p̂₀,  se = √(p̂₁(1−p̂₁)/n₁ + p̂₀(1−p̂₀)/n₀)
/// p_low = Φ(−(d − low)/se)    H₀: δ ≤ low
/// p_upp = Φ((d − upp)/se)     H₀: δ ≥ upp
/// p = max(p_low, p_upp)
/// ```
/// Equivalence is shown at level α when `p < α`: the 1 − 2α interval of the difference lies
/// inside `(low, upp)`. No multiplicity adjustment is needed for the two one-sided tests (an
/// intersection–union test).
///
/// - Complexity: O(1).
public enum TwoProportionEquivalenceTest {
  /// The method name carried by results.
  public static let methodName = "two one-sided tests (TOST), unpooled z"

  /// The outcome of a TOST.
  public struct Result: Sendable, Hashable {
    /// The observed difference `p̂₁ − p̂₀`.
    public var difference: Double
    /// Its unpooled standard error.
    public var standardError: Double
    /// The p-value of H₀: δ ≤ low.
    public var lowerPValue: Double
    /// The p-value of H₀: δ ≥ upp.
    public var upperPValue: Double
    /// The TOST p-value, `max(lowerPValue, upperPValue)`.
    public var pValue: Double { max(lowerPValue, upperPValue) }
  }

  /// Tests whether treatment (index 1) and control (index 0) differ by less than the margins:
  /// H₀: δ ≤ `lower` or δ ≥ `upper`, against `lower < δ < upper`.
  ///
  /// A zero standard error (no successes or no failures in either arm) leaves the observed
  /// difference exact: each one-sided p-value is 0 when it lies strictly inside its bound, 1
  /// otherwise.
  ///
  /// - Throws: ``StatsError`` for an empty arm, or margins that are not finite with `lower < upper`.
  public static func test(
    treatment: ProportionCount, control: ProportionCount, lower: Double, upper: Double
  ) throws(StatsError) -> Result {
    try checkMargins(lower: lower, upper: upper)
    try TwoProportionScoreTest.checkArms(treatment, control)
    let n1 = Double(treatment.trials)
    let n0 = Double(control.trials)
    let p1 = Double(treatment.successes) / n1
    let p0 = Double(control.successes) / n0
    let d = p1 - p0
    let se = (p1 * (1 - p1) / n1 + p0 * (1 - p0) / n0).squareRoot()
    guard se > 0 else {
      return Result(difference: d, standardError: 0, lowerPValue: d > lower ? 0 : 1, upperPValue: d < upper ? 0 : 1)
    }
    return Result(
      difference: d, standardError: se, lowerPValue: Normal.standardCDF(-(d - lower) / se),
      upperPValue: Normal.standardCDF((d - upper) / se))
  }

  /// The power of the TOST at level `alpha` when the true rates are `treatmentRate` and
  /// `controlRate` with `treatmentUsers` and `controlUsers` (real numbers: a metric's
  /// denominator may be a share of the users): with `σ` the unpooled standard error at the true
  /// rates and `z = z₁₋α`, `Φ((upper − zσ − δ)/σ) − Φ((lower + zσ − δ)/σ)`, 0 when the
  /// rejection region is empty. A zero `σ` gives 1 when δ lies strictly inside the margins, else 0.
  ///
  /// - Throws: ``StatsError`` for rates outside [0, 1], users not above 0, `alpha` outside
  ///   (0, 0.5), or margins that are not finite with `lower < upper`.
  public static func power(
    treatmentRate p1: Double, controlRate p0: Double, treatmentUsers n1: Double, controlUsers n0: Double, lower: Double,
    upper: Double, alpha: Double
  ) throws(StatsError) -> Double {
    try checkMargins(lower: lower, upper: upper)
    guard (0...1).contains(p1) else { throw StatsError(.invalidParameter, field: [.name(.effect)], message: "must be in [0, 1]") }
    guard (0...1).contains(p0) else { throw StatsError(.invalidParameter, field: [.name(.baseline)], message: "must be in [0, 1]") }
    guard n1 > 0, n1.isFinite, n0 > 0, n0.isFinite else {
      throw StatsError(.invalidParameter, field: [.name(.sampleSize)], message: "must be a finite number above 0")
    }
    guard alpha > 0, alpha < 0.5 else { throw StatsError(.invalidParameter, field: [.name(.alpha)], message: "must be in (0, 0.5)") }
    let delta = p1 - p0
    let sigma = (p1 * (1 - p1) / n1 + p0 * (1 - p0) / n0).squareRoot()
    guard sigma > 0 else { return delta > lower && delta < upper ? 1 : 0 }
    let z = Normal.standardQuantile(p: 1 - alpha, q: alpha)
    let high = upper - z * sigma
    let low = lower + z * sigma
    guard low < high else { return 0 }
    return Swift.max(0, Normal.standardCDF((high - delta) / sigma) - Normal.standardCDF((low - delta) / sigma))
  }

  static func checkMargins(lower: Double, upper: Double) throws(StatsError) {
    guard lower.isFinite, upper.isFinite, lower < upper else {
      throw StatsError(
        .invalidParameter, field: [.name(.margin)], message: "needs finite bounds with lower < upper (got \(lower), \(upper))")
    }
  }
}
