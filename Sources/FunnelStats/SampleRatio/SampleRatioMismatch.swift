/// Sample-ratio mismatch (SRM) check: are the arm sizes consistent with the planned
/// allocation?
///
/// Pearson's chi-square goodness of fit (scipy `chisquare(observed, expected)`):
///
/// ```
/// Eᵢ = N · wᵢ / Σw,   χ² = Σ (nᵢ − Eᵢ)² / Eᵢ,   df = k − 1,   p = Q_χ²(df)(χ²)
/// ```
/// A mismatch is flagged when `p < pValueThreshold` (default 0.001, the usual SRM alarm level,
/// strict because a broken assignment invalidates every other result) **and**, if
/// `minimumRelativeDeviation` is set, some arm deviates from its expected size by at least
/// that fraction, so that huge samples do not alarm on trivial imbalances.
///
/// Fabijan et al. (2019), *Diagnosing Sample Ratio Mismatch in Online Controlled Experiments*.
///
/// - Complexity: O(k).
public enum SampleRatioMismatch {
  /// Settings with documented defaults.
  public struct Settings: Sendable, Hashable, Codable {
    /// Flag when the goodness-of-fit p-value is below this. Default 0.001.
    public var pValueThreshold: Double
    /// Also require `max |nᵢ/Eᵢ − 1| ≥` this to flag; `nil` (default) disables the check.
    public var minimumRelativeDeviation: Double?

    /// Creates settings.
    public init(pValueThreshold: Double = 0.001, minimumRelativeDeviation: Double? = nil) {
      self.pValueThreshold = pValueThreshold
      self.minimumRelativeDeviation = minimumRelativeDeviation
    }
  }

  /// The check's result.
  public struct Result: Sendable, Hashable, Codable {
    /// χ², df = k − 1, p-value, method.
    public var test: TestResult
    /// Expected arm sizes `N wᵢ / Σw`.
    public var expected: [Double]
    /// Observed share of each arm, `nᵢ / N`.
    public var observedShares: [Double]
    /// Planned share of each arm, `wᵢ / Σw`.
    public var expectedShares: [Double]
    /// `nᵢ / Eᵢ − 1` per arm.
    public var relativeDeviations: [Double]
    /// Whether a sample-ratio mismatch is flagged.
    public var mismatch: Bool
    /// The settings used.
    public var settings: Settings
  }

  /// Checks observed arm sizes against planned weights (e.g. `[90, 10]` or `[1, 1, 1]`).
  ///
  /// - Throws: ``StatsError`` for negative sizes, non-positive weights, a length mismatch,
  ///   fewer than two arms, or no users at all.
  public static func check(observed: [Int], weights: [Double], settings: Settings = Settings())
    throws(StatsError) -> Result
  {
    guard observed.count == weights.count else {
      throw StatsError(
        .dimensionMismatch, field: [.name(.weights)],
        message: "\(weights.count) weights for \(observed.count) arms")
    }
    guard observed.count >= 2 else {
      throw StatsError(.dimensionMismatch, field: [.name(.observed)], message: "needs at least two arms")
    }
    for (i, n) in observed.enumerated() where n < 0 {
      throw StatsError(.negativeCount, field: [.name(.observed), .index(i)], message: "is negative (\(n))")
    }
    for (i, w) in weights.enumerated() where !(w > 0 && w.isFinite) {
      throw StatsError(
        .invalidParameter, field: [.name(.weights), .index(i)], message: "must be positive, got \(w)")
    }
    let total = observed.reduce(0.0) { $0 + Double($1) }
    guard total > 0 else {
      throw StatsError(.emptyArm, field: [.name(.observed)], message: "no users in any arm")
    }
    let weightSum = weights.reduce(0, +)
    let shares = weights.map { $0 / weightSum }
    let expected = shares.map { total * $0 }
    var chi2 = 0.0
    var deviations: [Double] = []
    for (n, e) in zip(observed, expected) {
      let d = Double(n) - e
      chi2 += d * d / e
      deviations.append(d / e)
    }
    let dof = Double(observed.count - 1)
    let p = ChiSquared(degreesOfFreedom: dof).sf(chi2)
    var mismatch = p < settings.pValueThreshold
    if let minimum = settings.minimumRelativeDeviation {
      mismatch = mismatch && (deviations.map { abs($0) }.max() ?? 0) >= minimum
    }
    return Result(
      test: TestResult(
        statistic: chi2, pValue: p, alternative: .twoSided, degreesOfFreedom: dof,
        method: "chi-square goodness of fit (SRM)"),
      expected: expected, observedShares: observed.map { Double($0) / total },
      expectedShares: shares, relativeDeviations: deviations, mismatch: mismatch,
      settings: settings)
  }
}
