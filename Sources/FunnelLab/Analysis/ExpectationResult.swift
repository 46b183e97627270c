public import FunnelStats

/// The outcome of checking one ``FunnelExpectation``, as values: what was measured
/// (``evidence``), on what basis, and each reason it failed (``failures``). FunnelReport
/// words them (`CheckRenderer`); in a test, `"\(result.failures)"` names each reason
/// with its numbers.
public struct ExpectationResult: Sendable, Hashable {
  /// The expectation with every default the check applied filled in: `users` and
  /// `alpha` of a `beats` (the spec's), its `power` (0.8), a `best`'s `probability` (0.9).
  package var expectation: FunnelExpectation
  /// The control's variant id, the reference of `lift` and `beats`.
  public var control: String
  /// Whether the measurement meets the expectation's threshold (see ``FunnelExpectation`` for each kind's rule).
  public var passed: Bool
  /// The quantity compared with the threshold: the metric value (range), the
  /// improvement over the control (lift, beats), or the probability to be best.
  public var measured: Double?
  /// The measured quantity's interval when it comes from a simulation; `nil` when exact.
  public var interval: ConfidenceInterval?
  /// Where the measurement comes from.
  public var basis: Basis
  /// What was measured besides ``measured``.
  public var evidence: Evidence
  /// Why the expectation failed, one reason per unmet condition; empty when it passed.
  public var failures: [Failure]
  /// The significance level the result used: a `beats`' α (shared among ``arms`` by
  /// Bonferroni), a simulated `best`'s interval level; `nil` when no test or interval is involved.
  public var alpha: Double?
  /// The arms compared: a `beats`' comparisons with the control, the arms a `best` ranks
  /// (control first); empty for the other kinds.
  public var arms: [String]

  /// Where a measurement comes from.
  public enum Basis: Sendable, Hashable {
    /// The exact engine: no sampling noise, the same on every run.
    case exact
    /// A simulated experiment of `usersPerArm` users per arm, seeded by `seed`.
    case experiment(usersPerArm: Int, seed: UInt64)
    /// The exact difference, and a simulated experiment as above.
    case exactAndExperiment(usersPerArm: Int, seed: UInt64)
  }

  /// What a check measured, by kind of expectation.
  public enum Evidence: Sendable, Hashable {
    /// The metric has no value (its denominator is 0 for an arm).
    case undefined
    /// `range`: the variant's exact value.
    case exactValue(Double)
    /// `lift`: the exact values of the variant and of the control.
    case exactValues(variant: Double, control: Double)
    /// `beats` and `equivalent`: the power of the planned test, and the simulated experiment when asked for.
    case power(PowerEvidence)
    /// `best` without users: the variant's exact value and the best other arm's; `nil`
    /// when the variant is the only arm with a value.
    case exactRanking(value: Double, runnerUp: RankedArm?)
    /// `best` with users: the simulated probability to be best and the variant's estimate.
    case probabilityToBeBest(Double, estimate: Double?)
  }

  /// The evidence of a `beats` or `equivalent` check.
  public struct PowerEvidence: Sendable, Hashable {
    /// The exact improvement over the control (positive = better).
    public var difference: Double
    /// The power of a pooled z-test at ``level`` with the expectation's users per arm.
    public var power: Double
    /// The comparisons with the control that share α (Bonferroni): 1 unless the expectation names `among`.
    public var comparisons: Int
    /// α / ``comparisons``.
    public var level: Double
    /// The arms whose comparisons share α, in spec order.
    public var arms: [String]
    /// The simulated experiment's improvement and adjusted p-value (an `equivalent`'s TOST p-value), when simulated.
    public var simulated: SimulatedComparison?
    /// An `equivalent`'s margin in the metric's unit (its `within`, times the control's value on
    /// the relative scale); `nil` for a `beats`.
    public var margin: Double?

