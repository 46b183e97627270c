import Foundation

/// Every arm against the control on one metric: the one analysis pipeline behind
/// ``ExperimentAnalysis`` (`funnellab analyze`) and FunnelLab's experiment mode, grid and checks.
///
/// For each non-control arm: the difference with its interval, the relative lift with its
/// interval, the test (its method name carried in the result), the raw and multiplicity-
/// adjusted p-value, `significant`, the posterior probability to beat the control, the
/// expected loss of shipping it and diagnostics; for every arm the probability to be best.
///
/// Methods, by metric and ``Settings/proportionTest``:
///
/// | data | test | difference interval | relative lift |
/// |---|---|---|---|
/// | proportions, `.score` (default) | ``TwoProportionScoreTest`` | Miettinen–Nurminen | score interval of the ratio |
/// | proportions, `.pooledZ` | ``TwoProportionZTest`` | Newcombe hybrid score | delta method on the log ratio |
/// | means | ``WelchTTest`` | Welch | — (`nil`) |
///
/// Intervals follow ``Settings/alternative``: two-sided at `1 − α`, or one-sided at `1 − α`
/// (the other bound at the range's end) for a one-sided test, so that each test and its
/// interval answer the same question.
///
/// **The significance rule.** An arm is `significant` when it has a test, its adjusted
/// p-value is **at most** α, and its difference interval at level `1 − α` excludes zero
/// (zero on a bound counts as included). Arms without a test (no users; means with fewer than
/// two users in an arm) are left out of the correction family, have no adjusted p-value and
/// are never significant. The relative-lift interval, when there is one, must exclude zero
/// too. The score test and the Miettinen–Nurminen interval invert each
/// other, as do Welch's test and interval, and an adjusted p-value is never below the raw one,
/// so with them the interval condition only settles exact ties at the boundary. The pooled
/// z-test and Newcombe's interval are different approximations and can disagree near the
/// boundary: such an arm is **not** significant and carries
/// ``Diagnostic/testIntervalDisagreement``. Hence `significant` is never true while the
/// interval at the same level contains zero.
///
/// Bayesian values are oriented by ``Settings/higherIsBetter``: "beat" and "best" mean a
/// higher value, or a lower one for a metric where lower is better. Proportions use
/// ``BetaBinomialModel`` (on failures, with the prior's shapes swapped, when lower is better);
/// means use ``NormalPosteriorModel``.
///
/// - Complexity: O(k) tests and intervals for k arms plus the Bayesian integrals (see
///   ``BetaBinomialModel/probabilityToBeBest(_:)``).
public enum ControlComparison {
  /// One metric's data for every arm, in arm order.
  public enum Data: Sendable, Hashable, Codable {
    /// Successes out of trials per arm (a conversion rate).
    case proportions([ProportionCount])
    /// Sufficient statistics per arm (a mean, e.g. revenue per user).
    case means([SampleMeanStatistic])

    var count: Int {
      switch self {
      case .proportions(let c): c.count
      case .means(let m): m.count
      }
    }
  }

  /// The test (and its matching intervals) for proportions.
  public enum ProportionTest: String, Sendable, Hashable, CaseIterable, Codable {
    /// The Miettinen–Nurminen score test with the Miettinen–Nurminen interval and the score
    /// interval of the ratio, which invert it (default).
    case score
    /// The pooled two-proportion z-test with Newcombe's interval and the delta-method
    /// log-ratio interval (statsmodels `proportions_ztest`); rows where they disagree are not
    /// significant (``Diagnostic/testIntervalDisagreement``).
    case pooledZ = "pooled-z"
  }

  /// Settings with documented defaults.
  public struct Settings: Sendable, Hashable, Codable {
    /// Significance level α; intervals are at `1 − α`. Default 0.05.
    public var alpha: Double
    /// The alternative of every test and the side of every interval. Default two-sided.
    public var alternative: Alternative
    /// Multiple-testing correction over the arms-vs-control family. Default Holm.
    public var correction: MultipleTestingCorrection
    /// The test for proportions. Default ``ProportionTest/score``.
    public var proportionTest: ProportionTest
    /// The Beta prior of proportions. Default Beta(1, 1).
    public var prior: BetaBinomialModel
    /// Whether a higher value is better (orients P(beat), P(best) and the expected loss).
    /// Default `true`.
    public var higherIsBetter: Bool
    /// Whether to compute the Bayesian values. Default `true`.
    public var bayesian: Bool

