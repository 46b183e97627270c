import Foundation

/// An always-valid test and confidence sequence for the difference of two proportions: the
/// mixture sequential probability ratio test (mSPRT) with a normal mixing distribution, on
/// the normal approximation of `θ̂ = p̂₁ − p̂₀`.
///
/// With `V = p̂₁(1−p̂₁)/n₁ + p̂₀(1−p̂₀)/n₀` and mixing variance `τ²`:
///
/// ```
/// Λ = √(V/(V+τ²)) · exp(τ² (θ̂ − θ₀)² / (2V(V+τ²)))          mixture likelihood ratio
/// always-valid p-value  pₙ = min(pₙ₋₁, 1/Λₙ)                  (non-increasing)
/// confidence sequence  θ̂ ± √( V(V+τ²)/τ² · (log((V+τ²)/V) − 2 log α) )
/// ```
/// Johari, Koomen, Pekelis & Walsh (2017), *Peeking at A/B Tests*; Robbins (1970). Valid
/// under continuous monitoring: `P(ever rejecting H₀) ≤ α` however often you look, at the
/// price of wider intervals than a fixed-horizon test at the same n. Choose `τ` near the
/// effect size you hope to detect (default 0.01, one percentage point); the guarantee holds
/// for any τ, only power depends on it. Asymptotic: use with at least ~100 users and a few
/// conversions per arm.
///
/// Use it when the experiment is watched on a dashboard and may be stopped at any time; use
/// ``GroupSequentialDesign`` when the looks are few and planned.
///
/// - Complexity: O(1) per update.
public struct AlwaysValidProportionTest: Sendable, Hashable, Codable {
  /// Settings with documented defaults.
  public struct Settings: Sendable, Hashable, Codable {
    /// Significance level α. Default 0.05.
    public var alpha: Double
    /// Standard deviation τ of the normal mixing distribution on the difference. Default 0.01.
    public var mixingStandardDeviation: Double
    /// The null difference θ₀. Default 0.
    public var nullDifference: Double

    /// Creates settings.
    public init(alpha: Double = 0.05, mixingStandardDeviation: Double = 0.01, nullDifference: Double = 0) {
      self.alpha = alpha
      self.mixingStandardDeviation = mixingStandardDeviation
      self.nullDifference = nullDifference
    }
  }

  /// One look's result.
  public struct Look: Sendable, Hashable, Codable {
    /// `p̂₁ − p̂₀`.
    public var difference: Double
    /// The mixture likelihood ratio Λ.
    public var likelihoodRatio: Double
    /// The always-valid p-value (running minimum of `1/Λ`).
    public var pValue: Double
    /// The confidence sequence at this look, `nil` while the variance is zero.
    public var confidenceSequence: ConfidenceInterval?
    /// Whether H₀ is rejected (`pValue ≤ α`).
    public var rejected: Bool
    /// Set while the data are degenerate (zero variance).
    public var diagnostic: Diagnostic?
  }

  /// The settings.
  public var settings: Settings
  /// The running always-valid p-value.
  public private(set) var pValue: Double = 1
  /// The method's name.
  public var method: String { "mSPRT (normal mixture, tau = \(settings.mixingStandardDeviation))" }

  /// Creates a monitor.
  ///
  /// - Throws: ``StatsError`` for α outside (0, 1) or a non-positive τ.
  public init(settings: Settings = Settings()) throws(StatsError) {
    try checkLevel(settings.alpha, field: [.name(.settings), .name(.alpha)])
    guard settings.mixingStandardDeviation > 0, settings.mixingStandardDeviation.isFinite else {
      throw StatsError(.invalidParameter, field: [.name(.settings), .name(.mixingStandardDeviation)], message: "must be positive")
    }
    self.settings = settings
  }

  /// Updates with the cumulative counts so far and returns this look's result.
  ///
  /// - Throws: ``StatsError`` for an arm without users.
  public mutating func update(treatment: ProportionCount, control: ProportionCount) throws(StatsError) -> Look {
    guard treatment.trials > 0, control.trials > 0 else {
      throw StatsError(.emptyArm, field: [.name(treatment.trials > 0 ? .control : .treatment)], message: "has no users yet")
    }
    let n1 = Double(treatment.trials)
    let n0 = Double(control.trials)
    let p1 = Double(treatment.successes) / n1
    let p0 = Double(control.successes) / n0
    let theta = p1 - p0
    let v = p1 * (1 - p1) / n1 + p0 * (1 - p0) / n0
    let tau2 = settings.mixingStandardDeviation * settings.mixingStandardDeviation
    guard v > 0 else {
      return Look(
        difference: theta, likelihoodRatio: 1, pValue: pValue, confidenceSequence: nil,
        rejected: pValue <= settings.alpha, diagnostic: .zeroVariance)
    }
    let d = theta - settings.nullDifference
    let logLambda = 0.5 * log(v / (v + tau2)) + tau2 * d * d / (2 * v * (v + tau2))
    pValue = min(pValue, min(1, exp(-logLambda)))
    let half = (v * (v + tau2) / tau2 * (log((v + tau2) / v) - 2 * log(settings.alpha))).squareRoot()
    return Look(
      difference: theta, likelihoodRatio: exp(min(logLambda, 700)), pValue: pValue,
      confidenceSequence: ConfidenceInterval(
        lower: theta - half, upper: theta + half, confidenceLevel: 1 - settings.alpha,
        method: "mSPRT confidence sequence"),
      rejected: pValue <= settings.alpha)
  }
}
