import FunnelLab
import FunnelReport
import FunnelStats

/// `funnellab power`: sample size, minimal detectable effect or power of a two-arm test.
enum PowerCommand: Command {
  static let methods: [String: PowerAnalysis.Method] = [
    "pooled": .pooledNormal, "unpooled": .unpooledNormal, "arcsine": .arcsine, "means": .means,
  ]

  static let spec = CommandSpec(
    name: "power",
    abstract: "Plan a test: sample size, MDE or power by formula, or by simulation for a spec's variants.",
    discussion: """
      With <spec>: plans every variant against the control on the spec's primary metric
      (or --metric, a proportion such as completionRate). The exact engine gives the
      true rates; --replicates simulated experiments of --users-per-arm users
      (default: the formula's size for --target-power) give the power, the A/A
      false-positive rate, CI coverage, type S and type M errors and the p-value
      distribution, beside the analytic formula and a simulated size search;
      --users-per-day adds durations and a daily-peeking simulation comparing the naive
      daily z-test, a group-sequential design and an always-valid mSPRT.
      Without <spec>:
      Give the baseline and two of: --mde (or --relative-mde), --users-per-arm, --power;
      the third is solved for. With all three, --solve alpha solves for α instead.
      Methods (--method):
        pooled    two proportions, pooled variance under the null: the z-test of
                  'funnellab analyze --test pooled-z' (statsmodels
                  power_proportions_2indep; Evan Miller's calculator); analyze's default
                  score test has nearly the same power. The default.
        unpooled  two proportions, unpooled (Wald) variance.
        arcsine   two proportions via Cohen's h (statsmodels NormalIndPower with
                  proportion_effectsize).
        means     two means with a common --sd (Cohen's d, normal approximation).
      --ratio is control/treatment users (1 for 50/50; 9 for 90/10 with 10% treatment).
      With --users-per-day, the duration in days to reach the sample (both arms).
      With --looks K (two-sided only): the group-sequential design that replaces the
      fixed test with K equally spaced looks (Lan-DeMets --spending obrien-fleming or
      pocock): per look the users, the |z| boundary, the nominal p-value, the alpha
      spent and the chance to stop there with and without the effect; the maximum
      users for the same power (the inflation factor) and the expected users.
      With <spec> --compare-bandit --users-per-day N: bandit or A/B test? Replicates
      drawn from the exact rates by day run a bandit (--policy thompson, top-two or
      epsilon-greedy; weights updated daily, --burn-in days at an equal split,
      --min-share per arm) and a fixed equal split over the same --days (default: the
      fixed test's duration), then --horizon-days (default 28) with the shipped arm for
      everyone: conversions lost against the best arm (regret), how often each ships a
      worse arm, when the bandit is decided, the bandit's shares by day, and its naive
      and inverse-propensity estimates beside the exact differences. --holdout h adds
      what a holdout of that share detects over the horizon.
      With <spec> --parameter-uncertainty: the assurance beside the power. Power assumes
      the spec's behavior parameters are right; assurance (O'Hagan & Stevens) is the
      chance the test is significant in the direction of the true effect, averaged over
      --draws draws of the spec's parameterUncertainty section, each solved exactly. Also
      the users per arm that reach --target-assurance, the probability that each variant
      beats the control and the predictive interval of its effect.
      """,
    positionals: [PositionalSpec(name: "spec", help: "An experiment spec to plan by simulation (optional).")],
    options: [
      Key.targetPower, Key.replicates, Key.days, Key.looks, Key.spending, Key.variant, Key.metric, Key.compareBandit,
      BanditCommand.Key.policy, BanditCommand.Key.epsilon, BanditCommand.Key.minimumShare, BanditCommand.Key.burnIn,
      BanditCommand.Key.horizonDays, BanditCommand.Key.holdout, SharedOptions.seed, SharedOptions.threads,
      PredictionOptions.parameterUncertainty, PredictionOptions.draws, Key.targetAssurance, SharedOptions.shard, SharedOptions.shards,
      Key.baseline, Key.mde, Key.relativeMDE, Key.usersPerArm, Key.power, Key.alpha, Key.alternative, Key.ratio, Key.method, Key.sd,
      Key.solve, Key.usersPerDay, Key.format, OutputDestination.option,
    ],
    conflicts: SharedOptions.shardConflicts([Key.format]) + [
      OptionConflict(Key.mde, Key.relativeMDE),
      OptionConflict(
        Key.days, Key.looks, message: "--days and --looks both set the daily looks of a spec's peeking simulation",
        hint: "give one of them"),
    ],
    examples: [
      "funnellab power --baseline 0.10 --mde 0.01",
      "funnellab power --baseline 0.10 --mde 0.01 --method arcsine --users-per-day 2000",
      "funnellab power --baseline 0.056 --users-per-arm 50000",
      "funnellab power --baseline 0.056 --relative-mde 0.1 --users-per-arm 50000",
      "funnellab power --baseline 0.10 --mde 0.01 --looks 5 --spending obrien-fleming",
      "funnellab power experiments/klick-onboarding.json --variant features5 --users-per-day 20000 --replicates 2000",
      "funnellab power experiments/klick-onboarding.json --variant goalOptional --metric completionRate --replicates 500",
      "funnellab power experiments/betfree-onboarding.json --compare-bandit --users-per-day 3000 --days 10 --replicates 500 --holdout 0.05",
      "funnellab power experiments/betfree-onboarding.json --variant defaultLifetime --parameter-uncertainty --draws 20 --replicates 200",
      "funnellab power experiments/betfree-onboarding.json --metric revenuePerUser --users-per-day 20000",
    ])

