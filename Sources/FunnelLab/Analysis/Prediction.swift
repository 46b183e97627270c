import FunnelStats

/// What an experiment's comparison looks like when the behavior parameters are not known
/// exactly: every variant solved by the exact engine at each draw of
/// ``ParameterUncertainty``, and per variant the **predictive distribution of its effect**
/// on the metric against the control.
///
/// This is the uncertainty of the *assumptions*, not sampling noise: every value is exact
/// (no users are simulated), so with all parameters known the interval would shrink to the
/// assumed effect whatever the sample size. A variant's interval is the central `level`
/// range of its effect over the draws (quantiles with linear interpolation), its
/// probability to beat the control the share of draws where its effect is in the metric's
/// good direction (Monte Carlo error at most `½/√draws`).
///
/// - Complexity: one exact solve of every variant per draw, the draws spread over the
///   cores; results do not depend on the thread count (draws are made first, from the seed).
package struct Prediction: Sendable {
  /// One variant's predicted effect.
  package struct Effect: Sendable, Hashable {
    /// The variant's id.
    package var variant: String
    /// The exact metric with the spec's parameter values.
    package var assumedValue: Double?
    /// The exact effect (variant − control) with the spec's values; `0` for the control.
    package var assumedEffect: Double?
    /// The central interval of the variant's metric over the draws.
    package var valueInterval: ClosedRange<Double>?
    /// The median effect over the draws.
    package var medianEffect: Double?
    /// The predictive interval of the effect (variant − control), at ``Prediction/level``.
    package var effectInterval: ClosedRange<Double>?
    /// The predictive interval of the relative lift (variant / control − 1); `nil` when the control's value can be 0.
    package var liftInterval: ClosedRange<Double>?
    /// The share of draws where the effect is in the metric's good direction; `nil` for the control.
    package var probabilityToBeatControl: Double?
    /// The draws at which both the variant's and the control's metric are defined.
    package var definedDraws: Int
  }

  /// The experiment's name.
  package var experiment: String
  /// The metric the effects are on (the spec's primary metric unless another was asked for).
  package var metric: FunnelMetric
  /// The coverage of the intervals (1 − the spec's `metrics.alpha`).
  package var level: Double
  /// The seed of the draws.
  package var seed: UInt64
  /// The distributions drawn from, ``ParameterUncertainty/draws`` the number of draws made.
  package var uncertainty: ParameterUncertainty
  /// Each draw's parameter values, in the order of ``ParameterUncertainty/parameters``.
  package var draws: [[Double]]
  /// Each draw's exact metric per variant (in ``variants``' order); `nil` where undefined.
  package var values: [[Double?]]
  /// Per variant, the control first.
  package var variants: [Effect]

  /// The largest Monte Carlo standard error of a share of the draws (`P(beat control)`):
  /// `0.5 / √draws`, the binomial standard error at a share of ½.
  package var shareStandardError: Double { 0.5 / Double(max(draws.count, 1)).squareRoot() }

  /// The variant most likely to beat the control across the draws, with that chance.
  package var mostLikelyWinner: Effect? {
    variants.dropFirst().filter { $0.probabilityToBeatControl != nil }.max {
      ($0.probabilityToBeatControl ?? 0) < ($1.probabilityToBeatControl ?? 0)
    }
  }

  /// Draws the parameters and solves every variant of `experiment` at each draw.
  /// - Parameters:
  ///   - variants: only these variants beside the control (default: every listed variant); ids the spec lacks are ignored.
  ///   - uncertainty: what to draw from (default: the spec's `parameterUncertainty`).
  ///   - draws: overrides the section's draw count.
  ///   - seed: the seed of the draws (default: the spec's).
  ///   - alpha: the intervals are at 1 − `alpha` (default: the spec's `metrics.alpha`).
  ///   - progress: called with the number of draws just solved.
  /// - Throws: ``SpecErrors`` when the experiment has no uncertainty section, the section or
  ///   a draw of it is invalid, or the distributions leave almost no mass inside the ranges.
  package static func run(
    _ experiment: Experiment, variants: [String]? = nil, uncertainty: ParameterUncertainty? = nil, draws: Int? = nil,
    seed: UInt64? = nil, metric: FunnelMetric? = nil, alpha: Double? = nil, threads: Int? = nil,
    progress: (@Sendable (Int) -> Void)? = nil
  ) throws(SpecErrors) -> Prediction {
    let path = SpecPath([.key("parameterUncertainty")])
    func failure(_ message: String, _ hint: String, kind: SpecError.Kind = .invalidValue) -> SpecErrors {
      SpecErrors(source: experiment.name, errors: [SpecError(kind, path: path, message: message, hint: hint)])
    }
    guard var uncertainty = uncertainty ?? experiment.parameterUncertainty else {
      throw failure(
        "the spec has no parameterUncertainty section",
        "add one (see \"Planning with uncertain assumptions\" in docs/guide-planning.md), or write it with calibrate --variants -o",
        kind: .missingKey)
    }
    if let draws { uncertainty.draws = draws }
    let problems = uncertainty.validationErrors(at: path)
    guard problems.isEmpty else { throw SpecErrors(source: experiment.name, errors: problems) }
    let seed = seed ?? experiment.seed
    guard let parameterDraws = uncertainty.values(count: uncertainty.draws, seed: seed) else {
      throw failure(
        "the distributions put almost no mass inside the parameters' ranges (1000 draws in a row fell outside)",
        "center each normal inside its parameter's range, or narrow its sd")
    }
    let metric = metric ?? experiment.metrics.primary
    // The whole spec is validated once (by compileAll); a draw changes only parameters kept inside their ranges.
    let flows = try FlowCompiler.compileAll(experiment)
    let indices = experiment.variants.indices.filter { $0 == 0 || variants?.contains(experiment.variants[$0].id) ?? true }
    let assumed = indices.map { ExactEngine.solve(flows[$0]).value(of: metric) }
    let uncertain = uncertainty.parameters.map(\.parameter)
    // A draw changes a few parameters: the screens they do not touch keep their threshold rows.
    let memo = CompileMemo()
    let solved = ExactTruth.solve(count: parameterDraws.count, threads: threads, progress: progress) {
      k -> Result<[Double?], SpecErrors> in
      var e = experiment
      for (parameter, value) in zip(uncertain, parameterDraws[k]) { e.behavior[parameter] = value }
      return Result { () throws(SpecErrors) in
        // Only the metric is walked (ExactEngine.value): a draw needs nothing else.
        try indices.map { i throws(SpecErrors) in ExactEngine.value(of: metric, try FlowCompiler.compile(e, variant: i, memo: memo)) }
      }
    }
    var values: [[Double?]] = []
    for result in solved {
      switch result {
      case .success(let row): values.append(row)
      case .failure(let error): throw error
      }
    }
    let level = 1 - (alpha ?? experiment.metrics.alpha)
    let effects = indices.indices.map { j in
      effect(of: j, id: experiment.variants[indices[j]].id, assumed: assumed, values: values, metric: metric, level: level)
    }
    return Prediction(
      experiment: experiment.name, metric: metric, level: level, seed: seed, uncertainty: uncertainty, draws: parameterDraws,
      values: values, variants: effects)
  }

  static func effect(of j: Int, id: String, assumed: [Double?], values: [[Double?]], metric: FunnelMetric, level: Double) -> Effect {
    let tail = (1 - level) / 2
    func interval(_ xs: [Double]) -> ClosedRange<Double>? {
      guard !xs.isEmpty else { return nil }
      let (low, high) = (Bootstrap.quantile(xs, tail), Bootstrap.quantile(xs, 1 - tail))
      return low <= high ? low...high : nil
    }
    var own: [Double] = []
    var effects: [Double] = []
    var lifts: [Double] = []
    var wins = 0
    for row in values {
      guard let v = row[j] else { continue }
      own.append(v)
      guard let c = row[0] else { continue }
      effects.append(v - c)
      if c != 0 { lifts.append(v / c - 1) }
      if metric.higherIsBetter ? v > c : v < c { wins += 1 }
    }
    let assumedEffect = assumed[j].flatMap { v in assumed[0].map { v - $0 } }
    return Effect(
      variant: id, assumedValue: assumed[j], assumedEffect: assumedEffect, valueInterval: interval(own),
      medianEffect: effects.isEmpty ? nil : Bootstrap.quantile(effects, 0.5), effectInterval: interval(effects),
      liftInterval: lifts.count == effects.count ? interval(lifts) : nil,
      probabilityToBeatControl: j == 0 || effects.isEmpty ? nil : Double(wins) / Double(effects.count), definedDraws: effects.count)
  }
}
