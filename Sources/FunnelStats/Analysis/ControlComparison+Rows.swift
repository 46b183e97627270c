import Foundation

/// The per-arm computations of ``ControlComparison``.
extension ControlComparison {
  static func row(_ data: Data, arm i: Int, control c: Int, settings: Settings) throws(StatsError) -> Row {
    var row = Row(
      arm: i, difference: nil, relativeLift: nil, test: nil, adjustedPValue: nil, significant: false,
      probabilityToBeatControl: nil, expectedLoss: nil, diagnostics: [])
    switch data {
    case .proportions(let counts): try proportionRow(&row, counts[i], counts[c], settings)
    case .means(let stats): try meanRow(&row, stats[i], stats[c], settings)
    }
    var unique: [Diagnostic] = []
    for d in row.diagnostics where !unique.contains(d) { unique.append(d) }
    row.diagnostics = unique
    return row
  }

  /// The level of a two-sided interval whose one bound is the one-sided bound at `1 − α`.
  static func twoSidedLevel(_ settings: Settings) throws(StatsError) -> Double {
    guard settings.alternative != .twoSided else { return 1 - settings.alpha }
    guard settings.alpha < 0.5 else {
      throw StatsError(
        .invalidParameter, field: [.name(.settings), .name(.alpha)], message: "a one-sided test needs α < 0.5, got \(settings.alpha)")
    }
    return 1 - 2 * settings.alpha
  }

  /// Keeps the bound of `e` that a one-sided alternative tests, the other at the range's end.
  static func sided(_ e: IntervalEstimate, _ settings: Settings, lowerEnd: Double, upperEnd: Double) -> IntervalEstimate {
    guard settings.alternative != .twoSided, var ci = e.interval else { return e }
    if settings.alternative == .greater { ci.upper = upperEnd } else { ci.lower = lowerEnd }
    ci.confidenceLevel = 1 - settings.alpha
    var out = e
    out.interval = ci
    return out
  }

  static func proportionRow(_ row: inout Row, _ t: ProportionCount, _ k: ProportionCount, _ settings: Settings) throws(StatsError) {
    guard t.trials > 0, k.trials > 0 else {
      row.diagnostics.append(.emptyArm)
      return
    }
    // One user's outcome has no variance to test against: no p-value, no interval.
    guard t.trials >= 2, k.trials >= 2 else {
      row.diagnostics.append(.insufficientData)
      return
    }
    let alternative = settings.alternative
    switch settings.proportionTest {
    case .score:
      let level = 1 - settings.alpha
      row.test = try TwoProportionScoreTest.test(treatment: t, control: k, alternative: alternative)
      row.difference = try ProportionDifference.miettinenNurminenInterval(
        treatment: t, control: k, confidenceLevel: level, alternative: alternative)
      row.relativeLift = try RelativeLift.scoreInterval(treatment: t, control: k, confidenceLevel: level, alternative: alternative)
    case .pooledZ:
      let level = try twoSidedLevel(settings)
      row.test = try TwoProportionZTest.test(treatment: t, control: k, alternative: alternative)
      row.difference = sided(
        try ProportionDifference.newcombeInterval(treatment: t, control: k, confidenceLevel: level), settings, lowerEnd: -1,
        upperEnd: 1)
      row.relativeLift = sided(
        try RelativeLift.interval(treatment: t, control: k, confidenceLevel: level), settings, lowerEnd: -1, upperEnd: .infinity)
    }
    if let d = row.test?.diagnostic { row.diagnostics.append(d) }
    if let d = row.relativeLift?.diagnostic { row.diagnostics.append(d) }
    guard settings.bayesian else { return }
    let model = oriented(settings)
    let (bt, bk) = (oriented(t, settings), oriented(k, settings))
    row.probabilityToBeatControl = try model.probabilityToBeat(treatment: bt, control: bk)
    row.expectedLoss = try model.expectedLoss(treatment: bt, control: bk)
  }

  static func meanRow(_ row: inout Row, _ t: SampleMeanStatistic, _ k: SampleMeanStatistic, _ settings: Settings) throws(StatsError) {
    guard t.n > 0, k.n > 0 else {
      row.diagnostics.append(.emptyArm)
      return
    }
    let level = try twoSidedLevel(settings)
    let welch = try WelchTTest.test(treatment: t, control: k, alternative: settings.alternative, confidenceLevel: level)
    if let d = welch.test.diagnostic { row.diagnostics.append(d) }
    row.difference = sided(welch.difference, settings, lowerEnd: -.infinity, upperEnd: .infinity)
    guard welch.test.diagnostic != .insufficientData else { return }
    row.relativeLift = sided(
      try RelativeLift.welchInterval(treatment: t, control: k, confidenceLevel: level), settings, lowerEnd: -.infinity,
      upperEnd: .infinity)
    row.test = welch.test
    guard settings.bayesian else { return }
    let posterior = try NormalPosteriorModel.compare(treatment: oriented(t, settings), control: oriented(k, settings))
    row.probabilityToBeatControl = posterior.probabilityToBeat
    row.expectedLoss = posterior.expectedLoss
  }

  /// The prior of the oriented rate: shapes swapped when lower is better.
  static func oriented(_ settings: Settings) -> BetaBinomialModel {
    settings.higherIsBetter
      ? settings.prior : BetaBinomialModel(priorAlpha: settings.prior.priorBeta, priorBeta: settings.prior.priorAlpha)
  }

  /// Successes, or failures when lower is better.
  static func oriented(_ count: ProportionCount, _ settings: Settings) -> ProportionCount {
    settings.higherIsBetter ? count : ProportionCount(uncheckedSuccesses: count.trials - count.successes, trials: count.trials)
  }

  /// The statistic, negated when lower is better.
  static func oriented(_ s: SampleMeanStatistic, _ settings: Settings) -> SampleMeanStatistic {
    settings.higherIsBetter ? s : SampleMeanStatistic(n: s.n, sum: -s.sum, sumOfSquares: s.sumOfSquares)
  }

  /// The posterior probability that each arm is the best, oriented by
  /// ``Settings/higherIsBetter``, among the arms with data (users for proportions, two users
  /// for means; `nil` for the others), as ``compare(_:control:settings:)`` reports it.
  ///
  /// - Throws: ``StatsError`` for an invalid prior or statistic.
  public static func probabilityToBeBest(_ data: Data, settings: Settings) throws(StatsError) -> [Double?] {
    var best = [Double?](repeating: nil, count: data.count)
    switch data {
    case .proportions(let counts):
      let usable = counts.indices.filter { counts[$0].trials > 0 }
      guard !usable.isEmpty else { return best }
      let p = try oriented(settings).probabilityToBeBest(usable.map { oriented(counts[$0], settings) })
      for (k, i) in usable.enumerated() { best[i] = p[k] }
    case .means(let stats):
      let usable = stats.indices.filter { stats[$0].n > 1 }
      guard !usable.isEmpty else { return best }
      let p = try NormalPosteriorModel.probabilityToBeBest(usable.map { oriented(stats[$0], settings) })
      for (k, i) in usable.enumerated() { best[i] = p[k] }
    }
    return best
  }
}
