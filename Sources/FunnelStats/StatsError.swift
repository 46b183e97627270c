/// An error in the data or parameters given to a FunnelStats function.
///
/// Carries where the problem is (``field``, a typed path such as `arms[1].conversions`), what
/// is wrong and, when there is one, what to do about it. A caller maps the path back to where
/// the value came from (a file's line, a command-line flag) by its steps, never by its text.
public struct StatsError: Error, Sendable, Hashable, CustomStringConvertible {
  /// The kind of problem.
  public enum Kind: String, Sendable, Hashable, Codable {
    /// A count (users, conversions, cell) is negative.
    case negativeCount
    /// More conversions than users.
    case conversionsExceedUsers
    /// A group without any observations where at least one is needed.
    case emptyArm
    /// A parameter outside its domain (alpha outside (0, 1), a non-positive weight, …).
    case invalidParameter
    /// Shapes that do not fit together (ragged table, weights for the wrong number of arms).
    case dimensionMismatch
    /// A name that is not known (e.g. the control arm).
    case unknownName
  }

  /// The kind of problem.
  public var kind: Kind
  /// Where the problem is, as a path into the input.
  public var field: Field
  /// What is wrong.
  public var message: String
  /// What to do about it, when known.
  public var hint: String?

  /// Creates an error.
  public init(_ kind: Kind, field: Field, message: String, hint: String? = nil) {
    self.kind = kind
    self.field = field
    self.message = message
    self.hint = hint
  }

  /// `field: message`, followed by ` (hint)` when there is a hint.
  public var description: String {
    var text = "\(field): \(message)"
    if let hint { text += " (\(hint))" }
    return text
  }
}

/// A neutral result's reason: degenerate data gives a defined answer tagged with one of these,
/// never a silent NaN.
public enum Diagnostic: String, Sendable, Hashable, Codable, CaseIterable {
  /// The variance of the test statistic is zero (e.g. no conversions in either arm); the
  /// statistic is reported as 0 and the p-value as 1.
  case zeroVariance
  /// An arm has no observations; its estimates are undefined.
  case emptyArm
  /// A ratio's denominator is zero or a log is undefined (zero conversions); the ratio or its
  /// interval is unavailable.
  case undefinedRatio
  /// Some cell counts are below 5 (expected counts in a chi-square test; conversions or
  /// non-conversions of an arm in ``ExperimentAnalysis``): the normal/chi-square
  /// approximation may be poor; prefer Fisher's exact test for 2×2 tables.
  case smallExpectedCounts
  /// A sample has fewer than two observations: its variance is undefined.
  case insufficientData
  /// The test rejects at α but the interval at `1 − α` contains the null, or the reverse (the
  /// pooled z-test beside Newcombe's interval near the boundary): the row is not significant.
  case testIntervalDisagreement
}

/// A confidence interval `[lower, upper]` with its level and the method that produced it.
public struct ConfidenceInterval: Sendable, Hashable, Codable {
  /// Lower bound.
  public var lower: Double
  /// Upper bound.
  public var upper: Double
  /// The confidence level, e.g. 0.95.
  public var confidenceLevel: Double
  /// The method's name, e.g. `"wilson"`.
  public var method: String

  /// Creates an interval.
  public init(lower: Double, upper: Double, confidenceLevel: Double, method: String) {
    self.lower = lower
    self.upper = upper
    self.confidenceLevel = confidenceLevel
    self.method = method
  }

  /// Whether `value` lies inside the closed interval.
  public func contains(_ value: Double) -> Bool { lower <= value && value <= upper }
}

/// The result of a hypothesis test.
public struct TestResult: Sendable, Hashable, Codable {
  /// The test statistic (z, t, χ², U, …).
  public var statistic: Double
  /// The p-value, in [0, 1].
  public var pValue: Double
  /// The alternative hypothesis tested.
  public var alternative: Alternative
  /// Degrees of freedom, for t and χ² tests.
  public var degreesOfFreedom: Double?
  /// The method's name, e.g. `"two-proportion pooled z-test"`.
  public var method: String
  /// Set when the data were degenerate and a neutral result was returned.
  public var diagnostic: Diagnostic?

  /// Creates a result.
  public init(
    statistic: Double, pValue: Double, alternative: Alternative, degreesOfFreedom: Double? = nil,
    method: String, diagnostic: Diagnostic? = nil
  ) {
    self.statistic = statistic
    self.pValue = pValue
    self.alternative = alternative
    self.degreesOfFreedom = degreesOfFreedom
    self.method = method
    self.diagnostic = diagnostic
  }
}

/// A p-value from a statistic with a standard normal null distribution.
internal func normalPValue(_ z: Double, _ alternative: Alternative) -> Double {
  switch alternative {
  case .twoSided: return min(1, 2 * Normal.standardCDF(-abs(z)))
  case .greater: return Normal.standardCDF(-z)
  case .less: return Normal.standardCDF(z)
  }
}

/// Validates a confidence level in (0, 1).
internal func checkLevel(_ level: Double, field: StatsError.Field = [.name(.confidenceLevel)]) throws(StatsError) {
  guard level > 0, level < 1 else {
    throw StatsError(
      .invalidParameter, field: field, message: "must be in (0, 1), got \(level)",
      hint: "use e.g. 0.95")
  }
}