    /// The evidence of a power check; see each property.
    public init(
      difference: Double, power: Double, comparisons: Int, level: Double, arms: [String] = [], simulated: SimulatedComparison? = nil
    ) {
      self.difference = difference
      self.power = power
      self.comparisons = comparisons
      self.level = level
      self.arms = arms
      self.simulated = simulated
    }
  }

  /// One simulated comparison with the control.
  public struct SimulatedComparison: Sendable, Hashable {
    /// The observed improvement over the control (positive = better).
    public var difference: Double
    /// The p-value after the spec's multiple-testing correction.
    public var adjustedPValue: Double

    /// A comparison that observed `difference` with adjusted p-value `adjustedPValue`.
    public init(difference: Double, adjustedPValue: Double) {
      self.difference = difference
      self.adjustedPValue = adjustedPValue
    }
  }

  /// An arm and a value of the metric (in the metric's own direction).
  public struct RankedArm: Sendable, Hashable {
    /// The variant id.
    public var id: String
    /// The arm's value: the exact metric, or a probability to be best.
    public var value: Double

    /// The arm `id` with `value`.
    public init(id: String, value: Double) {
      self.id = id
      self.value = value
    }
  }

  /// One reason an expectation failed, with the numbers that show it.
  public enum Failure: Sendable, Hashable {
    /// The metric has no value for the variant, the control or (simulated `best`) any arm.
    case undefined
    /// `range`: the exact `value` lies outside `[minimum, maximum]` (a missing bound is infinite).
    case outOfRange(value: Double, minimum: Double, maximum: Double)
    /// `lift`: the improvement is short of the `atLeast` wanted.
    case liftShort(improvement: Double, wanted: Double)
    /// `lift`: the variant costs more than `costsAtMost` allows.
    case costsTooMuch(cost: Double, allowed: Double)
    /// `lift`: the improvement exceeds the `atMost` allowed.
    case liftTooLarge(improvement: Double, allowed: Double)
    /// `lift`: the variant costs less than the `costsAtLeast` expected (a negative cost is an improvement).
    case costsTooLittle(cost: Double, wanted: Double)
    /// `lift` and `equivalent`: the exact difference lies outside `[-margin, margin]` (`within`).
    case notEquivalent(improvement: Double, margin: Double)
    /// `beats`: the variant's exact value is not better than the control's.
    case notBetter(variant: Double, control: Double)
    /// `beats`, `equivalent`: the test's `power` at the expectation's users is below the power wanted.
    case underpowered(power: Double, difference: Double)
    /// `beats` with `simulate`: the simulated experiment did not find the variant
    /// significantly better (its adjusted p-value).
    case notSignificantInSimulation(adjustedPValue: Double)
    /// `equivalent` with `simulate`: the simulated experiment's TOST did not show equivalence
    /// (its p-value, not below α).
    case notShownEquivalentInSimulation(pValue: Double)
    /// `best` without users: another arm has a better exact value than the variant's `value`.
    case rivalIsBetter(RankedArm, value: Double)
    /// `beats` and `best` without users: the variant's exact value equals `with`'s (the control
    /// or the best rival) within ``DecisionRule/tieTolerance``: a tie, so neither beats the other
    /// and neither is best; `value` is the tied value.
    case tie(with: String, value: Double)
    /// `best` with users: the probability to be best is below the one wanted; `leader` is
    /// the arm likeliest to be best.
    case probabilityTooLow(Double, leader: RankedArm?)
  }

  /// A result of checking `expectation`; ``failures`` must be empty when `passed`.
  package init(
    expectation: FunnelExpectation, control: String, passed: Bool, measured: Double?, interval: ConfidenceInterval? = nil,
    basis: Basis = .exact, evidence: Evidence, failures: [Failure], alpha: Double? = nil, arms: [String] = []
  ) {
    self.alpha = alpha
    self.arms = arms
    self.expectation = expectation
    self.control = control
    self.passed = passed
    self.measured = measured
    self.interval = interval
    self.basis = basis
    self.evidence = evidence
    self.failures = passed ? [] : failures
  }
}
