import Foundation

/// The one-call analysis of an A/B(/n) experiment that the CLI's `analyze` runs: every arm
/// against the control, with frequentist, Bayesian and data-quality results side by side.
///
/// For each arm: rate with a Wilson interval. Against the control, conversion goes through
/// ``ControlComparison`` (the one pipeline, whose significance rule applies: adjusted p ≤ α and
/// the intervals at `1 − α` exclude zero; arms without a test are left out of the correction
/// family): by default the Miettinen–Nurminen score test with the Miettinen–Nurminen interval
/// of the absolute lift and the score interval of the relative lift, which invert it (or, with
/// ``Settings/proportionTest`` `.pooledZ`, the pooled z-test, Newcombe and the log ratio), the
/// multiplicity-adjusted p-value, the posterior probability to beat the control and the
/// expected loss of shipping the arm (Beta–binomial); when revenue is given, Welch's t-test,
/// the normal-posterior comparison and (for value→count maps) Mann–Whitney U and an optional
/// seeded bootstrap. For the experiment: a sample-ratio-mismatch check against the planned
/// allocation — a mismatch turns every arm's ``Conclusion`` into
/// ``Conclusion/sampleRatioMismatch`` ("do not trust") — and the probability of each arm to be
/// best.
///
/// - Complexity: O(k) tests plus the Bayesian integrals for k arms; the bootstrap, when
///   enabled, dominates (see ``Bootstrap``).
public enum ExperimentAnalysis {
  /// Settings with documented defaults.
  public struct Settings: Sendable, Hashable, Codable {
    /// Significance level α for the tests and `1 − α` for intervals. Default 0.05.
    public var alpha: Double
    /// The alternative of the z-, t- and Mann–Whitney tests. Default two-sided. Intervals are
    /// always two-sided at level `1 − alpha`.
    public var alternative: Alternative
    /// Multiple-testing correction over the arms-vs-control family. Default Holm.
    public var correction: MultipleTestingCorrection
    /// The conversion test and its intervals. Default the score test (see
    /// ``ControlComparison/ProportionTest``).
    public var proportionTest: ControlComparison.ProportionTest
    /// Planned allocation weights by arm name (e.g. `["control": 90, "b": 10]`); `nil`
    /// (default) means equal allocation.
    public var plannedAllocation: [String: Double]?
    /// Sample-ratio-mismatch settings. Default p < 0.001, no minimum deviation.
    public var sampleRatio: SampleRatioMismatch.Settings
    /// The Beta prior of conversion rates. Default Beta(1, 1).
    public var prior: BetaBinomialModel
    /// Bootstrap settings for revenue given as value→count maps; `nil` (default) skips it.
    public var bootstrap: Bootstrap.Settings?
    /// A margin on the conversion difference `p_arm − p_control` (a rate, > 0): when given,
    /// each arm also gets a non-inferiority and a superiority-by-margin test
    /// (``ArmComparison/nonInferiority``, ``ArmComparison/superiority``). Default `nil`.
    public var margin: Double?

    /// Creates settings.
    public init(
      alpha: Double = 0.05, alternative: Alternative = .twoSided,
      correction: MultipleTestingCorrection = .holm, proportionTest: ControlComparison.ProportionTest = .score,
      plannedAllocation: [String: Double]? = nil, sampleRatio: SampleRatioMismatch.Settings = .init(),
      prior: BetaBinomialModel = .init(), bootstrap: Bootstrap.Settings? = nil, margin: Double? = nil
    ) {
      self.alpha = alpha
      self.alternative = alternative
      self.correction = correction
      self.proportionTest = proportionTest
      self.plannedAllocation = plannedAllocation
      self.sampleRatio = sampleRatio
      self.prior = prior
      self.bootstrap = bootstrap
      self.margin = margin
    }
  }

  /// One arm on its own.
  public struct ArmSummary: Sendable, Hashable, Codable {
    /// The arm's name.
    public var name: String
    /// Users.
    public var users: Int
    /// Conversions.
    public var conversions: Int
    /// Conversion rate, `nil` for an arm without users.
    public var rate: Double?
    /// Wilson interval of the rate (the whole [0, 1] for an empty arm).
    public var rateInterval: ConfidenceInterval
    /// Posterior probability that this arm has the highest rate.
    public var probabilityToBeBest: Double?
    /// Revenue per user (all users, zeros included), when given.
    public var revenue: SampleMeanStatistic?
  }

