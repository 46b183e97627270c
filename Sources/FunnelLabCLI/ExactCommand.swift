import FunnelLab
import FunnelReport

/// `funnellab exact`: solve every variant of an experiment exactly, without simulating.
enum ExactCommand: Command {
  static let spec = CommandSpec(
    name: "exact",
    abstract: "Solve every variant of an experiment exactly: the probabilities a run converges to.",
    discussion: """
      Propagates probability mass through the compiled flow instead of walking users
      (the exact engine), with the spec's mock store (cancelled sheets, failures and
      retries, pending purchases and their approval, restores, latency) and revenue
      lifecycle. Reports, per variant, completion, abandonment and reach per screen,
      paywall view, purchase, plan mix, trial starts, revenue per user, LTV per payer,
      realized revenue and the mean time to finish. No seed and no noise: the numbers
      are what 'funnellab run' converges to as --users grows.
      With --parameter-uncertainty: the behavior parameters are drawn from the spec's
      parameterUncertainty section (--draws, --seed; 'calibrate --variants -o' writes
      it from past tests) and every variant is solved at each draw. Reports per variant
      the predictive interval (1 − --alpha) of its effect on the primary metric (or
      --metric, e.g. revenuePerUser) and the probability that it beats the control:
      the uncertainty of the assumptions, apart from any sampling noise.
      Without <spec>, solves the built-in Klick onboarding experiment.
      """,
    positionals: [PositionalSpec(name: "spec", help: "An experiment spec (JSON); default: built-in klick-onboarding.")],
    options: [Key.variant, Key.format, OutputDestination.option, SharedOptions.alpha, SharedOptions.seed, SharedOptions.threads]
      + PredictionOptions.options + [PredictionOptions.metric],
    requirements: PredictionOptions.requirements + Key.drawsOnly,
    examples: [
      "funnellab exact",
      "funnellab exact experiments/betfree-onboarding.json",
      "funnellab exact experiments/klick-onboarding.json --variant upsellAfter3 --format json -o exact.json",
      "funnellab exact experiments/betfree-onboarding.json --parameter-uncertainty --variant yearlyPrice4999 --seed 7 --draws 20 --format json",
      "funnellab exact experiments/betfree-onboarding.json --parameter-uncertainty --variant defaultLifetime --metric revenuePerUser --draws 20",
    ])

  /// The options of `exact` (the shared ones are ``SharedOptions``).
  enum Key {
    static let variant = Option<[String]>.repeatable("variant", valueName: "id", help: "Solve only this variant (and the control).")
    static let format = Option<OutputFormat>.format(for: ExactRenderer.Report.self, PredictionRenderer.Report.self)

    /// `--seed` and `--alpha` need `--parameter-uncertainty`: the exact solution has no randomness and no test.
    static let drawsOnly: [OptionRequirement] = [SharedOptions.seed, SharedOptions.alpha].map { (option: any OptionKey) in
      OptionRequirement(
        option, needs: PredictionOptions.parameterUncertainty,
        message: "exact has no randomness and no test: --seed and --alpha need --parameter-uncertainty", hint: "drop them")
    }
  }

  static func run(_ arguments: ParsedArguments, console: any Console) throws -> ExitCode {
    let format = try arguments[Key.format]
    let output = OutputDestination(path: try arguments[OutputDestination.option])
    let threads = try arguments[SharedOptions.threads]
    if try arguments[PredictionOptions.parameterUncertainty] {
      var experiment = try LoadedSpec.load(arguments, console: console).experiment
      try applyAlpha(arguments, to: &experiment)
      return try PredictionOptions.write(
        experiment, arguments: arguments, variant: Key.variant, format: format, seed: try arguments[SharedOptions.seed],
        threads: threads, command: "exact", console: console)
    }
    let experiment = try LoadedSpec.load(arguments, console: console).experiment
    let wanted = try knownVariants(arguments[Key.variant], of: experiment)
    try output.write(try report(experiment, wanted: wanted, threads: threads, console: console), as: format, console: console)
    return .success
  }

  /// The report of `experiment`'s control and `wanted` variants (all when empty), solved exactly.
  /// - Throws: ``CommandFailure`` (65) when the experiment does not compile.
  static func report(
    _ experiment: Experiment, wanted: [String] = [], threads: Int? = nil, console: (any Console)? = nil
  ) throws(CommandFailure) -> ExactRenderer.Report {
    let variants = try solve(experiment, wanted: wanted, threads: threads, console: console)
    return ExactRenderer.Report(experiment: experiment.name, variants: variants, metrics: experiment.metrics)
  }

  /// Every variant of `experiment` solved exactly, or only the control and `wanted` when given.
  /// - Throws: ``CommandFailure`` (65) when the experiment does not compile.
  /// The exact solution of the control and the `wanted` variants (all when empty), with a
  /// progress bar over the variants on `console`'s terminal when one is given.
  /// `threads`: workers (`nil`: every core); the result does not depend on it.
  static func solve(
    _ experiment: Experiment, wanted: [String] = [], threads: Int? = nil, console: (any Console)? = nil
  ) throws(CommandFailure) -> [ExactRenderer.Variant] {
    let flows: [CompiledFlow]
    do {
      flows = try FlowCompiler.compileAll(experiment)
    } catch {
      throw CommandFailure.invalid(error)
    }
    let selected = experiment.variants.indices.filter { wanted.isEmpty || $0 == 0 || wanted.contains(experiment.variants[$0].id) }
    var progress: (@Sendable (Int, Int) -> Void)?
    var bar: ProgressBar?
    if let console {
      let created = ProgressBar(console: console, label: "solving", enabled: true, unit: "variants")
      progress = { done, total in created.update(done: done, total: total) }
      bar = created
    }
    let solved = ExactEngine.solve(selected.map { flows[$0] }, threads: threads, progress: progress)
    bar?.finish()
    return zip(selected, solved).map { i, exact in ExactRenderer.Variant(variant: experiment.variants[i], flow: flows[i], exact: exact) }
  }
}