  /// The options of `power`.
  enum Key {
    static let targetPower = Option<Double?>.number(
      "target-power", valueName: "p", help: "With <spec>: the power to size for (default 0.8).", in: Limits.Planning.targetPower)
    static let replicates = Option<Int?>.integer(
      "replicates", valueName: "n", help: "With <spec>: simulated experiments per estimate (default 10000).",
      in: Limits.Planning.replicates)
    static let days = Option<Int?>.integer(
      "days", valueName: "n", help: "With <spec> and --users-per-day: daily looks to simulate (default: the duration).",
      in: Limits.Planning.days)
    static let looks = Option<Int?>.integer(
      "looks", valueName: "n",
      help: "With <spec>: same as --days. Without: a group-sequential design of n equally spaced looks (1...20).",
      in: 1...GroupSequentialPlan.maxLooks)
    static let spending = Option<String?>.choice(
      "spending", valueName: "name", help: "With --looks (no spec): obrien-fleming (default) or pocock.", ["obrien-fleming", "pocock"])
    static let variant = Option<[String]>.repeatable("variant", valueName: "id", help: "With <spec>: plan only this variant.")
    static let metric = Option<FunnelMetric?>.metric(
      help:
        "With <spec>: the metric to plan, a proportion such as completionRate (default: metrics.primary), or revenuePerUser (from the exact revenue distribution)."
    )
    static let compareBandit = Option<Bool>.flag(
      "compare-bandit", help: "With <spec> and --users-per-day: bandit or fixed A/B test, by simulation.")
    static let targetAssurance = Option<Double?>.number(
      "target-assurance", valueName: "p", help: "With --parameter-uncertainty: the assurance to size for (default: the target power).",
      in: Limits.Planning.targetPower)
    static let baseline = Option<Double?>.number(
      "baseline", valueName: "rate", help: "Control conversion rate (or control mean with --method means).", in: -1e300...1e300)
    static let mde = Option<Double?>.number(
      "mde", valueName: "delta", help: "Absolute minimal detectable effect (0.01: 10% → 11%).", in: -1e300...1e300)
    static let relativeMDE = Option<Double?>.number(
      "relative-mde", valueName: "fraction", help: "Relative minimal detectable effect (0.1: 10% → 11%).", in: -1e6...1e6)
    static let usersPerArm = Option<Double?>.number(
      "users-per-arm", valueName: "n", help: "Treatment users (control: ratio × n).", in: 2...1e12)
    /// `--users-per-arm` of a spec's plan: a whole number.
    static let plannedUsersPerArm = Option<Int?>.integer(usersPerArm.spec, in: Limits.Planning.usersPerArm)
    static let power = Option<Double?>.number(
      "power", valueName: "p", help: "Power 1 − β (default 0.8 unless solved for).", in: 0.0001...0.9999)
    /// `--alpha` of the formula mode.
    static let alpha = SharedOptions.alpha.within(1e-12...0.5)
    /// `--alpha` of a spec's plan.
    static let planningAlpha = SharedOptions.alpha.within(Limits.Planning.alpha)
    static let alternative = Option<String?>.choice(
      "alternative", valueName: "side", help: "two-sided, greater or less (default two-sided).", Alternative.allCases.map(\.rawValue))
    static let ratio = Option<Double?>.number(
      "ratio", valueName: "r", help: "Control users per treatment user (default 1).", in: 1e-6...1e6)
    static let method = Option<String?>.choice(
      "method", valueName: "method", help: "pooled, unpooled, arcsine or means (default pooled).",
      ["pooled", "unpooled", "arcsine", "means"])
    static let sd = Option<Double?>.number("sd", valueName: "sigma", help: "Standard deviation, for --method means.", in: 1e-300...1e300)
    static let solve = Option<String?>.choice("solve", valueName: "what", help: "alpha: solve for α when the rest is given.", ["alpha"])
    static let usersPerDay = Option<Int?>.integer(
      "users-per-day", valueName: "n", help: "Eligible users per day (both arms), for the duration.", in: 1...1_000_000_000_000)
    static let format = Option<OutputFormat>.format(
      for: PowerRenderer.Report.self, PlanningRenderer.Report.self, PlanningRenderer.AssuranceReport.self, RevenuePlanRenderer.Report.self,
      BanditRenderer.Report.self,
      PredictionRenderer.Report.self)