  /// Revenue per user of an arm against the control.
  public struct RevenueComparison: Sendable, Hashable, Codable {
    /// Welch's t-test and interval on the difference of means.
    public var welch: WelchTTest.Result
    /// Normal-approximation posterior: chance to beat, expected loss (currency units).
    public var bayesian: NormalPosteriorModel.Result
    /// Mann–Whitney U, when both arms gave value→count maps.
    public var mannWhitney: MannWhitneyUTest.Result?
    /// Bootstrap intervals, when enabled and both arms gave value→count maps.
    public var bootstrap: Bootstrap.Result?
  }

  /// What an arm's comparison concludes; FunnelReport words it.
  public enum Conclusion: String, Sendable, Hashable, Codable, CaseIterable {
    /// Significant by ``ControlComparison``'s rule.
    case significant
    /// Tested, not significant.
    case notSignificant
    /// No test was possible (an arm without users).
    case notTested
    /// The sample-ratio check flagged a mismatch: no result of the experiment can be trusted,
    /// whatever its p-value.
    case sampleRatioMismatch
  }

  /// One arm against the control.
  public struct ArmComparison: Sendable, Hashable, Codable {
    /// The arm's name.
    public var arm: String
    /// `p_arm − p_control` with the interval of ``Settings/proportionTest`` (Miettinen–Nurminen
    /// by default, Newcombe with the pooled z-test).
    public var absoluteLift: IntervalEstimate?
    /// `p_arm / p_control − 1` with the score interval of the ratio (the delta-method
    /// log-ratio interval with the pooled z-test).
    public var relativeLift: IntervalEstimate?
    /// The test of ``Settings/proportionTest``, its method name included.
    public var test: TestResult?
    /// Fisher's exact test (two-sided, or per ``Settings/alternative``), given when some cell
    /// of the 2×2 table (conversions or non-conversions of either arm) is below 5, where the
    /// z-test's normal approximation is doubtful; prefer it then.
    public var fisherExact: TestResult?
    /// The p-value adjusted by ``Settings/correction``.
    public var adjustedPValue: Double?
    /// ``ControlComparison``'s rule: the adjusted p-value is at most α and the intervals at
    /// `1 − α` exclude zero (whatever the sample-ratio check says; see ``conclusion``).
    public var significant: Bool
    /// The conclusion to show: ``Conclusion/sampleRatioMismatch`` whenever the sample-ratio
    /// check flags a mismatch, otherwise from ``significant`` and ``test``.
    public var conclusion: Conclusion
    /// Posterior `P(p_arm > p_control)`.
    public var probabilityToBeatControl: Double?
    /// Posterior `E[max(p_control − p_arm, 0)]`: conversion rate lost, in expectation, by
    /// shipping the arm.
    public var expectedLoss: Double?
    /// Revenue per user, when both arms have it.
    public var revenue: RevenueComparison?
    /// Reasons for any missing value.
    public var diagnostics: [Diagnostic]
    /// With ``Settings/margin`` `m`: the non-inferiority test, `H₀: p_arm − p_control ≤ −m`
    /// against `H₁: > −m` (the arm is worse by less than the margin), by the Miettinen–Nurminen
    /// score test at that null difference (statsmodels `test_proportions_2indep(value=−m,
    /// method="score", alternative="larger")`, one-sided p-value), not corrected across arms.
    public var nonInferiority: TestResult? = nil
    /// With ``Settings/margin`` `m`: the superiority-by-margin test, `H₀: p_arm − p_control ≤ m`
    /// against `H₁: > m` (the arm is better by more than the margin), the same way.
    public var superiority: TestResult? = nil
    /// Whether ``nonInferiority`` rejects at `α/2` one-sided: the level at which it agrees with the
    /// two-sided `1 − α` Miettinen–Nurminen interval of ``absoluteLift`` (non-inferior exactly
    /// when that interval's lower end is above `−m`), so the verdict never contradicts the interval.
    public var nonInferior: Bool? = nil
    /// Whether ``superiority`` rejects at `α/2` one-sided (the interval's lower end is above `m`).
    public var betterByTheMargin: Bool? = nil
  }

  /// The whole analysis.
  public struct Report: Sendable, Hashable, Codable {
    /// The control's name.
    public var control: String
    /// Every arm, in input order.
    public var arms: [ArmSummary]
    /// Every non-control arm against the control, in input order.
    public var comparisons: [ArmComparison]
    /// The sample-ratio-mismatch check.
    public var sampleRatioMismatch: SampleRatioMismatch.Result
    /// The settings used (a report names its methods from them).
    public var settings: Settings
  }

