package import FunnelStats

/// The statistics of a per-user file (``UserFile``): every arm against the control on a
/// metric of users (revenue per user), adjusted for a pre-period covariate when one is
/// named, and on a ratio of two columns (revenue per payer) when one is named.
///
/// - The metric: Welch's t-test of the difference of means; with a covariate, CUPED
///   (``CUPED``, gbstats' pooled slope, Welch's ν) and Lin's interacted regression
///   (``RegressionAdjustment``, HC1) beside it.
/// - The ratio: the delta method (``RatioMetric``).
/// - The decision is made on the *primary* comparison: CUPED when there is a covariate,
///   else Welch's test of the metric, else the ratio's test; its p-values are corrected
///   across arms (``Settings/correction``), and an arm is significant when its adjusted
///   p-value is at most α, which implies the `1 − α` interval printed beside it excludes 0.
/// - The split: the chi-square sample-ratio check at the end, and the anytime-valid one
///   (``SequentialSampleRatioMismatch``) over the days; either below 0.001 flags a
///   mismatch, and every call becomes "do not trust".
/// - Per arm, whether the normal interval can be trusted for a skewed metric: Kohavi's
///   rule of thumb asks for more than `355·s²` users, `s` the skewness.
/// - Over the days (a `day` column): the running difference of means with the always-valid
///   confidence sequence (``AsymptoticConfidenceSequence``).
package enum UserMetricAnalysis {
  /// How the arms are compared.
  package struct Settings: Sendable, Hashable {
    /// The significance level; intervals are `1 − α`.
    package var alpha: Double = 0.05
    /// The correction of the primary p-values across arms.
    package var correction: MultipleTestingCorrection = .holm
    /// The control arm (default: the file's first).
    package var control: String?
    /// The planned allocation by arm name (default: equal).
    package var allocation: [String: Double]?
    /// The confidence sequence's tuning (users at which it is tightest).
    package var sequenceTuning = 5_000.0

    /// Settings with the defaults.
    package init() {}
  }

  /// Which comparison decides.
  package enum Primary: String, Sendable, Hashable {
    /// Welch's t-test of the metric.
    case welch
    /// CUPED on the covariate.
    case cuped
    /// The ratio by the delta method.
    case ratio
  }

  /// One arm on its own.
  package struct ArmSummary: Sendable, Hashable {
    /// The arm's name.
    package var name: String
    /// Users.
    package var users: Int
    /// The metric's mean, standard deviation and skewness (sample, `n − 1`; skewness the
    /// moment coefficient `m₃/m₂^{3/2}`).
    package var mean: Double?
    /// The metric's standard deviation.
    package var standardDeviation: Double?
    /// The metric's skewness.
    package var skewness: Double?
    /// Kohavi's `355·s²`: the users the mean needs before its normal interval holds.
    package var usersForNormalInterval: Double?
    /// The ratio `Σnumerator/Σdenominator`.
    package var ratio: Double?
  }

  /// One arm against the control.
  package struct Comparison: Sendable, Hashable {
    /// The arm.
    package var arm: String
    /// Welch's test of the metric.
    package var welch: WelchTTest.Result?
    /// CUPED on the covariate.
    package var cuped: CUPED.Result?
    /// Lin's regression on the covariate (HC1).
    package var regression: RegressionAdjustment.Result?
    /// The ratio.
    package var ratio: RatioMetric.Result?
    /// The primary difference and its interval.
    package var difference: IntervalEstimate
    /// The primary difference over the control's mean (or ratio), with its interval.
    package var relativeLift: IntervalEstimate?
    /// The primary test.
    package var test: TestResult
    /// Its p-value corrected across arms.
    package var adjustedPValue: Double
    /// Adjusted p ≤ α (and the interval excludes 0).
    package var significant: Bool
    /// The conclusion (a sample ratio mismatch overrides).
    package var conclusion: ExperimentAnalysis.Conclusion
  }

  /// The running totals of one day.
  package struct Look: Sendable, Hashable {
    /// The day's name.
    package var day: String
    /// Users so far per arm.
    package var users: [Int]
    /// Per non-control arm, the confidence sequence of the difference of means so far
    /// (`nil` while an arm has fewer than two users or no variance).
    package var sequences: [AsymptoticConfidenceSequence?]
  }

  /// The whole analysis.
  package struct Report: Sendable, Hashable {
    /// The settings.
    package var settings: Settings
    /// The columns read.
    package var columns: UserFile.Columns
    /// The control arm.
    package var control: String
    /// The comparison that decides.
    package var primary: Primary
    /// Every arm, the control first.
    package var arms: [ArmSummary]
    /// Every other arm against the control.
    package var comparisons: [Comparison]
    /// The chi-square check of the arms' sizes.
    package var sampleRatio: SampleRatioMismatch.Result
    /// The anytime-valid check, over the days (one look without a day column).
    package var sequentialSampleRatio: SequentialSampleRatioMismatch.Result
    /// Whether either check flagged the split.
    package var mismatch: Bool
    /// The days, in order (empty without a day column, or without a metric).
    package var looks: [Look]

    /// The decided metric's identifier: the metric's column, or ``ratioID``.
    package var metricID: String { primary == .ratio ? ratioID : columns.metric ?? "" }

    /// The ratio as `numerator/denominator`.
    package var ratioID: String { "\(columns.numerator ?? "")/\(columns.denominator ?? "")" }

    /// The decided metric in words: `revenue per user`, or the ratio `revenue/purchases`.
    package var metricLabel: String { primary == .ratio ? ratioID : "\(columns.metric ?? "") per user" }
  }

  /// Analyzes `file` (read to its end without a problem).
  /// - Throws: ``StatsError`` naming the arm and what it lacks (fewer than two users, no
  ///   variance of the covariate, a zero denominator) or an unknown control or allocation.
  package static func analyze(_ file: UserFile, settings: Settings) throws(StatsError) -> Report {
    guard file.arms.count >= 2 else {
      throw StatsError(
        .dimensionMismatch, field: [.name(.arms)], message: "the file names \(file.arms.count) arm", hint: "a test needs at least two arms")
    }
    let control = settings.control ?? file.arms[0].name
    guard let c = file.arms.firstIndex(where: { $0.name == control }) else {
      throw StatsError(
        .invalidParameter, field: [.name(.control)], message: "no arm '\(control)' in the file",
        hint: "the arms are " + file.arms.map(\.name).joined(separator: ", "))
    }
    let ordered = [file.arms[c]] + file.arms.enumerated().filter { $0.offset != c }.map(\.element)
    let weights = try allocation(settings.allocation, arms: ordered.map(\.name))
    let columns = file.columns
    let primary: Primary = columns.metric == nil ? .ratio : columns.covariate == nil ? .welch : .cuped
    let level = 1 - settings.alpha
    var comparisons: [Comparison] = []
    for (k, arm) in ordered.enumerated().dropFirst() {
      let field: StatsError.Field = [.name(.arms), .index(k)]
      comparisons.append(
        try compare(arm, ordered[0], primary: primary, level: level, shift: file.metricCenter ?? 0, field: field))
    }
    let adjusted = try settings.correction.adjust(comparisons.map(\.test.pValue))
    let sizes = ordered.map(\.users)
    let srm = try SampleRatioMismatch.check(observed: sizes, weights: weights)
    let indices = ordered.map { a in file.arms.firstIndex { $0.name == a.name } ?? 0 }
    let looks = try self.looks(file, indices: indices, settings: settings)
    let sequential = try SequentialSampleRatioMismatch.check(
      looks: looks.isEmpty ? [sizes] : looks.map(\.users), weights: weights)
    let mismatch = srm.mismatch || sequential.mismatch
    for k in comparisons.indices {
      comparisons[k].adjustedPValue = adjusted[k]
      let excludesZero = comparisons[k].difference.interval.map { $0.lower > 0 || $0.upper < 0 } ?? false
      comparisons[k].significant = adjusted[k] <= settings.alpha && excludesZero
      comparisons[k].conclusion = mismatch ? .sampleRatioMismatch : comparisons[k].significant ? .significant : .notSignificant
    }
    return Report(
      settings: settings, columns: columns, control: control, primary: primary,
      arms: ordered.map { summary($0, shift: file.metricCenter ?? 0) }, comparisons: comparisons,
      sampleRatio: srm, sequentialSampleRatio: sequential, mismatch: mismatch, looks: looks)
  }

  private static func allocation(_ given: [String: Double]?, arms: [String]) throws(StatsError) -> [Double] {
    guard let given else { return arms.map { _ in 1 } }
    for name in given.keys.sorted() where !arms.contains(name) {
      throw StatsError(
        .invalidParameter, field: [.name(.plannedAllocation), .key(name)], message: "no arm '\(name)' in the file",
        hint: "the arms are " + arms.joined(separator: ", "))
    }
    return try arms.map { name throws(StatsError) in
      guard let w = given[name] else {
        throw StatsError(
          .invalidParameter, field: [.name(.plannedAllocation), .key(name)], message: "no weight for arm '\(name)'",
          hint: "give every arm a weight")
      }
      return w
    }
  }

  private static func compare(
    _ arm: UserFile.Arm, _ control: UserFile.Arm, primary: Primary, level: Double, shift: Double, field: StatsError.Field
  ) throws(StatsError) -> Comparison {
    let hasMetric = control.metric.n > 0 || arm.metric.n > 0
    let welch = hasMetric ? try WelchTTest.test(treatment: arm.metric, control: control.metric, confidenceLevel: level) : nil
    var cuped: CUPED.Result?
    var regression: RegressionAdjustment.Result?
    if let t = arm.cuped, let c = control.cuped, let st = arm.regression, let sc = control.regression {
      do {
        cuped = try CUPED.compare(treatment: t, control: c, confidenceLevel: level)
        regression = try RegressionAdjustment.compare(
          treatment: [st], control: [sc], strata: false, covariate: true, standardError: .hc1, confidenceLevel: level)
      } catch {
        throw StatsError(error.kind, field: StatsError.Field(field.steps + error.field.steps), message: error.message, hint: error.hint)
      }
    }
    var ratio: RatioMetric.Result?
    if let t = arm.ratio, let c = control.ratio {
      do {
        ratio = try RatioMetric.compare(treatment: t, control: c, confidenceLevel: level)
      } catch {
        throw StatsError(
          error.kind, field: field.appending(.name(.ratio)), message: error.message,
          hint: "the ratio's denominator must sum to more than 0 in every arm")
      }
    }
    let chosen: (difference: IntervalEstimate, test: TestResult)? =
      switch primary {
      case .cuped: cuped.map { ($0.difference, $0.test) }
      case .welch: welch.map { ($0.difference, $0.test) }
      case .ratio: ratio.map { ($0.difference, $0.test) }
      }
    guard let chosen else {
      throw StatsError(.emptyArm, field: field, message: "nothing to compare", hint: "name a metric with --metric or a ratio with --ratio")
    }
    var lift: IntervalEstimate?
    // The lift is the difference over the control's mean (or ratio), its interval the
    // difference's over it: the interval the verdict was made on, scaled.
    let base = primary == .ratio ? ratio?.ratios.first : control.metric.mean.map { $0 + shift }
    if let m = base, m != 0, let d = chosen.difference.estimate {
      lift = IntervalEstimate(
        estimate: d / m,
        interval: chosen.difference.interval.map { i in
          ConfidenceInterval(
            lower: min(i.lower / m, i.upper / m), upper: max(i.lower / m, i.upper / m), confidenceLevel: i.confidenceLevel,
            method: "the difference's interval over the control's mean")
        })
    }
    return Comparison(
      arm: arm.name, welch: welch, cuped: cuped, regression: regression, ratio: ratio, difference: chosen.difference,
      relativeLift: lift, test: chosen.test, adjustedPValue: chosen.test.pValue, significant: false, conclusion: .notSignificant)
  }

  private static func summary(_ a: UserFile.Arm, shift: Double) -> ArmSummary {
    var s = ArmSummary(name: a.name, users: a.users, ratio: a.ratio?.ratio)
    let n = Double(a.metric.n)
    guard n >= 2 else { return s }
    s.mean = a.metric.mean.map { $0 + shift }
    s.standardDeviation = a.metric.variance.map { $0.squareRoot() }
    let p = a.centeredPowers
    let m1 = p[0] / n
    let m2 = p[1] / n - m1 * m1
    let m3 = p[2] / n - 3 * m1 * p[1] / n + 2 * m1 * m1 * m1
    if m2 > 0 {
      let skew = m3 / (m2 * m2.squareRoot())
      s.skewness = skew
      s.usersForNormalInterval = 355 * skew * skew
    }
    return s
  }

  private static func looks(_ file: UserFile, indices: [Int], settings: Settings) throws(StatsError) -> [Look] {
    guard file.hasDays, file.columns.metric != nil else { return [] }
    var totals = [SampleMeanStatistic](repeating: .zero, count: indices.count)
    var users = [Int](repeating: 0, count: indices.count)
    var looks: [Look] = []
    let cs = AsymptoticConfidenceSequence.Settings(
      alpha: settings.alpha, tuningParameter: settings.sequenceTuning, relative: false)
    for day in file.dayOrder {
      for (k, a) in indices.enumerated() {
        let s = file.days[day]?[a] ?? .zero
        totals[k] = totals[k] + s
        users[k] &+= s.n
      }
      let sequences = try totals.dropFirst().map { t throws(StatsError) in
        try AsymptoticConfidenceSequence.means(control: totals[0], treatment: t, settings: cs)
      }
      looks.append(Look(day: day, users: users, sequences: sequences))
    }
    return looks
  }
}
