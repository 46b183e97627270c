/// Cochran's Q test of whether one effect differs between strata (segments), as
/// statsmodels `combine_effects(effects, variances)` reports it (`q`, `i2`, and the
/// fixed-effect mean):
///
/// ```
/// wₛ = 1/SEₛ²,   d̄ = Σwₛdₛ / Σwₛ,   Q = Σ wₛ(dₛ − d̄)²  ~  χ²(S − 1) under homogeneity,
/// I² = max(0, (Q − (S − 1))/Q)
/// ```
/// A small p-value says the effect is not the same in every segment (an interaction
/// of treatment and segment). The test needs independent estimates, one per stratum,
/// each with a standard error that is positive; it has little power with few strata
/// or small ones, so a large p-value is not evidence of a common effect.
/// Cochran (1954); Higgins & Thompson (2002) for I².
public enum HeterogeneityTest {
  /// The method name carried by results.
  public static let methodName = "Cochran's Q"

  /// The test across strata.
  public struct Result: Sendable, Hashable, Codable {
    /// Q, its χ² p-value and degrees of freedom `S − 1`.
    public var test: TestResult
    /// The inverse-variance weighted mean effect `d̄`.
    public var pooledEffect: Double
    /// The standard error of ``pooledEffect``, `1/√Σw`.
    public var pooledStandardError: Double
    /// The share of the spread beyond chance, `max(0, (Q − df)/Q)` (0 when Q is 0).
    public var iSquared: Double
  }

  /// Tests `effects` (one per stratum) with their `standardErrors`.
  /// - Throws: ``StatsError`` for fewer than 2 strata, lengths that differ, or an
  ///   effect or standard error that is not finite or a standard error that is not positive.
  public static func test(effects: [Double], standardErrors: [Double]) throws(StatsError) -> Result {
    guard effects.count == standardErrors.count else {
      throw StatsError(
        .dimensionMismatch, field: [.name(.standardErrors)], message: "\(standardErrors.count) standard errors for \(effects.count) effects"
      )
    }
    guard effects.count >= 2 else {
      throw StatsError(.invalidParameter, field: [.name(.effects)], message: "heterogeneity needs at least 2 strata, got \(effects.count)")
    }
    for (k, (d, se)) in zip(effects, standardErrors).enumerated() where !d.isFinite || !se.isFinite || se <= 0 {
      throw StatsError(
        .invalidParameter, field: [.name(.strata), .index(k)], message: "effect \(d) with standard error \(se)",
        hint: "every stratum needs a finite effect and a positive standard error")
    }
    let weights = standardErrors.map { 1 / ($0 * $0) }
    let totalWeight = weights.reduce(0, +)
    let pooled = zip(weights, effects).reduce(0) { $0 + $1.0 * $1.1 } / totalWeight
    let q = zip(weights, effects).reduce(0) { $0 + $1.0 * ($1.1 - pooled) * ($1.1 - pooled) }
    let df = Double(effects.count - 1)
    let p = ChiSquared(degreesOfFreedom: df).sf(q)
    return Result(
      test: TestResult(statistic: q, pValue: p, alternative: .twoSided, degreesOfFreedom: df, method: methodName),
      pooledEffect: pooled, pooledStandardError: (1 / totalWeight).squareRoot(), iSquared: q > 0 ? max(0, (q - df) / q) : 0)
  }
}
