extension ExperimentRunner {
  /// Experiment mode with `usersPerDay` new users a day for `days` days: day `d` brings the
  /// users numbered `d·usersPerDay ..< (d + 1)·usersPerDay`, each assigned to its arm by the
  /// spec's hash as in any experiment-mode run. Every user's walk depends only on the seed and
  /// its number, so the days add up to exactly the run of users `0 ..< usersPerDay·days` at
  /// once (the experiment-mode run of `--users U` when that is `U` × the arms), on any number of
  /// threads.
  /// - Throws: ``SpecErrors`` when the experiment or the options are invalid (days outside
  ///   1…100, no user a day, more than ``Limits/users`` in all, a shard).
  /// - Complexity: O(users × steps per user), as one run of all the days' users.
  package static func runByDay(
    _ experiment: Experiment, options: RunOptions, usersPerDay: Int, days: Int,
    progress: (@Sendable (_ done: Int, _ total: Int) -> Void)? = nil
  ) throws(SpecErrors) -> DailyRun {
    let (options, product) = try dailyOptions(experiment, options: options, usersPerDay: usersPerDay, days: days, what: "a run by day")
    let perDay = UInt64(usersPerDay)
    let population = UInt64(product)
    let plan = try Plan(experiment, options: options)
    guard let assignment = plan.assignment else {
      return DailyRun(run: try run(experiment, options: options), usersPerDay: usersPerDay, cumulative: [])
    }
    let engine = MonteCarloEngine(threads: options.threads)
    let total = Int(clamping: population) * plan.selected.count
    let counter = ProgressCounter()
    let report: @Sendable (Int) -> Void = { finished in
      if let progress { progress(counter.add(finished), total) }
    }
    var cumulative: [[FunnelAggregate]] = []
    for day in 0..<UInt64(days) {
      let today = arms(
        experiment, plan, assignment: assignment, range: day * perDay..<(day + 1) * perDay, engine: engine,
        paywall: nil as MockPaywallManager?, report: report
      ).map(\.aggregate)
      cumulative.append(cumulative.last.map { zip($0, today).map { $0 + $1 } } ?? today)
    }
    let result = try result(of: experiment, options: options, aggregates: cumulative.last ?? [])
    return DailyRun(run: result, usersPerDay: usersPerDay, cumulative: cumulative)
  }

  /// `options` for the experiment-mode run of `usersPerDay × days` users (the users per arm that
  /// many make), and that product.
  /// - Throws: ``SpecErrors`` naming `what` when the days are outside 1...100, there is no user
  ///   a day, the product is above ``Limits/users`` or the run is a shard.
  static func dailyOptions(_ experiment: Experiment, options: RunOptions, usersPerDay: Int, days: Int, what: String) throws(SpecErrors)
    -> (RunOptions, Int)
  {
    var options = options
    options.mode = .experiment
    let (product, overflow) = usersPerDay.multipliedReportingOverflow(by: days)
    guard usersPerDay >= 1, (1...100).contains(days), !overflow, product <= Limits.users.upperBound, options.shard == nil else {
      throw SpecErrors(
        source: experiment.name,
        errors: [
          SpecError(
            .invalidValue, path: .root,
            message: "\(what) needs 1...100 days and 1 or more users a day, \(Limits.users.upperBound) at most in all, unsharded",
            hint: "e.g. 20000 users a day for 14 days")
        ])
    }
    let armCount = max(options.variants.map { $0.count + 1 } ?? experiment.variants.count, 1)
    options.users = (product + armCount - 1) / armCount
    return (options, product)
  }
}