    /// The options of planning a spec by simulation, refused in the formula mode.
    static let specOnly: [any OptionKey] = [
      targetPower, replicates, days, variant, SharedOptions.seed, SharedOptions.shard, SharedOptions.shards, compareBandit,
      BanditCommand.Key.policy, BanditCommand.Key.epsilon, BanditCommand.Key.minimumShare, BanditCommand.Key.burnIn,
      BanditCommand.Key.horizonDays, BanditCommand.Key.holdout, PredictionOptions.parameterUncertainty, PredictionOptions.draws,
      targetAssurance, metric,
    ]
    /// The formula mode's options, refused with a spec.
    static let formulaOnly: [any OptionKey] = [baseline, mde, relativeMDE, power, method, sd, solve, ratio, alternative, spending]
  }

  static func run(_ arguments: ParsedArguments, console: any Console) throws -> ExitCode {
    if !arguments.positionals.isEmpty { return try plan(arguments, console: console) }
    let methodName = try arguments[Key.method] ?? "pooled"
    let method = methods[methodName] ?? .pooledNormal
    let isMeans = method == .means
    let (baseline, mde) = try baselineAndEffect(arguments, isMeans: isMeans)
    if let text = arguments.texts(of: Key.relativeMDE.spec).last, let relative = decimalNumber(text), abs(relative) >= 1 {
      // A fraction of the baseline: 5 is +500 %, which is rarely what was meant.
      console.err(
        "note: --relative-mde \(text.escapingControlCharacters) is \(relative > 0 ? "+" : "")\(JSONValue.format(relative * 100)) % of the baseline; "
          + "for \(JSONValue.format(relative)) % write --relative-mde \(JSONValue.format(relative / 100))\n")
    }
    try refuseSpecOptions(arguments)
    let users = try arguments[Key.usersPerArm]
    let power = try arguments[Key.power]
    let alpha = try arguments[Key.alpha] ?? 0.05
    let ratio = try arguments[Key.ratio] ?? 1
    let sd = try arguments[Key.sd]
    let sideName = try arguments[Key.alternative] ?? "two-sided"
    let alternative = Alternative(rawValue: sideName) ?? .twoSided
    let perDay = try arguments[Key.usersPerDay]
    let format = try arguments[Key.format]
    let solveAlpha = try arguments[Key.solve] != nil
    if isMeans, sd == nil { throw UsageError(message: "--method means needs --sd", hint: "the common standard deviation") }

    var problem = PowerAnalysis.Problem(
      method: method, baseline: baseline, effect: mde.map { isMeans ? $0 : baseline + $0 },
      standardDeviation: sd ?? 1, sampleSize: users, power: nil, alpha: alpha, ratio: ratio, alternative: alternative)
    try chooseUnknown(&problem, mde: mde, users: users, power: power, solveAlpha: solveAlpha)
    let result: PowerAnalysis.Result
    do {
      result = try PowerAnalysis.solve(problem)
    } catch {
      throw usageError(error, problem: problem)
    }
    let days = perDay.flatMap { result.durationDays(usersPerDay: Double($0)) }
    let sequential = try sequentialPlan(arguments, result: result)
    let report = PowerRenderer.Report(
      result, problem: problem, isMeans: isMeans, usersPerDay: perDay, days: days, sequential: sequential)
    try OutputDestination(path: try arguments[OutputDestination.option]).write(report, as: format, console: console)
    return .success
  }
}

