import FunnelLab
import FunnelReport
import FunnelStats

/// `funnellab power <spec> --compare-bandit`: bandit or fixed A/B test, by simulation.
enum BanditCommand {
  /// The options of a bandit's allocation, declared once for `run --mode bandit` and `power --compare-bandit`.
  enum Key {
    static let policy = Option<String?>.choice(
      "policy", valueName: "name", help: "The bandit's policy: thompson (default), top-two or epsilon-greedy.",
      ["thompson", "top-two", "epsilon-greedy"])
    static let epsilon = Option<Double?>.number(
      "epsilon", valueName: "e", help: "With --policy epsilon-greedy: the exploration share (default 0.1).", in: 0...1)
    static let minimumShare = Option<Double?>.number(
      "min-share", valueName: "m", help: "The bandit's minimum share of each arm (default 0.01).",
      in: AdaptiveAllocation.smallestMinimumShare...0.49)
    static let burnIn = Option<Int?>.integer(
      "burn-in", valueName: "days", help: "The bandit's days at an equal split first (default 1).", in: 0...100)
    static let horizonDays = Option<Int?>.integer(
      "horizon-days", valueName: "n", help: "With --compare-bandit: days after the test with the winner shipped (default 28).",
      in: 0...100_000)
    static let holdout = Option<Double?>.number(
      "holdout", valueName: "share", help: "With --compare-bandit: a holdout share kept on the control after shipping.", in: 0.001...0.5)

    /// The options of the allocation rule (``allocation(_:)``).
    static let allocation: [any OptionKey] = [policy, epsilon, minimumShare, burnIn]
    /// The options that only `--compare-bandit` reads.
    static let compareOnly: [any OptionKey] = allocation + [horizonDays, holdout]
  }

  /// Reads the options, runs ``BanditPlanner`` and writes the report.
  static func compare(_ arguments: ParsedArguments, console: any Console) throws -> ExitCode {
    let ignored: [any OptionKey] = [
      PowerCommand.Key.usersPerArm, PowerCommand.Key.targetPower, SharedOptions.shard, SharedOptions.shards, PowerCommand.Key.looks,
      PredictionOptions.parameterUncertainty, PredictionOptions.draws, PowerCommand.Key.targetAssurance,
    ]
    if let flag = arguments.firstGiven(ignored)?.spec.name {
      throw UsageError(
        message: "--\(flag) is not used by --compare-bandit", hint: "the bandit and the fixed test run --users-per-day for --days")
    }
    guard let perDay = try arguments[PowerCommand.Key.usersPerDay.within(Limits.Planning.usersPerDay)] else {
      throw UsageError(message: "--compare-bandit needs --users-per-day", hint: "e.g. --users-per-day 2000")
    }
    var options = BanditOptions(usersPerDay: perDay)
    options.days = try arguments[PowerCommand.Key.days]
    options.horizonDays = try arguments[Key.horizonDays] ?? 28
    options.replicates = try arguments[PowerCommand.Key.replicates] ?? 2_000
    options.alpha = try arguments[PowerCommand.Key.planningAlpha]
    options.seed = try arguments[SharedOptions.seed]
    options.threads = try arguments[SharedOptions.threads]
    options.holdoutShare = try arguments[Key.holdout]
    options.allocation = try allocation(arguments)
    let format = try arguments[PowerCommand.Key.format]
    let spec = try LoadedSpec.load(arguments, console: console)
    let experiment = spec.experiment
    let variants = try knownVariants(arguments[PowerCommand.Key.variant], of: experiment)
    options.variants = variants.isEmpty ? nil : variants
    // The same checks, messages and exit code (64) as `run --mode bandit`.
    try validate(options.allocation, arms: armCount(variants, of: experiment))
    if let days = options.days { try validateBurnIn(options.allocation, days: days) }
    let comparison: BanditComparison
    do {
      comparison = try ProgressBar.around(console: console, label: "bandit vs A/B", unit: "blocks") { update throws(SpecErrors) in
        try BanditPlanner.compare(experiment, options: options, progress: update)
      }
    } catch {
      throw CommandFailure.invalid(error)
    }
    try OutputDestination(path: try arguments[OutputDestination.option]).write(
      BanditRenderer.Report(comparison), as: format, console: console)
    return .success
  }

  /// The arms a run of `variants` (`--variant`, deduplicated, the control always in) has.
  static func armCount(_ variants: [String], of experiment: Experiment) -> Int {
    guard !variants.isEmpty else { return experiment.variants.count }
    return Set(variants).subtracting([experiment.variants.first?.id ?? ""]).count + 1
  }

  /// Refuses a bandit of too few or too many arms, or a `--min-share` out of range, naming the flag.
  static func validate(_ allocation: AdaptiveAllocation, arms: Int) throws(UsageError) {
    do {
      try allocation.validate(arms: arms)
    } catch {
      guard error.field.argument == .minimumShare else { throw UsageError(message: error.message, hint: error.hint) }
      throw UsageError(message: "--min-share \(JSONValue.format(allocation.minimumShare)): \(error.message)", hint: error.hint)
    }
  }

  /// Refuses a burn-in that leaves no adaptive day, naming both flags.
  static func validateBurnIn(_ allocation: AdaptiveAllocation, days: Int) throws(UsageError) {
    guard allocation.burnInDays < days else {
      throw UsageError(
        message: "--burn-in \(allocation.burnInDays) must be shorter than --days \(days)", hint: "fewer burn-in days or more days")
    }
  }

  /// `--policy`, `--epsilon`, `--min-share` and `--burn-in` as an allocation rule.
  static func allocation(_ arguments: ParsedArguments) throws(UsageError) -> AdaptiveAllocation {
    let name = try arguments[Key.policy] ?? "thompson"
    let epsilon = try arguments[Key.epsilon]
    if epsilon != nil, name != "epsilon-greedy" {
      throw UsageError(message: "--epsilon is for --policy epsilon-greedy", hint: "add --policy epsilon-greedy")
    }
    let policy: AdaptiveAllocation.Policy =
      switch name {
      case "top-two": .topTwoThompson(leaderProbability: 0.5)
      case "epsilon-greedy": .epsilonGreedy(epsilon: epsilon ?? 0.1)
      default: .thompson
      }
    return AdaptiveAllocation(
      policy: policy, minimumShare: try arguments[Key.minimumShare] ?? 0.01, burnInDays: try arguments[Key.burnIn] ?? 1)
  }
}
