import FunnelLab
import FunnelReport
import FunnelStats

/// `funnellab power <spec> --compare-bandit`: bandit or fixed A/B test, by simulation.
enum BanditCommand {
  /// The options that only `--compare-bandit` reads.
  static let flags = ["policy", "epsilon", "min-share", "burn-in", "horizon-days", "holdout"]

  /// Reads the options, runs ``BanditPlanner`` and writes the report.
  static func compare(_ arguments: ParsedArguments, console: any Console) throws -> ExitCode {
    let ignored = ["users-per-arm", "target-power", "shard", "shards", "looks", "parameter-uncertainty", "draws", "target-assurance"]
    for flag in ignored where !arguments.all(flag).isEmpty || arguments.flag(flag) {
      throw UsageError(
        message: "--\(flag) is not used by --compare-bandit", hint: "the bandit and the fixed test run --users-per-day for --days")
    }
    guard let perDay = try arguments.integer("users-per-day", in: Limits.Planning.usersPerDay) else {
      throw UsageError(message: "--compare-bandit needs --users-per-day", hint: "e.g. --users-per-day 2000")
    }
    var options = BanditOptions(usersPerDay: perDay)
    options.days = try arguments.integer("days", in: Limits.Planning.days)
    options.horizonDays = try arguments.integer("horizon-days", in: 0...100_000) ?? 28
    options.replicates = try arguments.integer("replicates", in: Limits.Planning.replicates) ?? 2_000
    options.alpha = try arguments.number("alpha", in: Limits.Planning.alpha)
    options.seed = try arguments.unsigned("seed")
    options.holdoutShare = try arguments.number("holdout", in: 0.001...0.5)
    options.allocation = try allocation(arguments)
    let format = try arguments.format(OutputFormat.all)
    let spec = try LoadedSpec.load(arguments, console: console)
    let experiment = spec.experiment
    let variants = try knownVariants(arguments.all("variant"), of: experiment)
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
    let text =
      switch format {
      case .json: BanditRenderer.json(comparison)
      case .csv: BanditRenderer.csv(comparison)
      case .markdown: BanditRenderer.markdown(comparison)
      case .html: BanditRenderer.html(comparison)
      case .table: terminal(BanditRenderer.table(comparison))
      }
    try OutputDestination(path: arguments.value("output")).write(text, console: console)
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
    let name = try arguments.choice("policy", ["thompson", "top-two", "epsilon-greedy"]) ?? "thompson"
    let epsilon = try arguments.number("epsilon", in: 0...1)
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
      policy: policy, minimumShare: try arguments.number("min-share", in: AdaptiveAllocation.smallestMinimumShare...0.49) ?? 0.01,
      burnInDays: try arguments.integer("burn-in", in: 0...100) ?? 1)
  }
}
