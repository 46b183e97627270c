import Foundation

/// Relative lifts whose intervals agree with the test of the difference beside them.
///
/// Fieller's interval for a ratio `ρ = μ₁/μ₀` is every `ρ` whose linear contrast
/// `m₁ − ρ m₀` is not significant:
///
/// ```
/// (m₁ − ρ m₀)² ≤ k² · V(ρ),   V(ρ) = v₁₁ − 2ρ v₁₀ + ρ² v₀₀
/// ```
/// with `v` the variances and covariance of the estimates `m` and `k` the critical value of
/// the difference's own test. At `ρ = 1` the inequality *is* that test (`V(1)` is the
/// variance of `m₁ − m₀`), so the lift's interval excludes 0 exactly when the test of the
/// difference rejects at the same level — unlike the delta method on the log ratio, which
/// can disagree with the test near the boundary. The interval is asymmetric around the
/// estimate, as a ratio's should be; it is unbounded (reported as `nil` with
/// ``Diagnostic/undefinedRatio``) when the control's value itself is not significantly
/// different from zero (`m₀² ≤ k² v₀₀`).
///
/// Fieller, E. C. (1954). *Some problems in interval estimation*. JRSS B 16, 175–185.
extension RelativeLift {
  /// The method name of ``pairedInterval(_:confidenceLevel:)``.
  public static let pairedMethod = "Fieller (paired, McNemar)"
  /// The method name of ``welchInterval(treatment:control:confidenceLevel:)``.
  public static let welchMethod = "Fieller (Welch)"
  /// The method name of ``pairedMeanInterval(treatment:control:differences:confidenceLevel:)``.
  public static let pairedMeanMethod = "Fieller (paired t)"

  /// The lift of paired proportions (the same units under both arms) from their 2×2 table:
  /// Fieller's interval with the variance McNemar's score test uses. With `a` units
  /// successful in both arms, `x₁ = a + b` and `x₀ = a + c` successes,
  ///
  /// ```
  /// (x₁ − ρ x₀)² ≤ z² (x₁ − 2ρ a + ρ² x₀)
  /// ```
  /// which at `ρ = 1` is McNemar's `(b − c)² ≤ z² (b + c)`: the interval excludes 0 exactly
  /// when ``PairedProportionDifference/mcnemarTest(_:alternative:nullDifference:)`` rejects
  /// at `1 − confidenceLevel` (two-sided). Without discordant pairs (where that quadratic
  /// shrinks to the point 0) the interval is Tango's for the difference divided by the
  /// control's rate, so it keeps the width the sample size allows.
  ///
  /// - Returns: the lift `x₁/x₀ − 1` with its interval; `nil` estimate without control
  ///   successes.
  /// - Throws: ``StatsError`` for an empty table or a level outside (0, 1).
  public static func pairedInterval(_ table: PairedProportionCount, confidenceLevel: Double = 0.95) throws(StatsError)
    -> IntervalEstimate
  {
    try checkLevel(confidenceLevel)
    guard table.pairs > 0 else { throw StatsError(.emptyArm, field: [.name(.table)], message: "has no pairs") }
    let x1 = Double(table.treatmentOnly + table.both)
    let x0 = Double(table.controlOnly + table.both)
    if table.discordant == 0, x0 > 0 {
      // Identical outcomes in every pair: the quadratic collapses to the point 0; the width
      // Tango's interval keeps for this table, over the control's rate, is reported instead.
      let tango = try PairedProportionDifference.tangoInterval(table, confidenceLevel: confidenceLevel)
      let rate = x0 / Double(table.pairs)
      return IntervalEstimate(
        estimate: 0,
        interval: tango.interval.map {
          ConfidenceInterval(lower: $0.lower / rate, upper: $0.upper / rate, confidenceLevel: confidenceLevel, method: pairedMethod)
        })
    }
    return fieller(
      Moments(
        treatment: x1, control: x0, difference: Double(table.treatmentOnly - table.controlOnly),
        treatmentVariance: x1, controlVariance: x0, differenceVariance: Double(table.discordant)),
      critical: normalCritical(confidenceLevel), confidenceLevel: confidenceLevel, method: pairedMethod)
  }

  /// The lift of two independent means: Fieller's interval with the critical value of
  /// ``WelchTTest`` (Welch–Satterthwaite degrees of freedom), so it excludes 0 exactly
  /// when Welch's two-sided test rejects at `1 − confidenceLevel`.
  ///
  /// - Returns: `x̄₁/x̄₀ − 1` with its interval; `nil` estimate when the control's mean is 0,
  ///   `nil` interval (``Diagnostic/insufficientData``) with fewer than two observations in
  ///   an arm.
  /// - Throws: ``StatsError`` for invalid statistics or a level outside (0, 1).
  public static func welchInterval(
    treatment: SampleMeanStatistic, control: SampleMeanStatistic, confidenceLevel: Double = 0.95
  ) throws(StatsError) -> IntervalEstimate {
    let welch = try WelchTTest.test(treatment: treatment, control: control, confidenceLevel: confidenceLevel)
    guard let m1 = treatment.mean, let m0 = control.mean, let s1 = treatment.variance, let s0 = control.variance else {
      return IntervalEstimate(estimate: lift(treatment.mean, control.mean), interval: nil, diagnostic: .insufficientData)
    }
    let v1 = s1 / Double(treatment.n)
    let v0 = s0 / Double(control.n)
    let moments = Moments(
      treatment: m1, control: m0, difference: m1 - m0, treatmentVariance: v1, controlVariance: v0, differenceVariance: v1 + v0)
    return fieller(
      moments, critical: tCritical(welch.test.degreesOfFreedom, confidenceLevel), confidenceLevel: confidenceLevel,
      method: welchMethod)
  }