extension PowerCommand {
  /// Reads `--baseline` and the effect (`--mde` or `--relative-mde`, as an absolute difference),
  /// refusing a treatment rate outside (0, 1) for the proportion methods.
  private static func baselineAndEffect(_ arguments: ParsedArguments, isMeans: Bool) throws(UsageError)
    -> (baseline: Double, mde: Double?)
  {
    guard let baseline = try arguments[isMeans ? Key.baseline : Key.baseline.within(0...1)] else {
      throw UsageError(message: "missing --baseline", hint: "e.g. --baseline 0.10 for a 10% conversion rate")
    }
    if !isMeans, baseline <= 0 || baseline >= 1 {
      throw UsageError(message: "--baseline must be strictly between 0 and 1, got \(baseline)", hint: nil)
    }
    let absolute = try arguments[Key.mde]
    let relative = try arguments[Key.relativeMDE]
    let mde = absolute ?? relative.map { $0 * baseline }
    if let mde, mde == 0 { throw UsageError(message: "the minimal detectable effect must not be 0", hint: nil) }
    if let mde, !isMeans, !(baseline + mde > 0 && baseline + mde < 1) {
      let flag = absolute != nil ? "--mde \(JSONValue.format(mde))" : "--relative-mde \(JSONValue.format(relative ?? 0))"
      throw UsageError(
        message:
          "\(flag): the treatment rate \(JSONValue.format(baseline)) + \(JSONValue.format(mde)) = \(JSONValue.format(baseline + mde)) is not between 0 and 1",
        hint:
          "--mde is the difference in rate, e.g. --mde 0.01 for \(JSONValue.format(baseline)) → \(JSONValue.format(baseline + 0.01)); --relative-mde a fraction of the baseline"
      )
    }
    return (baseline, mde)
  }

  /// Leaves the one quantity to solve for unset in `problem`: α with `--solve alpha`, else the
  /// power, effect or size not given (power defaults to 0.8 when it is not the unknown).
  private static func chooseUnknown(
    _ problem: inout PowerAnalysis.Problem, mde: Double?, users: Double?, power: Double?, solveAlpha: Bool
  ) throws(UsageError) {
    var power = power
    switch (mde, users, solveAlpha) {
    case (_, _, true):
      guard mde != nil, users != nil, power != nil else {
        throw UsageError(message: "--solve alpha needs --mde, --users-per-arm and --power", hint: nil)
      }
      problem.alpha = nil
    case (.some, .some, false):
      if power != nil {
        throw UsageError(
          message: "--mde, --users-per-arm and --power are all given: nothing to solve",
          hint: "drop one of them, or add --solve alpha")
      }
    case (.some, nil, false), (nil, .some, false):
      power = power ?? 0.8
    case (nil, nil, false):
      throw UsageError(message: "give --mde (or --relative-mde) or --users-per-arm", hint: "see 'funnellab power --help'")
    }
    problem.power = power
  }

