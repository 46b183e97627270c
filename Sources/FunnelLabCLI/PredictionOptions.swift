import FunnelLab
import FunnelReport
import Synchronization

/// `--parameter-uncertainty` and `--draws`, shared by `run`, `exact` and `power`: solve the
/// experiment at draws of the spec's `parameterUncertainty` instead of at its values.
enum PredictionOptions {
  /// `--parameter-uncertainty`.
  static let parameterUncertainty = Option<Bool>.flag(
    "parameter-uncertainty",
    help:
      "Draw the behavior parameters from the spec's parameterUncertainty section and solve every variant exactly per draw: the predictive interval of each effect and the probability to beat the control (a table or JSON)."
  )
  /// `--draws`.
  static let draws = Option<Int?>.integer(
    "draws", valueName: "n", help: "With --parameter-uncertainty: draws (default: the section's draws, else 200).",
    in: Limits.parameterDraws)

  /// `--parameter-uncertainty` and `--draws`, in a command's options.
  static let options: [any OptionKey] = [parameterUncertainty, draws]

  /// `--metric` of `run` and `exact` (`power` plans on the primary metric).
  static let metric = Option<FunnelMetric?>.metric(
    help: "With --parameter-uncertainty: the metric the effects are on, e.g. revenuePerUser (default: metrics.primary).")

  /// `run`'s and `exact`'s requirements: `--draws` and `--metric` need `--parameter-uncertainty`.
  static let requirements = [
    OptionRequirement(draws, needs: parameterUncertainty), OptionRequirement(metric, needs: parameterUncertainty),
  ]

  /// Whether `--parameter-uncertainty` was given; one of `dependents` without it is a usage error (`power`, whose
  /// other modes refuse `--draws` first, checks it here rather than by a declared requirement).
  static func requested(_ arguments: ParsedArguments, dependents: [any OptionKey] = []) throws(UsageError) -> Bool {
    let requested = try arguments[parameterUncertainty]
    if !requested, let flag = arguments.firstGiven(dependents)?.spec.name {
      throw UsageError(message: "--\(flag) needs --parameter-uncertainty", hint: "add --parameter-uncertainty")
    }
    return requested
  }

  /// The prediction of `experiment` (only the control and `variants` when given), with a progress bar.
  static func predict(
    _ experiment: Experiment, variants: [String], seed: UInt64?, metric: FunnelMetric? = nil, alpha: Double? = nil, threads: Int?,
    arguments: ParsedArguments, console: any Console
  ) throws -> Prediction {
    let draws = try arguments[Self.draws]
    let total = draws ?? experiment.parameterUncertainty?.draws ?? ParameterUncertainty.defaultDraws
    let bar = ProgressBar(console: console, label: "solving draws", enabled: !(try arguments[TerminalOptions.quiet]), unit: "draws")
    let done = Mutex(0)
    defer { bar.finish() }
    do {
      return try Prediction.run(
        experiment, variants: variants.isEmpty ? nil : variants, draws: draws, seed: seed, metric: metric, alpha: alpha,
        threads: threads
      ) { n in
        let count = done.withLock {
          $0 += n; return $0
        }
        bar.update(done: count, total: total)
      }
    } catch {
      throw CommandFailure.invalid(error)
    }
  }

  /// `run`/`exact --parameter-uncertainty` (`variant`: the command's `--variant`): the format is checked first (a table, JSON or HTML), then the prediction is
  /// made and written under `command`.
  static func write(
    _ experiment: Experiment, arguments: ParsedArguments, variant: Option<[String]>, format: OutputFormat, seed: UInt64?, threads: Int?,
    command: String, console: any Console
  ) throws -> ExitCode {
    guard format.isWritten(by: PredictionRenderer.Report.self) else {
      throw UsageError(message: "--parameter-uncertainty writes a table, JSON or HTML", hint: "use --format table, json or html")
    }
    let metric = try arguments[Self.metric]
    let variants = try knownVariants(arguments[variant], of: experiment)
    let prediction = try predict(
      experiment, variants: variants, seed: seed, metric: metric, threads: threads, arguments: arguments, console: console)
    try OutputDestination(path: try arguments[OutputDestination.option]).write(
      PredictionRenderer.Report(prediction, command: command), as: format, console: console)
    return .success
  }
}
