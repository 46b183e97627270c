import Foundation

/// The difference of two paired proportions `p₁ − p₀` (the same units under the
/// treatment and the control): McNemar's score test and Tango's score interval, a pair
/// that inverts each other — the interval excludes `0` exactly when the test rejects at
/// the same level.
///
/// With `b = treatmentOnly`, `c = controlOnly` and `n` pairs, Tango's score statistic
/// for a hypothesised difference Δ is
///
/// ```
/// T(Δ) = (b − c − nΔ) / √(n (2 q̃(Δ) + Δ(1 − Δ)))
/// q̃(Δ) = (√(W² + 8 n c Δ(1 − Δ)) − W) / (4n),   W = −b − c + (2n − b + c) Δ
/// ```
/// where `q̃` is the maximum-likelihood estimate of `P(control only)` under the
/// constraint `p₁ − p₀ = Δ`. At `Δ = 0`, `q̃ = (b + c)/(2n)` and `T(0) = (b − c)/√(b + c)`:
/// McNemar's statistic without continuity correction (statsmodels
/// `mcnemar(table, exact=False, correction=False)` reports its square). The interval
/// is `{Δ : |T(Δ)| ≤ z₁₋α/₂}`, its limits found by bisection (T decreases in Δ).
///
/// Tango, T. (1998). *Equivalence test and confidence interval for the difference in
/// proportions for the paired-sample design*. Statistics in Medicine 17, 891–908.
/// Recommended by Fagerland, Lydersen & Laake (2014), *Recommended tests and confidence
/// intervals for paired binomial proportions*, Statistics in Medicine 33, 2850–2875.
///
/// - Complexity: the test O(1); the interval O(log(1/ε)) evaluations of `T` (bisection to
///   full double precision, a few hundred evaluations at most).
public enum PairedProportionDifference {
  /// The method name carried by test results.
  public static let testMethodName = "McNemar score test (paired)"
  /// The method name carried by intervals.
  public static let intervalMethodName = "Tango score interval (paired)"

  /// McNemar's test of `p₁ = p₀ + δ₀` without continuity correction; for `δ₀ ≠ 0` the
  /// statistic is Tango's `T(δ₀)`, so the test always inverts ``tangoInterval(_:confidenceLevel:)``.
  ///
  /// Degenerate data: no pairs throws `.emptyArm`; no discordant pairs at `δ₀ = 0` gives
  /// `z = 0`, `p = 1` with ``Diagnostic/zeroVariance``.
  ///
  /// - Returns: the signed statistic `z = T(δ₀)` (positive when the treatment is higher)
  ///   and its normal p-value.
  /// - Throws: ``StatsError`` for an empty table or `δ₀` outside (−1, 1).
  public static func mcnemarTest(
    _ table: PairedProportionCount, alternative: Alternative = .twoSided, nullDifference: Double = 0
  ) throws(StatsError) -> TestResult {
    guard table.pairs > 0 else { throw StatsError(.emptyArm, field: [.name(.table)], message: "has no pairs") }
    guard nullDifference > -1, nullDifference < 1 else {
      throw StatsError(.invalidParameter, field: [.name(.nullDifference)], message: "must be in (−1, 1), got \(nullDifference)")
    }
    if nullDifference == 0, table.discordant == 0 {
      return TestResult(statistic: 0, pValue: 1, alternative: alternative, method: testMethodName, diagnostic: .zeroVariance)
    }
    let z = score(table, nullDifference)
    return TestResult(statistic: z, pValue: normalPValue(z, alternative), alternative: alternative, method: testMethodName)
  }

  /// Tango's score interval for `p₁ − p₀` at `confidenceLevel`, with the point estimate
  /// `(b − c)/n`. Defined for every table with at least one pair, including tables
  /// without discordant pairs (then it is symmetric about 0, of width ≈ 2z²/n).
  ///
  /// - Throws: ``StatsError`` for an empty table or a level outside (0, 1).
  public static func tangoInterval(_ table: PairedProportionCount, confidenceLevel: Double = 0.95) throws(StatsError)
    -> IntervalEstimate
  {
    try checkLevel(confidenceLevel)
    guard table.pairs > 0, let estimate = table.difference else {
      throw StatsError(.emptyArm, field: [.name(.table)], message: "has no pairs")
    }
    let alpha = 1 - confidenceLevel
    let z = -Normal.standardQuantile(p: alpha / 2, q: 1 - alpha / 2)
    let lower = estimate <= -1 ? -1 : (_MonotoneRoot.solve(lower: -1, upper: estimate) { score(table, $0) - z } ?? -1)
    let upper = estimate >= 1 ? 1 : (_MonotoneRoot.solve(lower: estimate, upper: 1) { score(table, $0) + z } ?? 1)
    return IntervalEstimate(
      estimate: estimate,
      interval: ConfidenceInterval(lower: lower, upper: upper, confidenceLevel: confidenceLevel, method: intervalMethodName))
  }

  /// Tango's score statistic `T(Δ)`; ±∞ where its variance vanishes with a non-zero
  /// numerator (the ends Δ = ±1), 0 where both vanish.
  static func score(_ table: PairedProportionCount, _ delta: Double) -> Double {
    let n = Double(table.pairs)
    let b = Double(table.treatmentOnly)
    let c = Double(table.controlOnly)
    let w = -b - c + (2 * n - b + c) * delta
    let e = 8 * n * c * delta * (1 - delta)
    let root = max(w * w + e, 0).squareRoot()
    // √(W² + E) − W without cancellation when W > 0.
    let q = max(w > 0 ? e / (root + w) : root - w, 0) / (4 * n)
    let variance = n * (2 * q + delta * (1 - delta))
    let numerator = b - c - n * delta
    guard variance > 0 else { return numerator == 0 ? 0 : (numerator > 0 ? .infinity : -.infinity) }
    return numerator / variance.squareRoot()
  }
}