  /// The group-sequential design of `--looks` (with `--spending`), replacing the solved fixed test.
  private static func sequentialPlan(_ arguments: ParsedArguments, result: PowerAnalysis.Result) throws(UsageError)
    -> GroupSequentialPlan?
  {
    let spending = try arguments[Key.spending]
    guard let looks = try arguments[Key.looks] else {
      if spending != nil { throw UsageError(message: "--spending needs --looks", hint: "e.g. --looks 5 --spending pocock") }
      return nil
    }
    guard result.alternative == .twoSided else {
      throw UsageError(message: "--looks plans a two-sided design", hint: "drop --alternative or --looks")
    }
    do {
      return try GroupSequentialPlan(
        looks: looks, spending: spending == "pocock" ? .pocock : .obrienFleming, alpha: result.alpha, power: result.power,
        usersPerArm: result.sampleSize)
    } catch {
      throw UsageError(
        message: "--looks: the fixed test's power \(JSONValue.format(result.power)) and size cannot be planned in looks (\(error.message))",
        hint: result.power >= 0.5
          ? "the fixed test's power rounds to 100%: give a smaller --users-per-arm or --mde" : "give a power above α")
    }
  }

  /// The formula mode plans from numbers, not a spec: the options of planning by
  /// simulation are refused rather than ignored.
  static func refuseSpecOptions(_ arguments: ParsedArguments) throws(UsageError) {
    if let flag = arguments.firstGiven(Key.specOnly)?.spec.name {
      throw UsageError(
        message: "--\(flag) is for planning a spec by simulation, not for the formula mode",
        hint: "give a spec, e.g. funnellab power experiments/klick-onboarding.json --\(flag) …")
    }
  }

  /// A formula-mode problem the solver refuses: every value came from the command
  /// line, so it is a usage error naming the flag.
  static func usageError(_ error: StatsError, problem: PowerAnalysis.Problem) -> UsageError {
    let flags: [StatsError.Field.Name: String] = [
      .effect: "--mde", .baseline: "--baseline", .sampleSize: "--users-per-arm", .power: "--power", .alpha: "--alpha",
      .ratio: "--ratio", .standardDeviation: "--sd",
    ]
    guard error.field.argument == .problem, let target = problem.power else {
      let flag = StatsProblems(flags: flags).origin(of: error.field).origin.name
      return UsageError(message: "\(flag): \(error.message)", hint: error.hint)
    }
    // "Unreachable" also happens when the power asked for is reached by any value:
    // say which, rather than advising to increase what is already enough.
    var easiest = problem
    if problem.alpha == nil { easiest.alpha = 1e-12 } else { easiest.sampleSize = 2 }
    easiest.power = nil
    if let reached = try? PowerAnalysis.solve(easiest), reached.power >= target {
      let what = problem.alpha == nil ? "α = 1e-12" : "2 users per arm"
      return UsageError(
        message:
          "--power \(JSONValue.format(target)) is reached with any value: even \(what) gives power \(NumberText.percent(reached.power))",
        hint: problem.alpha == nil ? "lower --users-per-arm or the effect to solve for α" : "ask for a higher --power")
    }
    return UsageError(message: error.message, hint: error.hint)
  }

  /// The formula mode's flags, refused with a spec (each with a hint of what to do instead).
  static func refuseFormulaFlags(_ arguments: ParsedArguments) throws(UsageError) {
    if let flag = arguments.firstGiven(Key.formulaOnly)?.spec.name {
      let hints = [
        "baseline": "the spec's rates come from the exact engine", "mde": "the effects are the variants' exact ones",
        "relative-mde": "the effects are the variants' exact ones", "power": "use --target-power to size a spec's test",
      ]
      throw UsageError(
        message: "--\(flag) is for the formula mode, not with a spec",
        hint: hints[flag] ?? "drop --\(flag): it shapes the formula, not a spec's simulated test")
    }
  }