  /// The lift of paired means (the same units under both arms): Fieller's interval from
  /// each arm's statistic and the statistic of the per-unit differences (which carries the
  /// covariance), with the critical value of ``PairedTTest``, so it excludes 0 exactly when
  /// the paired t-test rejects at `1 − confidenceLevel` (two-sided).
  ///
  /// - Returns: `x̄₁/x̄₀ − 1` with its interval; `nil` estimate when the control's mean is 0,
  ///   `nil` interval (``Diagnostic/insufficientData``) with fewer than two pairs.
  /// - Throws: ``StatsError`` for invalid statistics, arms and differences of different
  ///   sizes, or a level outside (0, 1).
  public static func pairedMeanInterval(
    treatment: SampleMeanStatistic, control: SampleMeanStatistic, differences: SampleMeanStatistic,
    confidenceLevel: Double = 0.95
  ) throws(StatsError) -> IntervalEstimate {
    try treatment.validate(field: [.name(.treatment)])
    try control.validate(field: [.name(.control)])
    try differences.validate(field: [.name(.differences)])
    try checkLevel(confidenceLevel)
    guard treatment.n == control.n, treatment.n == differences.n else {
      throw StatsError(
        .invalidParameter, field: [.name(.differences), .name(.n)], message: "must equal both arms' n (one difference per pair)")
    }
    guard let m1 = treatment.mean, let m0 = control.mean, let d = differences.mean,
      let s1 = treatment.variance, let s0 = control.variance, let sd = differences.variance
    else {
      return IntervalEstimate(estimate: lift(treatment.mean, control.mean), interval: nil, diagnostic: .insufficientData)
    }
    let n = Double(differences.n)
    let moments = Moments(
      treatment: m1, control: m0, difference: d, treatmentVariance: s1 / n, controlVariance: s0 / n,
      differenceVariance: sd / n)
    return fieller(
      moments, critical: tCritical(n - 1, confidenceLevel), confidenceLevel: confidenceLevel, method: pairedMeanMethod)
  }
}

extension RelativeLift {
  /// Two estimates and their (co)variances: `v₁₀` is implied by
  /// `differenceVariance = v₁₁ − 2 v₁₀ + v₀₀`, which is given directly because for paired
  /// data it is far smaller than either arm's variance and must not be rebuilt from them.
  struct Moments {
    var treatment: Double
    var control: Double
    /// `m₁ − m₀`, given directly (exact for counts, the mean of the differences for pairs).
    var difference: Double
    var treatmentVariance: Double
    var controlVariance: Double
    var differenceVariance: Double
  }

  /// Fieller's interval in the lift `r = ρ − 1`, solved around the estimate `r̂ = Δ/m₀` to
  /// avoid cancellation: with `ρ = ρ̂ + u` the inequality is the quadratic
  /// `A u² − 2 k² g u − k² V̂ ≤ 0`, `A = m₀² − k² v₀₀`, `g = ρ̂ v₀₀ − v₁₀`, `V̂ = V(ρ̂) ≥ 0`,
  /// whose roots straddle 0 when `A > 0`.
  static func fieller(_ m: Moments, critical k: Double, confidenceLevel: Double, method: String) -> IntervalEstimate {
    guard m.control != 0, m.control.isFinite, m.treatment.isFinite else {
      return IntervalEstimate(estimate: nil, interval: nil, diagnostic: .undefinedRatio)
    }
    let r = m.difference / m.control
    let v00 = m.controlVariance
    // v₀₀ − v₁₀, from the difference's variance without subtracting two large variances' sum.
    let controlExcess = (v00 - m.treatmentVariance + m.differenceVariance) / 2
    let g = r * v00 + controlExcess
    let varianceAtEstimate = max(m.differenceVariance + r * (r * v00 + 2 * controlExcess), 0)
    let k2 = k * k
    let a = m.control * m.control - k2 * v00
    guard a > 0, k2.isFinite else { return IntervalEstimate(estimate: r, interval: nil, diagnostic: .undefinedRatio) }
    let root = (k2 * k2 * g * g + a * k2 * varianceAtEstimate).squareRoot()
    // The smaller-magnitude root from the product of the roots (−k² V̂ / A), without cancellation.
    let big = k2 * g + (g >= 0 ? root : -root)
    let small = big == 0 ? 0 : -k2 * varianceAtEstimate / big
    let (lowerStep, upperStep) = g >= 0 ? (small, big / a) : (big / a, small)
    return IntervalEstimate(
      estimate: r,
      interval: ConfidenceInterval(
        lower: r + lowerStep, upper: r + upperStep, confidenceLevel: confidenceLevel, method: method))
  }

  /// `m₁/m₀ − 1`, or `nil` when either is missing or the control's is 0.
  static func lift(_ treatment: Double?, _ control: Double?) -> Double? {
    guard let treatment, let control, control != 0 else { return nil }
    return (treatment - control) / control
  }

  /// `z₁₋α/₂` of the standard normal.
  static func normalCritical(_ level: Double) -> Double {
    let alpha = 1 - level
    return -Normal.standardQuantile(p: alpha / 2, q: 1 - alpha / 2)
  }

  /// `t_{ν, 1−α/2}`; the normal's when `ν` is missing or infinite.
  static func tCritical(_ degreesOfFreedom: Double?, _ level: Double) -> Double {
    guard let df = degreesOfFreedom, df.isFinite, df > 0 else { return normalCritical(level) }
    let alpha = 1 - level
    return StudentT(degreesOfFreedom: df).quantile(p: 1 - alpha / 2, q: alpha / 2)
  }
}
