import Foundation

/// Confidence intervals for a single proportion.
public enum ProportionInterval {
  /// The Wilson score interval (Wilson, 1927), as statsmodels `proportion_confint(method="wilson")`:
  ///
  /// ```
  /// z = Φ⁻¹(1 − α/2),  p̂ = x/n
  /// center = (p̂ + z²/2n) / (1 + z²/n)
  /// half   = z √(p̂(1−p̂)/n + z²/4n²) / (1 + z²/n)
  /// ```
  /// clipped to [0, 1]. Good coverage even at p̂ = 0 or 1 and small n; prefer it to Wald.
  /// With `n = 0` the interval is the whole of [0, 1].
  ///
  /// - Complexity: O(1).
  public static func wilson(_ count: ProportionCount, confidenceLevel: Double = 0.95)
    throws(StatsError) -> ConfidenceInterval
  {
    try checkLevel(confidenceLevel)
    guard count.trials > 0 else {
      return ConfidenceInterval(lower: 0, upper: 1, confidenceLevel: confidenceLevel, method: "wilson")
    }
    let n = Double(count.trials)
    let p = Double(count.successes) / n
    let alpha = 1 - confidenceLevel
    let z = -Normal.standardQuantile(p: alpha / 2, q: 1 - alpha / 2)
    let z2 = z * z
    let denom = 1 + z2 / n
    let center = (p + z2 / (2 * n)) / denom
    let half = z * (p * (1 - p) / n + z2 / (4 * n * n)).squareRoot() / denom
    return ConfidenceInterval(
      lower: min(max(center - half, 0), 1), upper: min(max(center + half, 0), 1),
      confidenceLevel: confidenceLevel, method: "wilson")
  }

  /// The Wald interval `p̂ ± z √(p̂(1−p̂)/n)`, clipped to [0, 1] (statsmodels `method="normal"`).
  ///
  /// Shown for comparison only: it collapses to a point at p̂ = 0 or 1 and under-covers for
  /// small n or extreme p. With `n = 0` the interval is [0, 1].
  ///
  /// - Complexity: O(1).
  public static func wald(_ count: ProportionCount, confidenceLevel: Double = 0.95)
    throws(StatsError) -> ConfidenceInterval
  {
    try checkLevel(confidenceLevel)
    guard count.trials > 0 else {
      return ConfidenceInterval(lower: 0, upper: 1, confidenceLevel: confidenceLevel, method: "wald")
    }
    let n = Double(count.trials)
    let p = Double(count.successes) / n
    let alpha = 1 - confidenceLevel
    let z = -Normal.standardQuantile(p: alpha / 2, q: 1 - alpha / 2)
    let half = z * (p * (1 - p) / n).squareRoot()
    return ConfidenceInterval(
      lower: min(max(p - half, 0), 1), upper: min(max(p + half, 0), 1),
      confidenceLevel: confidenceLevel, method: "wald")
  }

  /// The Clopper–Pearson "exact" interval (statsmodels `method="beta"`):
  ///
  /// ```
  /// lower = B⁻¹(α/2; x, n − x + 1)   (0 when x = 0)
  /// upper = B⁻¹(1 − α/2; x + 1, n − x)   (1 when x = n)
  /// ```
  /// Guaranteed coverage of at least the nominal level (conservative). Prefer it when a
  /// regulator or a contract demands guaranteed coverage; Wilson is closer to nominal on
  /// average. Clopper & Pearson (1934).
  ///
  /// - Complexity: two incomplete-beta inversions.
  public static func clopperPearson(_ count: ProportionCount, confidenceLevel: Double = 0.95)
    throws(StatsError) -> ConfidenceInterval
  {
    try checkLevel(confidenceLevel)
    let x = Double(count.successes)
    let n = Double(count.trials)
    let a = (1 - confidenceLevel) / 2
    let lower = x == 0 ? 0 : BetaDistribution(alpha: x, beta: n - x + 1).ppf(a)
    let upper = x == n ? 1 : BetaDistribution(alpha: x + 1, beta: n - x).isf(a)
    return ConfidenceInterval(
      lower: lower, upper: upper, confidenceLevel: confidenceLevel, method: "clopper-pearson")
  }

  /// The Jeffreys interval: equal-tailed quantiles of the `Beta(x + ½, n − x + ½)` posterior
  /// (statsmodels `method="jeffreys"`). Coverage close to nominal, like Wilson, with a
  /// Bayesian reading. Brown, Cai & DasGupta (2001).
  ///
  /// - Complexity: two incomplete-beta inversions.
  public static func jeffreys(_ count: ProportionCount, confidenceLevel: Double = 0.95)
    throws(StatsError) -> ConfidenceInterval
  {
    try checkLevel(confidenceLevel)
    let x = Double(count.successes)
    let n = Double(count.trials)
    let a = (1 - confidenceLevel) / 2
    let d = BetaDistribution(alpha: x + 0.5, beta: n - x + 0.5)
    return ConfidenceInterval(
      lower: d.ppf(a), upper: d.isf(a), confidenceLevel: confidenceLevel, method: "jeffreys")
  }
}
