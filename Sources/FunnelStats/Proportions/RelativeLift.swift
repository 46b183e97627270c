import Foundation

/// The relative lift `p̂₁/p̂₀ − 1` with a delta-method interval on the log ratio.
public enum RelativeLift {
  /// The lift and its interval, as statsmodels
  /// `confint_proportions_2indep(method="log", compare="ratio")` minus one:
  ///
  /// ```
  /// r = p̂₁/p̂₀,   Var(log r) ≈ 1/x₁ − 1/n₁ + 1/x₀ − 1/n₀   (delta method)
  /// lift ∈ exp(log r ± z √Var) − 1
  /// ```
  /// Asymmetric around the estimate, never below −100 %. Needs at least one success in each
  /// arm: otherwise the estimate or the interval is `nil` with ``Diagnostic/undefinedRatio``.
  ///
  /// - Throws: ``StatsError`` `.emptyArm` if either arm has no trials.
  /// - Complexity: O(1).
  public static func interval(
    treatment: ProportionCount, control: ProportionCount, confidenceLevel: Double = 0.95
  ) throws(StatsError) -> IntervalEstimate {
    try checkLevel(confidenceLevel)
    try TwoProportionScoreTest.checkArms(treatment, control)
    let x1 = Double(treatment.successes)
    let n1 = Double(treatment.trials)
    let x0 = Double(control.successes)
    let n0 = Double(control.trials)
    guard x0 > 0 else {
      return IntervalEstimate(estimate: nil, interval: nil, diagnostic: .undefinedRatio)
    }
    let ratio = (x1 / n1) / (x0 / n0)
    guard x1 > 0 else {
      return IntervalEstimate(estimate: ratio - 1, interval: nil, diagnostic: .undefinedRatio)
    }
    let variance = 1 / x1 - 1 / n1 + 1 / x0 - 1 / n0
    let alpha = 1 - confidenceLevel
    let z = -Normal.standardQuantile(p: alpha / 2, q: 1 - alpha / 2)
    let half = z * max(variance, 0).squareRoot()
    let logRatio = log(ratio)
    return IntervalEstimate(
      estimate: ratio - 1,
      interval: ConfidenceInterval(
        lower: expm1(logRatio - half), upper: expm1(logRatio + half),
        confidenceLevel: confidenceLevel, method: "delta method on log ratio"))
  }
}

extension RelativeLift {
  /// The method name carried by score intervals of the ratio.
  public static let scoreMethod = "score (ratio)"

  /// The relative lift `p̂₁/p̂₀ − 1` with the score interval of the ratio (Koopman 1984,
  /// Miettinen & Nurminen 1985) minus one: every ratio `ρ` that ``TwoProportionScoreTest``
  /// (`comparison: .ratio`) does not reject at `α = 1 − confidenceLevel`, as statsmodels
  /// `confint_proportions_2indep(method="score", compare="ratio")` with its default
  /// `correction=True`, found by bisection on the test rather than statsmodels' cubic, whose
  /// roots it picks wrongly at some edges (all or no successes):
  ///
  /// ```
  /// two-sided:  [L, U] − 1 with z(L) = z_{1−α/2}, z(U) = −z_{1−α/2}
  /// greater:    [L, ∞) − 1;   less: [0, U] − 1
  /// ```
  /// No control successes: the estimate is `nil` (``Diagnostic/undefinedRatio``) and the
  /// upper bound is `+∞`; no treatment successes: the lower bound is −100 %. Because the
  /// score test of `ρ = 1` is the score test of `δ = 0`, this interval excludes 0 exactly
  /// when ``ProportionDifference/miettinenNurminenInterval(treatment:control:confidenceLevel:alternative:smallSampleCorrection:)``
  /// does.
  ///
  /// - Throws: ``StatsError`` `.emptyArm` if either arm has no trials, or an invalid level.
  /// - Complexity: two bisections of ~100 O(1) score evaluations each.
  public static func scoreInterval(
    treatment: ProportionCount, control: ProportionCount, confidenceLevel: Double = 0.95,
    alternative: Alternative = .twoSided, smallSampleCorrection: Bool = true
  ) throws(StatsError) -> IntervalEstimate {
    try checkLevel(confidenceLevel)
    try TwoProportionScoreTest.checkArms(treatment, control)
    let x1 = Double(treatment.successes)
    let x0 = Double(control.successes)
    let lift = TwoProportionScoreTest.lift(treatment, control)
    let critical = _ScoreInversion.critical(confidenceLevel: confidenceLevel, alternative: alternative)
    // The statistic of a ratio given by its lift ℓ = r − 1 (exact for ratios near 1) …
    func z(lift l: Double) -> Double {
      let s = TwoProportionScoreTest.ratioStatistic(treatment, control, ratio: 1 + l, lift: l, correction: smallSampleCorrection)
      return s.isNaN ? 0 : s
    }
    // … or by the ratio itself (exact near 0).
    func z(ratio r: Double) -> Double {
      let s = TwoProportionScoreTest.ratioStatistic(treatment, control, ratio: r, lift: r - 1, correction: smallSampleCorrection)
      return s.isNaN ? 0 : s
    }
    let largest = 1e100
    let center = min(lift ?? largest, largest)
    var lower = -1.0
    var upper = Double.infinity
    if alternative != .less, x1 > 0 {
      if center > -0.5, z(lift: -0.5) > critical {
        lower = _MonotoneRoot.solve(lower: -0.5, upper: center) { z(lift: $0) - critical } ?? -1
      } else {
        let r = _MonotoneRoot.solve(lower: 1e-100, upper: min(0.5, center + 1)) { z(ratio: $0) - critical } ?? 0
        lower = r - 1
      }
    }
    if alternative != .greater, x0 > 0 {
      upper = _MonotoneRoot.solve(lower: center, upper: largest) { z(lift: $0) + critical } ?? .infinity
    }
    return IntervalEstimate(
      estimate: lift,
      interval: ConfidenceInterval(lower: lower, upper: upper, confidenceLevel: confidenceLevel, method: scoreMethod),
      diagnostic: lift == nil ? .undefinedRatio : nil)
  }
}
