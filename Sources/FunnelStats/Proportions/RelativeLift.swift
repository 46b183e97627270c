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
    guard treatment.trials > 0 else {
      throw StatsError(.emptyArm, field: "treatment.trials", message: "has no users")
    }
    guard control.trials > 0 else {
      throw StatsError(.emptyArm, field: "control.trials", message: "has no users")
    }
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