    /// Creates settings.
    public init(
      alpha: Double = 0.05, alternative: Alternative = .twoSided, correction: MultipleTestingCorrection = .holm,
      proportionTest: ProportionTest = .score, prior: BetaBinomialModel = .init(), higherIsBetter: Bool = true,
      bayesian: Bool = true
    ) {
      self.alpha = alpha
      self.alternative = alternative
      self.correction = correction
      self.proportionTest = proportionTest
      self.prior = prior
      self.higherIsBetter = higherIsBetter
      self.bayesian = bayesian
    }
  }

  /// One arm against the control.
  public struct Row: Sendable, Hashable, Codable {
    /// The arm's index in the data.
    public var arm: Int
    /// Arm − control with its interval at `1 − α` (see the table above).
    public var difference: IntervalEstimate?
    /// `arm / control − 1` with its interval: the score interval of the ratio (or the delta
    /// method with the pooled z-test) for proportions, Fieller's with Welch's critical value for means.
    public var relativeLift: IntervalEstimate?
    /// The test, its method name included; `nil` when the arm cannot be tested.
    public var test: TestResult?
    /// The adjusted p-value; `nil` without a test.
    public var adjustedPValue: Double?
    /// See the significance rule above.
    public var significant: Bool
    /// Posterior probability that the arm is better than the control.
    public var probabilityToBeatControl: Double?
    /// Posterior expected loss of shipping the arm instead of the control, in the metric's
    /// units (rate units for proportions).
    public var expectedLoss: Double?
    /// Reasons for missing or qualified values.
    public var diagnostics: [Diagnostic]

    /// The raw p-value of ``test``.
    public var pValue: Double? { test?.pValue }

    /// Whether the difference interval, and the relative-lift interval when there is one,
    /// exclude zero.
    public var intervalsExcludeZero: Bool {
      guard let d = difference?.interval, !d.contains(0) else { return false }
      return relativeLift?.interval.map { !$0.contains(0) } ?? true
    }
  }

  /// The comparison of every arm with the control.
  public struct Result: Sendable, Hashable, Codable {
    /// The control's index.
    public var control: Int
    /// Every non-control arm, in data order.
    public var rows: [Row]
    /// Posterior probability that each arm is the best, in data order; `nil` for an arm
    /// without data (computed among the arms with data).
    public var probabilityToBeBest: [Double?]

    /// The row of arm `index`, `nil` for the control.
    public func row(_ index: Int) -> Row? { rows.first { $0.arm == index } }
  }

  /// Compares every arm with the control.
  ///
  /// - Parameters:
  ///   - data: one metric for every arm (at least two).
  ///   - control: the control's index in `data`.
  ///   - settings: see ``Settings``.
  /// - Throws: ``StatsError`` for fewer than two arms, a control index out of range, α
  ///   outside (0, 1), a control without data, invalid statistics or an invalid prior.
  public static func compare(_ data: Data, control: Int, settings: Settings = Settings()) throws(StatsError) -> Result {
    guard data.count >= 2 else {
      throw StatsError(.dimensionMismatch, field: [.name(.arms)], message: "needs at least two arms")
    }
    guard data.count > control, control >= 0 else {
      throw StatsError(.unknownName, field: [.name(.control)], message: "index \(control) is not an arm (0..<\(data.count))")
    }
    guard settings.alpha > 0, settings.alpha < 1 else {
      throw StatsError(.invalidParameter, field: [.name(.settings), .name(.alpha)], message: "must be in (0, 1), got \(settings.alpha)")
    }
    var rows: [Row] = []
    for i in 0..<data.count where i != control {
      rows.append(try row(data, arm: i, control: control, settings: settings))
    }
    adjust(&rows, settings: settings)
    let best = settings.bayesian ? try probabilityToBeBest(data, settings: settings) : Array(repeating: nil, count: data.count)
    return Result(control: control, rows: rows, probabilityToBeBest: best)
  }

  /// Adjusts the p-values of the rows that have a test, then applies the significance rule.
  static func adjust(_ rows: inout [Row], settings: Settings) {
    let tested = rows.indices.filter { rows[$0].test != nil }
    guard let adjusted = try? settings.correction.adjust(tested.compactMap { rows[$0].pValue }) else { return }
    for (k, j) in tested.enumerated() {
      rows[j].adjustedPValue = adjusted[k]
      let excludesZero = rows[j].intervalsExcludeZero
      rows[j].significant = adjusted[k] <= settings.alpha && excludesZero
      if let p = rows[j].pValue, (p <= settings.alpha) != excludesZero {
        rows[j].diagnostics.append(.testIntervalDisagreement)
      }
    }
  }
}
