import FunnelLab
import FunnelReport
import FunnelStats

/// `funnellab run`: simulate every variant of an experiment and report the funnels.
enum RunCommand: Command {
  static let spec = CommandSpec(
    name: "run",
    abstract: "Simulate every variant of an experiment and show each funnel.",
    discussion: """
      Walks the same synthetic users through every variant (truth mode: common random
      numbers, so differences between variants are paired estimates over the same
      users, with paired intervals and tests) and reports, per variant, users reaching
      each screen, drop-off, completion, skip rate, paywall view rate, purchase
      conversion, plan mix and time to finish, beside the exact values of the exact
      engine (no sampling noise).
      With --mode bandit --users-per-day N --days D: a bandit on the variants, as
      GrowthBook-style bandits run one: each day's split follows the primary metric so
      far (--policy thompson, top-two or epsilon-greedy; --burn-in days at an equal
      split; every arm kept at --min-share). Reports the shares by day, the arm it would
      ship, the conversions it lost against the exact best arm, and its naive and
      inverse-propensity estimates beside the exact differences.
      With --mode experiment, users are split among the arms as a live A/B test
      would split them and the test is analysed as an experiment platform would;
      every verdict is graded against the exact difference. Add --users-per-day N
      --days D to run it as a live test: N new users a day (all arms) for D days
      (at most 100), the primary metric read every day as 'analyze' reads a daily
      file (fixed-horizon, group-sequential and always-valid columns, the last day the
      planned end), with the exact lift beside it and each decision graded.
      With --parameter-uncertainty: no users are simulated; the behavior parameters are
      drawn from the spec's parameterUncertainty section (--draws, --seed, --metric) and every
      variant is solved exactly per draw, giving each effect's predictive interval and
      the probability that the variant beats the control (as 'exact' does).
      Without <spec>, runs the built-in Klick onboarding experiment.
      Results depend only on the spec and the seed: any --threads gives the same bytes.
      A progress bar appears on stderr when it is a terminal. A run estimated at over
      10 s is announced first, and off a terminal it reports every 10 %.
      """,
    positionals: [PositionalSpec(name: "spec", help: "An experiment spec (JSON); default: built-in klick-onboarding.")],
    options: [
      Key.users, SharedOptions.seed, SharedOptions.threads, Key.variant, Key.mode, Key.format, SharedOptions.alpha,
      OutputDestination.option, Key.usersPerDay, Key.days,
    ] + BanditCommand.Key.allocation + PredictionOptions.options + [PredictionOptions.metric] + SharedOptions.shardOptions,
    conflicts: SharedOptions.shardConflicts([Key.format]),
    requirements: PredictionOptions.requirements,
    examples: [
      "funnellab run",
      "funnellab run experiments/betfree-onboarding.json --users 200000",
      "funnellab run experiments/klick-onboarding.json --format json --threads 1 -o klick.json",
      "funnellab run experiments/betfree-onboarding.json --mode experiment --users 50000",
      "funnellab run experiments/klick-onboarding.json --mode experiment --users-per-day 20000 --days 14 --variant features5",
      "funnellab run experiments/klick-onboarding.json --mode bandit --users-per-day 20000 --days 14",
      "funnellab run experiments/betfree-onboarding.json --parameter-uncertainty --variant defaultMonthly --draws 20",
    ])

  /// The options of `run` (the shared ones are ``SharedOptions``).
  enum Key {
    static let users = Option<Int?>.integer(
      "users", short: "n", valueName: "n", help: "Users per variant (default: the spec's \"users\").", in: Limits.users)
    static let variant = Option<[String]>.repeatable("variant", valueName: "id", help: "Run only this variant (and the control).")
    static let mode = Option<String?>.choice(
      "mode", valueName: "mode",
      help:
        "truth (default: every user walks every variant), experiment (users split among arms by hash, analysed like an A/B test, beside the exact truth) or bandit (the split follows the data, by day).",
      RunMode.allCases.map(\.rawValue) + ["bandit"])
    static let format = Option<OutputFormat>.format(
      for: RunReport.Content.self, ExperimentReportRenderer.Report.self, BanditRenderer.RunReport.self, PredictionRenderer.Report.self)
    static let usersPerDay = Option<Int?>.integer(
      "users-per-day", valueName: "n", help: "With --mode experiment or bandit: new users a day, all arms (needs --days).",
      in: 1...Limits.users.upperBound)
    static let days = Option<Int?>.integer(
      "days", valueName: "n", help: "With --users-per-day: days the test runs (1...100).", in: 1...GroupSequentialDesign.maxLooks)
  }

