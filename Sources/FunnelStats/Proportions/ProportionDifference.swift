import Foundation

/// An estimate with its confidence interval; either may be unavailable (with a diagnostic).
public struct IntervalEstimate: Sendable, Hashable, Codable {
  /// The point estimate, `nil` when undefined (e.g. a ratio over zero).
  public var estimate: Double?
  /// The interval, `nil` when undefined.
  public var interval: ConfidenceInterval?
  /// Why something is unavailable.
  public var diagnostic: Diagnostic?

  /// Creates an estimate.
  public init(estimate: Double?, interval: ConfidenceInterval?, diagnostic: Diagnostic? = nil) {
    self.estimate = estimate
    self.interval = interval
    self.diagnostic = diagnostic
  }
}

/// The difference of two proportions `p̂₁ − p̂₀` with Newcombe's hybrid score interval.
public enum ProportionDifference {
  /// Newcombe's hybrid score interval (Newcombe 1998, method 10), as statsmodels
  /// `confint_proportions_2indep(method="newcomb", compare="diff")`:
  ///
  /// ```
  /// [l₁,u₁], [l₀,u₀] = Wilson intervals
  /// L = d − √((p̂₁−l₁)² + (u₀−p̂₀)²),   U = d + √((u₁−p̂₁)² + (p̂₀−l₀)²),   d = p̂₁ − p̂₀
  /// ```
  /// Well behaved at 0 and 1 and in small samples, unlike the Wald interval.
  ///
  /// - Throws: ``StatsError`` `.emptyArm` if either arm has no trials.
  /// - Complexity: O(1).
  public static func newcombeInterval(
    treatment: ProportionCount, control: ProportionCount, confidenceLevel: Double = 0.95
  ) throws(StatsError) -> IntervalEstimate {
    guard treatment.trials > 0 else {
      throw StatsError(.emptyArm, field: [.name(.treatment), .name(.trials)], message: "has no users")
    }
    guard control.trials > 0 else {
      throw StatsError(.emptyArm, field: [.name(.control), .name(.trials)], message: "has no users")
    }
    let w1 = try ProportionInterval.wilson(treatment, confidenceLevel: confidenceLevel)
    let w0 = try ProportionInterval.wilson(control, confidenceLevel: confidenceLevel)
    let p1 = Double(treatment.successes) / Double(treatment.trials)
    let p0 = Double(control.successes) / Double(control.trials)
    let d = p1 - p0
    let lowerDistance = ((p1 - w1.lower) * (p1 - w1.lower) + (w0.upper - p0) * (w0.upper - p0)).squareRoot()
    let upperDistance = ((w1.upper - p1) * (w1.upper - p1) + (p0 - w0.lower) * (p0 - w0.lower)).squareRoot()
    return IntervalEstimate(
      estimate: d,
      interval: ConfidenceInterval(
        lower: d - lowerDistance, upper: d + upperDistance, confidenceLevel: confidenceLevel,
        method: "newcombe hybrid score"))
  }
}

extension ProportionDifference {
  /// The method name carried by Miettinen–Nurminen intervals.
  public static let miettinenNurminenMethod = "miettinen-nurminen score"

  /// The Miettinen–Nurminen score interval (Miettinen & Nurminen 1985): every difference
  /// `δ` that ``TwoProportionScoreTest`` does not reject at `α = 1 − confidenceLevel`, as
  /// statsmodels `confint_proportions_2indep(method="score", compare="diff")` with its
  /// default `correction=True` (see ``TwoProportionScoreTest`` for the statsmodels defect it
  /// avoids):
  ///
  /// ```
  /// two-sided:  [L, U] with z(L) = z_{1−α/2}, z(U) = −z_{1−α/2}
  /// greater:    [L, 1] with z(L) = z_{1−α};   less: [−1, U] with z(U) = −z_{1−α}
  /// ```
  /// A bound that no difference in [−1, 1] reaches is −1 or 1. Because the interval is the
  /// inverted test, zero lies outside it exactly when the score test of equality rejects at α
  /// (the pair used by ``ControlComparison``). Good coverage at 0 and 1 and in small samples.
  ///
  /// - Throws: ``StatsError`` `.emptyArm` if either arm has no trials, or an invalid level.
  /// - Complexity: two bisections of ~100 score evaluations each.
  public static func miettinenNurminenInterval(
    treatment: ProportionCount, control: ProportionCount, confidenceLevel: Double = 0.95,
    alternative: Alternative = .twoSided, smallSampleCorrection: Bool = true
  ) throws(StatsError) -> IntervalEstimate {
    try checkLevel(confidenceLevel)
    try TwoProportionScoreTest.checkArms(treatment, control)
    let d = TwoProportionScoreTest.difference(treatment, control)
    let critical = _ScoreInversion.critical(confidenceLevel: confidenceLevel, alternative: alternative)
    func z(_ v: Double) -> Double {
      let s = TwoProportionScoreTest.differenceStatistic(treatment, control, difference: v, correction: smallSampleCorrection)
      return s.isNaN ? 0 : s
    }
    var lower = -1.0
    var upper = 1.0
    if alternative != .less {
      lower = _MonotoneRoot.solve(lower: -1, upper: d) { z($0) - critical } ?? -1
    }
    if alternative != .greater {
      upper = _MonotoneRoot.solve(lower: d, upper: 1) { z($0) + critical } ?? 1
    }
    return IntervalEstimate(
      estimate: d,
      interval: ConfidenceInterval(
        lower: lower, upper: upper, confidenceLevel: confidenceLevel, method: miettinenNurminenMethod))
  }
}

/// Shared pieces of inverting a score test into an interval.
enum _ScoreInversion {
  /// `z_{1−α/2}` for a two-sided interval, `z_{1−α}` for a one-sided one.
  static func critical(confidenceLevel: Double, alternative: Alternative) -> Double {
    let alpha = 1 - confidenceLevel
    let tail = alternative == .twoSided ? alpha / 2 : alpha
    return -Normal.standardQuantile(p: tail, q: 1 - tail)
  }
}
