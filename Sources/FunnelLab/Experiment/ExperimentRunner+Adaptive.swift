package import FunnelStats

/// An experiment-mode run whose split follows the data: a bandit on the flow's variants.
public struct AdaptiveRun: Sendable {
  /// The run over every day's users, analysed like any experiment-mode run (exact solution included).
  package var run: RunResult
  /// Users arriving each day (all arms).
  package var usersPerDay: Int
  /// The rule that set each day's shares.
  package var allocation: AdaptiveAllocation
  /// The primary metric the bandit optimised (a rate).
  package var metric: FunnelMetric
  /// Each arm's aggregate over the users of day 1 through day `d + 1`, in ``RunResult/variants`` order.
  package var cumulative: [[FunnelAggregate]]
  /// The share of each arm on each day: the assignment probabilities (propensities) users met.
  package var shares: [[Double]]
  /// Each arm's probability of being best from the data before each day, then after the last day
  /// (one more entry than ``shares``).
  package var probabilityBest: [[Double]]
}

extension ExperimentRunner {
  /// A bandit on `experiment`'s arms: `usersPerDay` new users a day for `days` days (users
  /// `d·usersPerDay ..< (d + 1)·usersPerDay` on day `d`, as ``runByDay(_:options:usersPerDay:days:progress:)``),
  /// each day split by `allocation`'s shares computed from the primary metric's counts so far.
  /// A user's arm is the spec's hash of its number read against that day's shares, and its walk
  /// depends only on the seed and its number: the same seed gives the same bytes on any thread count.
  /// - Throws: ``SpecErrors`` when the experiment or the options are invalid, or the primary
  ///   metric is not a rate.
  /// - Complexity: O(users × steps per user), plus one allocation per day.
  package static func runAdaptive(
    _ experiment: Experiment, options: RunOptions, usersPerDay: Int, days: Int, allocation: AdaptiveAllocation,
    progress: (@Sendable (_ done: Int, _ total: Int) -> Void)? = nil
  ) throws(SpecErrors) -> AdaptiveRun {
    let metric = experiment.metrics.primary
    let (options, product) = try dailyOptions(experiment, options: options, usersPerDay: usersPerDay, days: days, what: "a bandit run")
    if let refusal = metric.banditRefusal() { throw SpecErrors(source: experiment.name, errors: [refusal]) }
    let plan = try Plan(experiment, options: options)
    let ids = plan.selected.map { experiment.variants[$0].id }
    do throws(StatsError) {
      try allocation.validate(arms: ids.count)
      guard allocation.burnInDays < days else {
        throw StatsError(
          .invalidParameter, field: [.name(.burnInDays)],
          message: "the burn-in must be shorter than the run (burn-in \(allocation.burnInDays), run \(days), in days)")
      }
    } catch {
      throw SpecErrors(
        source: experiment.name,
        errors: [SpecError(.invalidValue, path: .root, message: "\(error.field): \(error.message)", hint: error.hint)])
    }
    let engine = MonteCarloEngine(threads: options.threads)
    let counter = ProgressCounter()
    let total = product * plan.selected.count
    let report: @Sendable (Int) -> Void = { finished in
      if let progress { progress(counter.add(finished), total) }
    }
    var cumulative: [[FunnelAggregate]] = []
    var shares: [[Double]] = []
    var best: [[Double]] = []
    let perDay = UInt64(usersPerDay)
    for day in 0...days {
      let counts = try Self.counts(metric, cumulative.last, arms: ids.count, experiment: experiment)
      let chosen: (weights: [Double], probabilityBest: [Double])
      do throws(StatsError) {
        chosen = try allocation.weights(after: counts, day: day)
      } catch {
        throw SpecErrors(source: experiment.name, errors: [SpecError(.invalidValue, path: .root, message: error.message, hint: nil)])
      }
      best.append(chosen.probabilityBest)
      guard day < days else { break }
      let assignment = HashAssignment(
        salt: experiment.assignmentSalt, arms: ids, weights: Dictionary(uniqueKeysWithValues: zip(ids, chosen.weights)))
      shares.append(assignment.shares)
      let today = arms(
        experiment, plan, assignment: assignment, range: UInt64(day) * perDay..<UInt64(day + 1) * perDay, engine: engine,
        paywall: nil as MockPaywallManager?, report: report
      ).map(\.aggregate)
      cumulative.append(cumulative.last.map { zip($0, today).map { $0 + $1 } } ?? today)
    }
    var result = try result(of: experiment, options: options, aggregates: cumulative.last ?? [])
    result.assignment = nil
    return AdaptiveRun(
      run: result, usersPerDay: usersPerDay, allocation: allocation, metric: metric, cumulative: cumulative, shares: shares,
      probabilityBest: best)
  }

  /// Each arm's successes and users of `metric` in `aggregates` (zeros before the first day).
  static func counts(_ metric: FunnelMetric, _ aggregates: [FunnelAggregate]?, arms: Int, experiment: Experiment) throws(SpecErrors)
    -> [ProportionCount]
  {
    guard let aggregates else { return (0..<arms).compactMap { _ in try? ProportionCount(successes: 0, trials: 0) } }
    guard case .proportions(let counts)? = MetricAnalysis.data(metric, aggregates) else {
      throw SpecErrors(
        source: experiment.name,
        errors: [SpecError(path: [.key("metrics"), .key("primary")], message: "\(metric.rawValue) has no count to allocate by", hint: nil)])
    }
    return counts
  }
}