  /// `funnellab power <spec>`: planning by simulation.
  static func plan(_ arguments: ParsedArguments, console: any Console) throws -> ExitCode {
    try refuseFormulaFlags(arguments)
    let metric = try plannedMetric(arguments)
    if try arguments[Key.compareBandit] { return try BanditCommand.compare(arguments, console: console) }
    if let flag = arguments.firstGiven(BanditCommand.Key.compareOnly)?.spec.name {
      throw UsageError(message: "--\(flag) needs --compare-bandit", hint: "add --compare-bandit --users-per-day N")
    }
    var options = PlanningOptions()
    options.usersPerArm = try arguments[Key.plannedUsersPerArm]
    options.targetPower = try arguments[Key.targetPower] ?? 0.8
    options.usersPerDay = try arguments[Key.usersPerDay.within(Limits.Planning.usersPerDay)]
    options.days = try arguments[Key.days] ?? arguments[Key.looks.within(Limits.Planning.days)]
    if options.days != nil, options.usersPerDay == nil {
      let flag = arguments.isGiven(Key.days) ? "days" : "looks"
      throw UsageError(
        message: "--\(flag) sets the daily looks of the peeking simulation, which needs --users-per-day",
        hint: "add --users-per-day N (users a day, both arms)")
    }
    options.replicates = try arguments[Key.replicates] ?? 10_000
    options.alpha = try arguments[Key.planningAlpha]
    options.seed = try arguments[SharedOptions.seed]
    options.threads = try arguments[SharedOptions.threads]
    let format = try arguments[Key.format]
    let uncertain = try PredictionOptions.requested(arguments, dependents: [PredictionOptions.draws])
    let targetAssurance = try arguments[Key.targetAssurance]
    _ = try arguments[PredictionOptions.draws]  // checked before the plan's simulations
    if uncertain {
      guard format.isWritten(by: PlanningRenderer.AssuranceReport.self), !arguments.isGiven(SharedOptions.shard),
        !arguments.isGiven(SharedOptions.shards)
      else {
        throw UsageError(
          message: "--parameter-uncertainty plans on one machine and writes a table, JSON, Markdown or HTML",
          hint: "drop --shard and --format csv")
      }
    } else if targetAssurance != nil {
      throw UsageError(message: "--target-assurance needs --parameter-uncertainty", hint: "add --parameter-uncertainty")
    }
    let spec = try LoadedSpec.load(arguments, console: console)
    var experiment = spec.experiment
    if let metric { experiment.metrics.primary = metric }
    if let metric { try refuse(metric, lackedBy: experiment, source: spec.source) }
    let variants = try knownVariants(arguments[Key.variant], of: experiment)
    options.variants = variants.isEmpty ? nil : variants
    if experiment.metrics.primary == .revenuePerUser {
      return try planRevenue(experiment, options: options, format: format, arguments: arguments, console: console)
    }
    let bar = ProgressBar(console: console, label: "planning", enabled: true, unit: "replicates")
    var report: PlanningReport
    do {
      if let shard = try shard(arguments, console: console) {
        let counts = try ExperimentPlanner.tally(experiment, options: options, shard: shard) { done, total in
          bar.update(done: done, total: total)
        }
        bar.finish()
        let file = PlanningShardFile(shard: shard, specText: spec.text, options: options, counts: counts)
        try OutputDestination(path: try arguments[OutputDestination.option]).write(JSONWriter.write(file.json), console: console)
        return .success
      }
      report = try ExperimentPlanner.plan(experiment, options: options) { done, total in bar.update(done: done, total: total) }
    } catch let error as SpecErrors {
      bar.finish()
      throw CommandFailure.invalid(error)
    }
    bar.finish()
    if let note = nothingToPlan(report) { console.err("note: \(note)\n") }
    if uncertain {
      let prediction = try PredictionOptions.predict(
        experiment, variants: variants, seed: options.seed, alpha: report.alpha, threads: options.threads, arguments: arguments,
        console: console)
      report = report.addingAssurance(prediction, target: targetAssurance ?? options.targetPower)
    }
    let written: any Report = uncertain ? PlanningRenderer.AssuranceReport(report) : PlanningRenderer.Report(report)
    try OutputDestination(path: try arguments[OutputDestination.option]).write(written, as: format, console: console)
    return .success
  }