  static func run(_ arguments: ParsedArguments, console: any Console) throws -> ExitCode {
    let users = try arguments[Key.users]
    let seed = try arguments[SharedOptions.seed]
    let threads = try arguments[SharedOptions.threads]
    let format = try arguments[Key.format]
    let modeName = try arguments[Key.mode] ?? "truth"
    if try arguments[PredictionOptions.parameterUncertainty] {
      let simulationOnly: [any OptionKey] =
        [Key.mode, SharedOptions.shard, SharedOptions.shards, Key.users, Key.usersPerDay, Key.days] + BanditCommand.Key.allocation
      if let flag = arguments.firstGiven(simulationOnly)?.spec.name {
        throw UsageError(
          message: "--parameter-uncertainty solves every draw exactly: it simulates no users and takes no --\(flag)",
          hint: "drop --\(flag)")
      }
      var experiment = try LoadedSpec.load(arguments, console: console).experiment
      try applyAlpha(arguments, to: &experiment)
      return try PredictionOptions.write(
        experiment, arguments: arguments, variant: Key.variant, format: format, seed: seed, threads: threads, command: "run",
        console: console)
    }
    if modeName == "bandit" { return try runBandit(arguments, console: console) }
    if let flag = arguments.firstGiven(BanditCommand.Key.allocation)?.spec.name {
      throw UsageError(message: "--\(flag) needs --mode bandit", hint: "add --mode bandit --users-per-day N --days D")
    }
    let mode = RunMode(rawValue: modeName) ?? .truth
    let output = OutputDestination(path: try arguments[OutputDestination.option])
    let spec = try LoadedSpec.load(arguments, console: console)
    var experiment = spec.experiment
    try applyAlpha(arguments, to: &experiment)
    let variants = try knownVariants(arguments[Key.variant], of: experiment)
    var options = RunOptions(users: users, seed: seed, threads: threads, variants: variants.isEmpty ? nil : variants)
    options.shard = try shard(arguments, console: console)
    if options.shard != nil, mode == .experiment {
      throw UsageError(message: "--shard works with --mode truth", hint: "shard the truth run, or run experiment mode on one machine")
    }
    options.mode = mode
    let schedule = try dailySchedule(arguments, mode: mode, users: users)
    let bar = ProgressBar(
      console: console, label: "simulating", enabled: !(try arguments[TerminalOptions.quiet]),
      estimate: WorkEstimate.run(experiment, options: options, usersPerDay: schedule?.usersPerDay, days: schedule?.days),
      threads: threads)
    let result: RunResult
    var daily: DailyRun?
    do {
      if let schedule {
        let run = try Simulation.runByDay(experiment, options: options, usersPerDay: schedule.usersPerDay, days: schedule.days) {
          done, total in bar.update(done: done, total: total)
        }
        daily = run
        result = run.run
      } else {
        result = try Simulation.run(experiment, options: options) { done, total in bar.update(done: done, total: total) }.run
      }
    } catch {
      bar.finish()
      throw CommandFailure.invalid(error)
    }
    bar.finish()
    if mode == .experiment {
      try output.write(try experimentReport(result, daily: daily, metrics: experiment.metrics), as: format, console: console)
      return .success
    }
    if let shard = options.shard {
      let file = ShardFile(
        command: "run", shard: shard, specText: spec.text, seed: result.seed, users: result.usersPerVariant,
        mode: .truth, variants: options.variants, aggregates: result.variants.map(\.aggregate), paired: result.variants.map(\.paired))
      try output.write(JSONWriter.write(file.json), console: console)
      return .success
    }
    try output.write(RunReport.Content(result, metrics: experiment.metrics), as: format, console: console)
    return .success
  }

  /// `run --mode bandit`: a bandit on the flow's variants, day by day.
  static func runBandit(_ arguments: ParsedArguments, console: any Console) throws -> ExitCode {
    let seed = try arguments[SharedOptions.seed]
    let threads = try arguments[SharedOptions.threads]
    let format = try arguments[Key.format]
    let output = OutputDestination(path: try arguments[OutputDestination.option])
    let allocation = try BanditCommand.allocation(arguments)
    if arguments.isGiven(SharedOptions.shard) || arguments.isGiven(SharedOptions.shards) {
      throw UsageError(message: "--shard works with --mode truth", hint: "run the bandit on one machine")
    }
    guard let schedule = try dailySchedule(arguments, mode: .experiment, users: try arguments[Key.users]) else {
      throw UsageError(message: "--mode bandit needs --users-per-day and --days", hint: "e.g. --users-per-day 20000 --days 14")
    }
    let spec = try LoadedSpec.load(arguments, console: console)
    var experiment = spec.experiment
    try applyAlpha(arguments, to: &experiment)
    let variants = try knownVariants(arguments[Key.variant], of: experiment)
    try BanditCommand.validate(allocation, arms: BanditCommand.armCount(variants, of: experiment))
    try BanditCommand.validateBurnIn(allocation, days: schedule.days)
    let options = RunOptions(seed: seed, threads: threads, variants: variants.isEmpty ? nil : variants, mode: .experiment)
    let bar = ProgressBar(
      console: console, label: "simulating", enabled: !(try arguments[TerminalOptions.quiet]),
      estimate: WorkEstimate.run(experiment, options: options, usersPerDay: schedule.usersPerDay, days: schedule.days), threads: threads)
    let adaptive: AdaptiveRun
    do {
      adaptive = try Simulation.runAdaptive(
        experiment, options: options, usersPerDay: schedule.usersPerDay, days: schedule.days, allocation: allocation
      ) { done, total in bar.update(done: done, total: total) }
    } catch {
      bar.finish()
      throw CommandFailure.invalid(error)
    }
    bar.finish()
    // The interval's coverage, measured on replicates of the design: seconds for a long run.
    let coverageBar = ProgressBar(console: console, label: "coverage", enabled: !(try arguments[TerminalOptions.quiet]), unit: "replicates")
    let timeline = BanditTimeline(
      adaptive, alpha: experiment.metrics.alpha, relativeMargin: experiment.metrics.relativeMargin(for: adaptive.metric),
      threads: threads
    ) { done, total in coverageBar.update(done: done, total: total) }
    coverageBar.finish()
    try output.write(BanditRenderer.RunReport(adaptive, timeline: timeline), as: format, console: console)
    return .success
  }