  /// All problems found in the input, not just the first.
  public struct InputError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Each problem with its location.
    public var problems: [StatsError]
    /// Each problem's ``StatsError/description``, one per line, in the order found.
    public var description: String { problems.map(\.description).joined(separator: "\n") }
  }

  /// Analyzes an experiment.
  ///
  /// - Parameters:
  ///   - arms: the arms, at least two, names unique.
  ///   - control: the control arm's name.
  ///   - settings: see ``Settings``.
  /// - Returns: the ``Report``; degenerate arms (no users, no conversions) give comparisons
  ///   with `nil` values and ``Diagnostic``s rather than failing.
  /// - Throws: ``InputError`` listing every invalid count, duplicate or unknown name and
  ///   invalid setting.
  public static func analyze(arms: [ArmData], control: String, settings: Settings = Settings())
    throws(InputError) -> Report
  {
    let input = try validatedInput(arms: arms, control: control, settings: settings)
    let c = input.control
    let level = 1 - settings.alpha
    let (srm, conversion) = try runTests(input, settings: settings)
    let summaries = armSummaries(
      arms, input, probabilityToBeBest: conversion.probabilityToBeBest, level: level)
    var comparisons: [ArmComparison] = []
    for row in conversion.rows {
      var comparison = compare(
        row, control: c, arms: arms, counts: input.counts, revenues: input.revenues, settings: settings)
      if srm.mismatch { comparison.conclusion = .sampleRatioMismatch }
      comparisons.append(comparison)
    }
    return Report(
      control: control, arms: summaries, comparisons: comparisons, sampleRatioMismatch: srm, settings: settings)
  }

  /// The checked input: each arm's counts and revenue, the allocation weights and the control's index.
  private struct ValidatedInput {
    var counts: [ProportionCount]
    var revenues: [SampleMeanStatistic?]
    var weights: [Double]
    var control: Int
  }

  /// Checks the arms, the control and the settings, collecting every problem before throwing.
  private static func validatedInput(arms: [ArmData], control: String, settings: Settings)
    throws(InputError) -> ValidatedInput
  {
    var problems: [StatsError] = []
    if arms.count < 2 {
      problems.append(StatsError(.dimensionMismatch, field: [.name(.arms)], message: "needs at least two arms"))
    }
    guard arms.count <= StatsLimits.maxArms else {
      throw InputError(problems: [
        StatsError(.dimensionMismatch, field: [.name(.arms)], message: "\(arms.count) arms; at most \(StatsLimits.maxArms) are supported")
      ])
    }
    if !(settings.alpha > 0 && settings.alpha < 1) {
      problems.append(
        StatsError(.invalidParameter, field: [.name(.settings), .name(.alpha)], message: "must be in (0, 1), got \(settings.alpha)"))
    }
    if let m = settings.margin, !(m > 0 && m < 1) {
      problems.append(
        StatsError(.invalidParameter, field: [.name(.settings), .name(.margin)], message: "must be in (0, 1), got \(m)"))
    }
    let (counts, revenues, invalid) = armCounts(arms, problems: &problems)
    let controlIndex = arms.firstIndex { $0.name == control }
    if controlIndex == nil {
      problems.append(
        StatsError(
          .unknownName, field: [.name(.control)], message: "no arm named '\(control)'",
          hint: "arms are: \(arms.map(\.name).joined(separator: ", "))"))
    }
    let weights = allocationWeights(arms, planned: settings.plannedAllocation, problems: &problems)
    if let c = controlIndex, !invalid.contains(c), counts[c].trials == 0 {
      problems.append(StatsError(.emptyArm, field: [.name(.arms), .index(c), .name(.users)], message: "the control has no users"))
    }
    guard problems.isEmpty, let c = controlIndex else { throw InputError(problems: problems) }
    return ValidatedInput(counts: counts, revenues: revenues, weights: weights, control: c)
  }

  /// Reads each arm's counts and revenue, recording duplicate names and invalid arms in `problems`.
  private static func armCounts(_ arms: [ArmData], problems: inout [StatsError])
    -> (counts: [ProportionCount], revenues: [SampleMeanStatistic?], invalid: Set<Int>)
  {
    var seen: Set<String> = []
    var counts: [ProportionCount] = []
    var revenues: [SampleMeanStatistic?] = []
    var invalid: Set<Int> = []
    for (i, arm) in arms.enumerated() {
      if !seen.insert(arm.name).inserted {
        problems.append(
          StatsError(.invalidParameter, field: [.name(.arms), .index(i), .name(.name)], message: "duplicate arm name '\(arm.name)'"))
      }
      let armProblems = arm.validationErrors(field: [.name(.arms), .index(i)])
      if armProblems.isEmpty, case .success(let revenue) = revenueStatistic(arm, field: [.name(.arms), .index(i), .name(.revenue)]) {
        counts.append(ProportionCount(uncheckedSuccesses: arm.conversions, trials: arm.users))
        revenues.append(revenue)
      } else {
        problems += armProblems
        invalid.insert(i)
        counts.append(ProportionCount.unchecked)
        revenues.append(nil)
      }
    }
    return (counts, revenues, invalid)
  }

  /// The planned allocation weight of each arm (1 each without a plan), recording unknown or missing names.
  private static func allocationWeights(_ arms: [ArmData], planned: [String: Double]?, problems: inout [StatsError])
    -> [Double]
  {
    var weights: [Double] = arms.map { _ in 1 }
    if let planned {
      for name in planned.keys.sorted() where !arms.contains(where: { $0.name == name }) {
        problems.append(
          StatsError(.unknownName, field: [.name(.settings), .name(.plannedAllocation), .key(name)], message: "no arm named '\(name)'"))
      }
      for (i, arm) in arms.enumerated() {
        if let w = planned[arm.name], w > 0, w.isFinite {
          weights[i] = w
        } else {
          problems.append(
            StatsError(
              .invalidParameter, field: [.name(.settings), .name(.plannedAllocation), .key(arm.name)],
              message: "needs a positive weight for every arm"))
        }
      }
    }
    return weights
  }

  /// The sample-ratio check, then the conversion comparison of every arm against the control.
  private static func runTests(_ input: ValidatedInput, settings: Settings)
    throws(InputError) -> (SampleRatioMismatch.Result, ControlComparison.Result)
  {
    let srm: SampleRatioMismatch.Result
    let conversion: ControlComparison.Result
    do {
      srm = try SampleRatioMismatch.check(
        observed: input.counts.map(\.trials), weights: input.weights, settings: settings.sampleRatio)
      conversion = try ControlComparison.compare(
        .proportions(input.counts), control: input.control,
        settings: ControlComparison.Settings(
          alpha: settings.alpha, alternative: settings.alternative, correction: settings.correction,
          proportionTest: settings.proportionTest, prior: settings.prior))
    } catch {
      throw InputError(problems: [error])
    }
    return (srm, conversion)
  }

  /// Each arm on its own: its rate with a Wilson interval at `level`, chance to be best and revenue.
  private static func armSummaries(
    _ arms: [ArmData], _ input: ValidatedInput, probabilityToBeBest: [Double?], level: Double
  ) -> [ArmSummary] {
    var summaries: [ArmSummary] = []
    for (i, arm) in arms.enumerated() {
      let interval =
        (try? ProportionInterval.wilson(input.counts[i], confidenceLevel: level))
        ?? ConfidenceInterval(lower: 0, upper: 1, confidenceLevel: level, method: "wilson")
      summaries.append(
        ArmSummary(
          name: arm.name, users: arm.users, conversions: arm.conversions, rate: input.counts[i].rate,
          rateInterval: interval, probabilityToBeBest: probabilityToBeBest[i], revenue: input.revenues[i]))
    }
    return summaries
  }

  /// One arm's conversion row from the pipeline, with Fisher's test and revenue beside it.
  private static func compare(
    _ row: ControlComparison.Row, control c: Int, arms: [ArmData], counts: [ProportionCount],
    revenues: [SampleMeanStatistic?], settings: Settings
  ) -> ArmComparison {
    let i = row.arm
    var result = ArmComparison(
      arm: arms[i].name, absoluteLift: row.difference, relativeLift: row.relativeLift, test: row.test, fisherExact: nil,
      adjustedPValue: row.adjustedPValue, significant: row.significant,
      conclusion: row.test == nil ? .notTested : (row.significant ? .significant : .notSignificant),
      probabilityToBeatControl: row.probabilityToBeatControl, expectedLoss: row.expectedLoss, revenue: nil,
      diagnostics: row.diagnostics)
    // An arm (or control) of fewer than two users has no test, Fisher's and the margin's neither.
    guard counts[i].trials >= 2, counts[c].trials >= 2 else { return result }
    let t = counts[i]
    let k = counts[c]
    if let m = settings.margin, k.trials > 0 {
      result.nonInferiority = try? TwoProportionScoreTest.test(treatment: t, control: k, nullValue: -m, alternative: .greater)
      result.superiority = try? TwoProportionScoreTest.test(treatment: t, control: k, nullValue: m, alternative: .greater)
      result.nonInferior = result.nonInferiority.map { $0.pValue <= settings.alpha / 2 }
      result.betterByTheMargin = result.superiority.map { $0.pValue <= settings.alpha / 2 }
    }
    let cells = [t.successes, t.trials - t.successes, k.successes, k.trials - k.successes]
    if cells.contains(where: { $0 < 5 }) {
      result.fisherExact =
        try? FisherExactTest.test(
          a: t.successes, b: t.trials - t.successes, c: k.successes, d: k.trials - k.successes,
          alternative: settings.alternative
        ).test
      result.diagnostics.append(.smallExpectedCounts)
    }
    if let rt = revenues[i], let rc = revenues[c] {
      result.revenue = revenueComparison(arm: i, control: c, rt, rc, arms: arms, settings: settings)
      if let d = result.revenue?.welch.test.diagnostic, !result.diagnostics.contains(d) { result.diagnostics.append(d) }
    }
    return result
  }

  /// Revenue per user of arm `i` against the control `c`.
  private static func revenueComparison(
    arm i: Int, control c: Int, _ rt: SampleMeanStatistic, _ rc: SampleMeanStatistic, arms: [ArmData], settings: Settings
  ) -> RevenueComparison? {
    guard
      let welch = try? WelchTTest.test(
        treatment: rt, control: rc, alternative: settings.alternative, confidenceLevel: 1 - settings.alpha),
      let bayes = try? NormalPosteriorModel.compare(treatment: rt, control: rc)
    else { return nil }
    var revenue = RevenueComparison(welch: welch, bayesian: bayes, mannWhitney: nil, bootstrap: nil)
    if case .counts(let mt)? = arms[i].revenue, case .counts(let mc)? = arms[c].revenue {
      let ft = padded(mt, users: arms[i].users)
      let fc = padded(mc, users: arms[c].users)
      revenue.mannWhitney = try? MannWhitneyUTest.test(treatment: ft, control: fc, alternative: settings.alternative)
      if var b = settings.bootstrap {
        b.confidenceLevel = 1 - settings.alpha
        revenue.bootstrap = try? Bootstrap.meanIntervals(treatment: ft, control: fc, settings: b)
      }
    }
    return revenue
  }

  /// Adds zero-revenue users so that a value→count map covers all `users`.
  /// Callers guarantee that the counts are non-negative and sum to at most `users`.
  static func padded(_ map: [Double: Int], users: Int) -> [Double: Int] {
    let covered = map.values.reduce(0, +)
    var m = map
    if users > covered { m[0, default: 0] += users - covered }
    return m
  }

  /// The arm's revenue over all its users, validated.
  static func revenueStatistic(_ arm: ArmData, field: StatsError.Field) -> Result<SampleMeanStatistic?, StatsError> {
    switch arm.revenue {
    case nil:
      return .success(nil)
    case .statistic(let s):
      do { try s.validate(field: field) } catch { return .failure(error) }
      guard s.n <= arm.users else {
        return .failure(
          StatsError(
            .conversionsExceedUsers, field: field.appending(.name(.n)),
            message: "revenue covers \(s.n) users but the arm has \(arm.users)"))
      }
      return .success(
        SampleMeanStatistic(n: arm.users, sum: s.sum, sumOfSquares: s.sumOfSquares))
    case .counts(let map):
      for (v, count) in map {
        if count < 0 {
          return .failure(StatsError(.negativeCount, field: field.appending(.key("\(v)")), message: "count is negative (\(count))"))
        }
        if !v.isFinite {
          return .failure(StatsError(.invalidParameter, field: field, message: "values must be finite"))
        }
      }
      // Each count ≤ users ≤ maxCount is checked before adding, so the sum cannot overflow.
      var covered = 0
      for count in map.values {
        guard count <= arm.users - covered else {
          return .failure(
            StatsError(
              .conversionsExceedUsers, field: field, message: "revenue map covers more users than the arm's \(arm.users)"))
        }
        covered += count
      }
      let statistic = SampleMeanStatistic(counts: padded(map, users: arm.users))
      do { try statistic.validate(field: field) } catch { return .failure(error) }
      return .success(statistic)
    }
  }
}

extension ProportionCount {
  /// A placeholder (0 of 0) used only after a validation failure has been recorded.
  fileprivate static var unchecked: ProportionCount { ProportionCount(uncheckedSuccesses: 0, trials: 0) }
}
