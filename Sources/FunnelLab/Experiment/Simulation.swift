public import FunnelStats

/// The entry point for checking assumptions from your own tests: load a spec, run
/// it, and read typed results.
///
/// ```swift
/// let result = try Simulation.run(contentsOf: "experiments/klick-onboarding.json", users: 50_000)
/// let conversion = try result.variant("upsellAfter3").metric(.purchaseConversion)
/// #expect(conversion.interval?.contains(0.0394) == true)
/// ```
///
/// Runs are deterministic for a spec, `users` and `seed`; ``SimulationResult/Arm/exact(_:)``
/// gives the noise-free value the estimate converges to. See the article
/// `docs/TestingYourAssumptions.md`.
///
/// `Simulation` is the one way to run a spec from Swift: ``run(_:options:progress:)``
/// takes every option of `funnellab run` and ``run(_:options:paywall:progress:)`` a
/// purchase layer of your own. The engines beneath it are not public API.
public enum Simulation {
  /// Loads, validates and simulates the spec at `path`.
  /// - Parameters:
  ///   - users: users per variant (default: the spec's `users`).
  ///   - seed: the seed (default: the spec's `seed`).
  ///   - mode: ``RunMode/truth`` (every user walks every variant) or ``RunMode/experiment``.
  /// - Throws: ``SpecErrors`` when the file is missing or the spec invalid.
  /// - Complexity: O(users × variants × steps per user).
  public static func run(contentsOf path: String, users: Int? = nil, seed: UInt64? = nil, mode: RunMode = .truth) throws(SpecErrors)
    -> SimulationResult
  {
    try run(try ExperimentLoader.load(contentsOf: path), users: users, seed: seed, mode: mode)
  }

  /// Simulates an experiment built or modified in code.
  public static func run(_ experiment: Experiment, users: Int? = nil, seed: UInt64? = nil, mode: RunMode = .truth) throws(SpecErrors)
    -> SimulationResult
  {
    let run = try ExperimentRunner.run(experiment, options: RunOptions(users: users, seed: seed, mode: mode))
    return SimulationResult(experiment: experiment, run: run)
  }

  /// Simulates `experiment` with every option the command line has: threads, a subset
  /// of variants, the mode, a shard of the users; `progress` is called from worker
  /// threads with the users finished so far and the users in total.
  /// - Throws: ``SpecErrors`` when the experiment or the options are invalid; nothing
  ///   is simulated then.
  public static func run(
    _ experiment: Experiment, options: RunOptions, progress: (@Sendable (_ done: Int, _ total: Int) -> Void)? = nil
  ) throws(SpecErrors) -> SimulationResult {
    SimulationResult(experiment: experiment, run: try ExperimentRunner.run(experiment, options: options, progress: progress))
  }

  /// Simulates `experiment` in experiment mode with `usersPerDay` new users a day for
  /// `days` days, keeping each arm's running totals at the end of every day
  /// (``ExperimentTimeline`` reads them as a live test).
  /// - Throws: ``SpecErrors`` when the experiment or the options are invalid.
  public static func runByDay(
    _ experiment: Experiment, options: RunOptions, usersPerDay: Int, days: Int,
    progress: (@Sendable (_ done: Int, _ total: Int) -> Void)? = nil
  ) throws(SpecErrors) -> DailyRun {
    try ExperimentRunner.runByDay(experiment, options: options, usersPerDay: usersPerDay, days: days, progress: progress)
  }

  /// Runs a bandit on `experiment`'s arms: `usersPerDay` new users a day for `days` days, each
  /// day's split set by `allocation` from the primary metric so far (``AdaptiveRun``;
  /// ``BanditTimeline`` reads it against the exact truth).
  /// - Throws: ``SpecErrors`` when the experiment or the options are invalid or the primary metric is a mean.
  public static func runAdaptive(
    _ experiment: Experiment, options: RunOptions, usersPerDay: Int, days: Int, allocation: AdaptiveAllocation,
    progress: (@Sendable (_ done: Int, _ total: Int) -> Void)? = nil
  ) throws(SpecErrors) -> AdaptiveRun {
    try ExperimentRunner.runAdaptive(
      experiment, options: options, usersPerDay: usersPerDay, days: days, allocation: allocation, progress: progress)
  }

  /// Simulates `experiment` with a purchase layer of your own (``PaywallManager``) in
  /// place of the mock store each variant's `store` settings configure. The exact
  /// engine knows only the mock store, so the result carries no exact solution
  /// from the run; ``SimulationResult/Arm/exact(_:)`` gives the mock store's truth.
  public static func run<Manager: PaywallManager>(
    _ experiment: Experiment, options: RunOptions = RunOptions(), paywall: Manager,
    progress: (@Sendable (_ done: Int, _ total: Int) -> Void)? = nil
  ) throws(SpecErrors) -> SimulationResult {
    let run = try ExperimentRunner.run(experiment, options: options, paywall: paywall, progress: progress)
    return SimulationResult(experiment: experiment, run: run)
  }

  /// Checks the expectations written in the spec at `path` (what `funnellab check` does).
  public static func check(contentsOf path: String) throws(SpecErrors) -> [ExpectationResult] {
    try ExpectationChecker.check(try ExperimentLoader.load(contentsOf: path))
  }
}
