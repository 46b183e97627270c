import Foundation

/// Bayesian comparison of means (revenue per user) by the normal approximation.
///
/// With a flat prior, each arm's mean has approximate posterior `N(x̄, s²/n)` (CLT); the
/// difference `D = μ_t − μ_c ~ N(m, σ²)` with `m = x̄_t − x̄_c`, `σ² = s_t²/n_t + s_c²/n_c`:
///
/// ```
/// P(μ_t > μ_c) = Φ(m/σ)
/// expected loss of shipping the treatment = E[max(−D, 0)] = σ φ(m/σ) − m Φ(−m/σ)
/// ```
/// Needs a few hundred users per arm for heavy-tailed revenue.
///
/// - Complexity: O(1).
public enum NormalPosteriorModel {
  /// The comparison's result.
  public struct Result: Sendable, Hashable, Codable {
    /// `P(μ_t > μ_c)`.
    public var probabilityToBeat: Double
    /// `E[max(μ_c − μ_t, 0)]`, in the metric's units.
    public var expectedLoss: Double
    /// Posterior mean of the difference.
    public var meanDifference: Double
    /// Posterior standard deviation of the difference.
    public var standardDeviation: Double
    /// Set for degenerate input (fewer than two users in an arm, zero variance).
    public var diagnostic: Diagnostic?
  }

  /// Compares treatment with control.
  ///
  /// - Throws: ``StatsError`` for invalid statistics.
  public static func compare(treatment: SampleMeanStatistic, control: SampleMeanStatistic)
    throws(StatsError) -> Result
  {
    try treatment.validate(field: [.name(.treatment)])
    try control.validate(field: [.name(.control)])
    guard let vt = treatment.variance, let vc = control.variance,
      let mt = treatment.mean, let mc = control.mean
    else {
      return Result(
        probabilityToBeat: 0.5, expectedLoss: 0, meanDifference: 0, standardDeviation: 0,
        diagnostic: .insufficientData)
    }
    let m = mt - mc
    let s = (vt / Double(treatment.n) + vc / Double(control.n)).squareRoot()
    guard s > 0 else {
      return Result(
        probabilityToBeat: m > 0 ? 1 : (m < 0 ? 0 : 0.5), expectedLoss: max(-m, 0),
        meanDifference: m, standardDeviation: 0, diagnostic: .zeroVariance)
    }
    let z = m / s
    let loss = s * Normal.standard.pdf(z) - m * Normal.standardCDF(-z)
    return Result(
      probabilityToBeat: Normal.standardCDF(z), expectedLoss: max(0, loss), meanDifference: m,
      standardDeviation: s)
  }

  /// `P(μ_j > μ_i for all i ≠ j)` for each arm j under the normal posteriors `N(x̄, s²/n)`:
  ///
  /// ```
  /// P(j best) = ∫ φ_j(x) Π_{i≠j} Φ_i(x) dx
  /// ```
  /// by adaptive Gauss–Legendre quadrature over ±12 posterior standard deviations of arm j
  /// (1e-11 relative). An arm with zero variance is treated as a normal with a standard
  /// deviation of 10⁻¹² of its mean's magnitude (or 10⁻¹²), i.e. nearly a point.
  ///
  /// - Throws: ``StatsError`` for no arms, invalid statistics or an arm with fewer than two
  ///   users.
  /// - Complexity: O(k²) normal CDFs per quadrature node for k arms.
  public static func probabilityToBeBest(_ arms: [SampleMeanStatistic]) throws(StatsError) -> [Double] {
    guard !arms.isEmpty else {
      throw StatsError(.emptyArm, field: [.name(.arms)], message: "needs at least one arm")
    }
    var posteriors: [Normal] = []
    for (i, arm) in arms.enumerated() {
      try arm.validate(field: [.name(.arms), .index(i)])
      guard let mean = arm.mean, let variance = arm.variance else {
        throw StatsError(.emptyArm, field: [.name(.arms), .index(i), .name(.n)], message: "needs at least two users, got \(arm.n)")
      }
      let floor = 1e-12 * Swift.max(abs(mean), 1)
      posteriors.append(Normal(mean: mean, standardDeviation: Swift.max((variance / Double(arm.n)).squareRoot(), floor)))
    }
    return probabilityToBeBest(posteriors)
  }

  /// `P(j best)` for each of these normal posteriors (standard deviations > 0): the closed
  /// form `Φ((m₁ − m₀)/√(s₁² + s₀²))` for two, otherwise the integral above to `relativeTolerance`.
  static func probabilityToBeBest(_ posteriors: [Normal], relativeTolerance: Double = 1e-11) -> [Double] {
    if posteriors.count == 2 {
      let spread =
        (posteriors[0].standardDeviation * posteriors[0].standardDeviation + posteriors[1].standardDeviation
        * posteriors[1].standardDeviation).squareRoot()
      let first = Normal.standardCDF((posteriors[0].mean - posteriors[1].mean) / spread)
      return [first, Normal.standardCDF((posteriors[1].mean - posteriors[0].mean) / spread)]
    }
    return posteriors.indices.map { j in
      let f = posteriors[j]
      let points = stride(from: -12.0, through: 12, by: 2).map { f.mean + $0 * f.standardDeviation }
      let value = _Quadrature.integrate(
        { x in
          var v = f.pdf(x)
          for i in posteriors.indices where i != j && v > 0 { v *= posteriors[i].cdf(x) }
          return v
        }, breakpoints: points, relativeTolerance: relativeTolerance)
      return Swift.min(1, Swift.max(0, value))
    }
  }
}
