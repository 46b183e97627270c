import Foundation

/// The asymptotic confidence sequence of Waudby-Smith, Arbour, Sinha, Kennedy & Ramdas (2023)
/// for the difference of two means or proportions, as GrowthBook's sequential testing
/// computes it (`gbstats`, `SequentialTwoSidedTTest`): valid at every look at once, so a
/// running test can be read every day.
///
/// With `N = n₀ + n₁` users so far, the estimate `θ̂` (the absolute difference `m₁ − m₀`, or
/// the relative lift `(m₁ − m₀)/m₀`), its delta-method variance `V` and `s² = N·V`:
///
/// ```
/// ρ² = (−2 log α + log(1 − 2 log α)) / n*                     tuning: n* (default 5,000)
/// half-width = √s² · √( 2(Nρ² + 1) / (N²ρ²) · log(√(Nρ² + 1) / α) )
/// e-value    = exp(ρ² · N(θ̂ − θ₀)²/V / (2(Nρ² + 1))) / √(Nρ² + 1)
/// p-value    = min(1, 1/e-value)
/// ```
/// (eqs. 9, 155 and 161 of arXiv:2103.06476v7). `ρ` makes the sequence tightest at `N = n*`
/// users; the guarantee holds for any `n*`, only the width depends on it. The variance is
/// gbstats': `V = v₁/n₁ + v₀/n₀` for the difference and
/// `V = v₁/(m₀² n₁) + v₀ m₁²/(m₀⁴ n₀)` for the relative lift, with `v = p(1 − p)` for a
/// proportion and the sample variance (divisor `n − 1`) for a mean.
///
/// The p-value at one look is gbstats'; ``SequentialAnalysis`` reports its running minimum,
/// which is the always-valid p-value (Ville's inequality). Asymptotic: use with at least a
/// few hundred users and a few conversions per arm. Compare ``AlwaysValidProportionTest``
/// (mSPRT, a normal mixture on the absolute difference).
///
/// - Complexity: O(1).
public struct AsymptoticConfidenceSequence: Sendable, Hashable, Codable {
  /// Settings with documented defaults.
  public struct Settings: Sendable, Hashable, Codable {
    /// Significance level α; the sequence covers with probability `1 − α` at all looks.
    /// Default 0.05.
    public var alpha: Double
    /// The tuning parameter `n*`: the number of users at which the sequence is tightest.
    /// Default 5,000 (gbstats' default).
    public var tuningParameter: Double
    /// The estimand: the relative lift `(m₁ − m₀)/m₀` (gbstats' default) or the difference.
    /// Default `true`.
    public var relative: Bool
    /// The null value `θ₀` of the p-value. Default 0.
    public var nullValue: Double

    /// Creates settings.
    public init(alpha: Double = 0.05, tuningParameter: Double = 5_000, relative: Bool = true, nullValue: Double = 0) {
      self.alpha = alpha
      self.tuningParameter = tuningParameter
      self.relative = relative
      self.nullValue = nullValue
    }
  }

  /// The estimate `θ̂`.
  public var estimate: Double
  /// The delta-method variance `V` of the estimate.
  public var variance: Double
  /// The confidence sequence at this look.
  public var interval: ConfidenceInterval
  /// `min(1, 1/e-value)` at this look (not yet a running minimum).
  public var pValue: Double

  /// `ρ` of eq. 161 for level α and tuning parameter `n*`.
  public static func rho(alpha: Double, tuningParameter: Double) -> Double {
    let twiceLog = -2 * log(alpha)
    return ((twiceLog + log(twiceLog + 1)) / tuningParameter).squareRoot()
  }

  /// The sequence for proportions (control first).
  ///
  /// - Returns: `nil` when the control's rate is zero (relative) or either arm's variance is
  ///   zero (no user or every user converted), as gbstats.
  /// - Throws: ``StatsError`` for invalid settings.
  public static func proportions(control: ProportionCount, treatment: ProportionCount, settings: Settings = Settings())
    throws(StatsError) -> AsymptoticConfidenceSequence?
  {
    guard let p0 = control.rate, let p1 = treatment.rate else { return nil }
    return try make(
      mean0: p0, variance0: p0 * (1 - p0), n0: Double(control.trials), mean1: p1, variance1: p1 * (1 - p1),
      n1: Double(treatment.trials), settings: settings)
  }

  /// The sequence for means of per-user values (control first).
  ///
  /// - Returns: `nil` when an arm has fewer than two users, the control's mean is zero
  ///   (relative) or either arm's variance is zero, as gbstats.
  /// - Throws: ``StatsError`` for invalid settings.
  public static func means(control: SampleMeanStatistic, treatment: SampleMeanStatistic, settings: Settings = Settings())
    throws(StatsError) -> AsymptoticConfidenceSequence?
  {
    guard let m0 = control.mean, let m1 = treatment.mean, let v0 = control.variance, let v1 = treatment.variance else {
      return nil
    }
    return try make(
      mean0: m0, variance0: v0, n0: Double(control.n), mean1: m1, variance1: v1, n1: Double(treatment.n), settings: settings)
  }

  /// A tuning parameter as written in a method's name: `5000` for 5,000.0, `2500.5` otherwise.
  public static func tuningText(_ x: Double) -> String {
    if let whole = Int(rounding: x), Double(whole) == x { return String(whole) }
    return "\(x)"
  }

  private static func make(
    mean0: Double, variance0: Double, n0: Double, mean1: Double, variance1: Double, n1: Double, settings: Settings
  ) throws(StatsError) -> AsymptoticConfidenceSequence? {
    try checkLevel(settings.alpha, field: [.name(.settings), .name(.alpha)])
    guard settings.tuningParameter > 0, settings.tuningParameter.isFinite else {
      throw StatsError(.invalidParameter, field: [.name(.settings), .name(.tuningParameter)], message: "must be positive and finite")
    }
    guard settings.nullValue.isFinite else {
      throw StatsError(.invalidParameter, field: [.name(.settings), .name(.nullValue)], message: "must be finite")
    }
    // As gbstats: no result while either arm's own variance is zero (all or none converted).
    guard variance0 > 0, variance1 > 0 else { return nil }
    if settings.relative, mean0 == 0 { return nil }
    let estimate = settings.relative ? (mean1 - mean0) / mean0 : mean1 - mean0
    let variance =
      settings.relative
      ? variance1 / (mean0 * mean0 * n1) + variance0 * mean1 * mean1 / (mean0 * mean0 * mean0 * mean0 * n0)
      : variance1 / n1 + variance0 / n0
    guard variance > 0, variance.isFinite else { return nil }
    let n = n0 + n1
    let rho = rho(alpha: settings.alpha, tuningParameter: settings.tuningParameter)
    let nrho2 = n * rho * rho
    let s2 = variance * n
    let half = s2.squareRoot() * (2 * (nrho2 + 1) * log((nrho2 + 1).squareRoot() / settings.alpha) / (n * nrho2)).squareRoot()
    let d = estimate - settings.nullValue
    let st2 = d * d * n / variance
    let logE = rho * rho * st2 / (2 * (nrho2 + 1)) - 0.5 * log(nrho2 + 1)
    return AsymptoticConfidenceSequence(
      estimate: estimate, variance: variance,
      interval: ConfidenceInterval(
        lower: estimate - half, upper: estimate + half, confidenceLevel: 1 - settings.alpha,
        method: "asymptotic confidence sequence (Waudby-Smith et al. 2023, n* = \(tuningText(settings.tuningParameter)))"),
      pValue: min(1, exp(-logE)))
  }
}
