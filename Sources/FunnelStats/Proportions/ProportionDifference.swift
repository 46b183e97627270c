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
      throw StatsError(.emptyArm, field: "treatment.trials", message: "has no users")
    }
    guard control.trials > 0 else {
      throw StatsError(.emptyArm, field: "control.trials", message: "has no users")
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