  /// `--users-per-day` and `--days`: both or neither, with `--mode experiment` and without
  /// `--users`, their product at most the users a run takes.
  static func dailySchedule(_ arguments: ParsedArguments, mode: RunMode, users: Int?) throws(UsageError) -> (usersPerDay: Int, days: Int)? {
    let perDay = try arguments[Key.usersPerDay]
    let days = try arguments[Key.days]
    guard perDay != nil || days != nil else { return nil }
    guard let perDay, let days else {
      throw UsageError(message: "--users-per-day and --days go together", hint: "e.g. --users-per-day 20000 --days 14")
    }
    guard mode == .experiment else {
      throw UsageError(message: "--users-per-day runs a live test: it needs --mode experiment", hint: "add --mode experiment")
    }
    guard users == nil else {
      throw UsageError(message: "--users and --users-per-day both set the users", hint: "give --users-per-day and --days only")
    }
    let (total, overflow) = perDay.multipliedReportingOverflow(by: days)
    guard !overflow, total <= Limits.users.upperBound else {
      throw UsageError(
        message: "--users-per-day × --days is above \(Limits.users.upperBound) users", hint: "fewer users a day or fewer days")
    }
    return (perDay, days)
  }

  /// An experiment-mode run's report, and its days read as a live test when it ran by day.
  /// - Throws: ``UsageError`` when the days cannot be read as a test of the primary metric.
  static func experimentReport(_ result: RunResult, daily: DailyRun?, metrics: MetricsSpec) throws(UsageError)
    -> ExperimentReportRenderer.Report
  {
    let report = ExperimentReport(observed: result, spec: metrics)
    var overTime: AnalysisRenderer.OverTime?
    if let daily {
      let read: ExperimentTimeline?
      do {
        read = try ExperimentTimeline(daily, spec: metrics)
      } catch {
        throw UsageError(
          message: "the days cannot be read as a test of \(metrics.primary.rawValue): \(error.message)",
          hint: "more users a day, or a primary metric every arm has users for")
      }
      guard let timeline = read else {
        throw UsageError(
          message: "the primary metric \(metrics.primary.rawValue) is not a rate: it cannot be read day by day yet",
          hint: "drop --users-per-day, or choose a rate as metrics.primary")
      }
      let arms = result.variants.count - 1
      let note =
        timeline.report.settings.alpha != metrics.alpha
        ? "α \(JSONValue.format(metrics.alpha)) split over \(arms) arms by Bonferroni" : nil
      overTime = (timeline.report, SequentialRenderer.Context(timeline, alphaNote: note))
    }
    return ExperimentReportRenderer.Report(report, observed: result, overTime: overTime)
  }
}

/// `funnellab validate`: check specs without running them.
enum ValidateCommand: Command {
  static let spec = CommandSpec(
    name: "validate",
    abstract: "Check experiment specs and list every problem with its JSON path and line.",
    discussion: """
      Reports JSON syntax errors, wrong types, unknown keys (with "did you mean"),
      unknown or duplicate screen ids, unreachable screens, flows that cannot
      complete, probabilities outside [0, 1] or not summing to 1 (tolerance 1e-6),
      negative prices or durations, and variants whose patches break the flow.
      A JSON Schema among the files (experiments/schema.json) is skipped with a note,
      as 'check' does. Exits 0 when every spec is valid, 65 when one is invalid, 66
      when one cannot be read.
      """,
    positionals: [PositionalSpec(name: "spec", help: "Experiment specs (JSON).", optional: false, variadic: true)],
    options: [],
    examples: ["funnellab validate experiments/*.json"])

  static func run(_ arguments: ParsedArguments, console: any Console) throws -> ExitCode {
    var worst = ExitCode.success
    for loaded in LoadedSpec.loadAll(arguments.positionals, console: console) {
      switch loaded {
      case .success(let spec):
        let experiment = spec.experiment
        console.out("\(spec.source): valid (\(experiment.flow.screens.count) screens, \(experiment.variants.count) variants)\n")
      case .failure(let failure):
        console.err(failure.text)
        if worst == .success || failure.code == .invalidInput { worst = failure.code }
      }
    }
    return worst
  }
}