  /// `--metric` of `power <spec>`: a proportion or revenue per user, and not with shards or `--compare-bandit`
  /// (a shard carries the spec's text, so its merge would plan the spec's primary metric).
  static func plannedMetric(_ arguments: ParsedArguments) throws(UsageError) -> FunnelMetric? {
    guard let metric = try arguments[Key.metric] else { return nil }
    guard metric.isProportion || metric == .revenuePerUser else {
      throw UsageError(
        message: "--metric \(metric.rawValue) is a mean; planning simulates proportion metrics and revenue per user",
        hint: "plan a proportion such as purchaseConversion, or revenuePerUser")
    }

    if let flag = arguments.firstGiven([SharedOptions.shard, SharedOptions.shards, Key.compareBandit])?.spec.name {
      throw UsageError(
        message: "--metric is not taken with --\(flag)", hint: "set metrics.primary in the spec to \(metric.rawValue) instead")
    }
    return metric
  }

  /// Refuses (64) a `--metric` that no variant's flow can produce (revenue of a flow that sells
  /// no plan, paywall views without a paywall), naming the metrics the flow does produce.
  static func refuse(_ metric: FunnelMetric, lackedBy experiment: Experiment, source: String) throws(UsageError) {
    guard let flows = try? FlowCompiler.compileAll(experiment), !metric.applies(to: flows) else { return }
    let reason =
      switch metric {
      case .paywallViewRate: "has no paywall screen"
      case .trialStartRate, .trialToPaid: "has no plan with a trial"
      case .refundRate: "refunds nothing (no plan, or no refund probability)"
      default: "sells no plan"
      }
    let produced = FunnelMetric.allCases.filter { ($0.isProportion || $0 == .revenuePerUser) && $0.applies(to: flows) }
    throw UsageError(
      message: "--metric \(metric.rawValue): the flow of \(source.escapingControlCharacters) \(reason), so it is 0 in every arm",
      hint: "plan a metric the flow produces: " + produced.map(\.rawValue).joined(separator: ", "))
  }

  /// A note when no planned variant changes the metric at all (e.g. purchase conversion of a flow without a
  /// paywall): every size is "∞ (no effect)", so the plan says nothing.
  static func nothingToPlan(_ report: PlanningReport) -> String? {
    guard let first = report.plans.first?.diagnosis, report.plans.allSatisfy({ $0.diagnosis.trueDifference == 0 }) else { return nil }
    let rate = NumberText.percent(first.controlRate, decimals: 2)
    return "no variant changes \(report.metric.rawValue) (exactly \(rate) in every arm), so there is nothing to detect;"
      + " plan a metric the variants move with --metric, e.g. completionRate"
  }

  /// `power SPEC --metric revenuePerUser`: the revenue plan (``RevenuePlanner``) in `format`.
  static func planRevenue(
    _ experiment: Experiment, options: PlanningOptions, format: OutputFormat, arguments: ParsedArguments, console: any Console
  ) throws -> ExitCode {
    let taken: [any OptionKey] = [
      Key.usersPerArm, Key.days, Key.looks, PredictionOptions.parameterUncertainty, SharedOptions.shard, SharedOptions.shards,
    ]
    if let flag = arguments.firstGiven(taken)?.spec.name {
      throw UsageError(
        message: "--\(flag) is not taken when planning revenue per user, which solves the users per arm from the exact revenue",
        hint: "drop --\(flag)")
    }
    let plan: RevenuePlan
    do {
      plan = try ProgressBar.around(console: console, label: "planning", unit: "variants") { update throws(SpecErrors) in
        try RevenuePlanner.plan(experiment, options: options, progress: update)
      }
    } catch {
      throw CommandFailure.invalid(error)
    }
    try OutputDestination(path: try arguments[OutputDestination.option]).write(
      RevenuePlanRenderer.Report(plan), as: format, console: console)
    return .success
  }
}
