import Foundation
import FunnelLab
import FunnelReport

/// `funnellab calibrate`: fit a spec's action probabilities to observed counts.
enum CalibrateCommand: Command {
  static let spec = CommandSpec(
    name: "calibrate",
    abstract: "Fit a spec's action probabilities to counts observed in production; test the assumptions.",
    discussion: """
      Reads per-screen views and per-action counts (CSV with the header
      screen,action,count and optionally variant; a row with an empty action gives
      the screen's views; a screen's views not accounted for by its actions count as
      quits when the CSV has no quit row). Fits the base probability of every
      explicit action of the observed screens by maximum likelihood: the exact
      engine's expected per-view rates are matched to the observed ones (with the
      behavior effects off this is the multinomial MLE n/N per screen). Reports the
      G-test of the spec's assumptions and of the fit, and every action whose
      observed rate contradicts the spec beyond noise (Bonferroni-corrected Wilson
      interval). With --write-spec, writes the spec with the fitted probabilities
      (4 decimals; everything else, key order included, unchanged); -o writes the
      report, as in every command.
      """,
    positionals: [
      PositionalSpec(name: "spec", help: "The experiment spec (JSON).", optional: false),
      PositionalSpec(name: "observed", help: "Observed counts (CSV: screen,action,count[,variant]).", optional: false),
    ],
    options: [
      Key.variant, Key.variants, Key.fit, Key.noProfile, SharedOptions.threads, Key.writeSpec, Key.format, OutputDestination.option,
    ],
    conflicts: [
      OptionConflict(Key.variant, Key.variants, message: "--variant and --variants both name the past tests", hint: "give one of them")
    ],
    examples: [
      "funnellab calibrate experiments/urbannest-onboarding.json experiments/urbannest-observed.csv",
      "funnellab calibrate experiments/urbannest-onboarding.json experiments/urbannest-observed.csv --write-spec calibrated.json",
      "funnellab calibrate experiments/urbannest-onboarding.json experiments/urbannest-observed.csv --format json -o fit.json",
      "funnellab calibrate experiments/betfree-onboarding.json experiments/data/betfree-paywall-tests.csv --variants control,defaultMonthly --fit defaultPlanBias --no-profile",
    ])

  /// The options of `calibrate` (`--threads` is ``SharedOptions/threads``).
  enum Key {
    static let variant = Option<[String]>.repeatable(
      "variant", valueName: "id",
      help:
        "Use the CSV rows of this variant (default: the control's). Given more than once, or as 'all': fit those past tests jointly, as --variants does."
    )
    static let variants = Option<String?>.text(
      "variants", valueName: "ids",
      help:
        "Fit past tests jointly: the comma-separated variants whose rows the CSV holds (the same as repeating --variant) (all: every variant with rows; every row must name its variant). Fits the base probabilities and the behavior parameters the design identifies."
    )
    static let fit = Option<String?>.text(
      "fit", valueName: "parameters",
      help: "With --variants: the behavior parameters that may be fitted, comma-separated (default: every one that acts on the counts).")
    static let noProfile = Option<Bool>.flag(
      "no-profile",
      help:
        "With --variants: skip the profile-likelihood intervals, the slow part (a constrained fit per point; announced with progress when long; the Wald intervals remain)."
    )
    static let writeSpec = Option<String?>.text(
      "write-spec", valueName: "file",
      help: "Also write the calibrated spec (the fit's values, and with --variants its uncertainty) to this file.", file: .writes)
    static let format = Option<OutputFormat>.format(
      for: CalibrationReport<CalibrationRenderer>.self, CalibrationReport<BehaviorCalibrationRenderer>.self)
  }

  static func run(_ arguments: ParsedArguments, console: any Console) throws -> ExitCode {
    guard arguments.positionals.count == 2 else {
      throw UsageError(message: "expected a spec and a CSV of observed counts", hint: "funnellab calibrate spec.json observed.csv")
    }
    let specPath = arguments.positionals[0]
    let csvPath = arguments.positionals[1]
    let spec = try LoadedSpec.load(specPath, console: console)
    let experiment = spec.experiment
    guard let document = try? JSONParser.parse(spec.text) else {
      throw CommandFailure(code: .software, text: "Error: \(spec.source) loaded but does not parse.\n")
    }
    let csv = try InputFile.read(csvPath, console: console)
    let variantIDs = experiment.allVariants.map(\.id)
    let picked = try arguments[Key.variant]
    if arguments.isGiven(Key.variants) || picked.count > 1 || picked == ["all"] {
      return try runJointly(arguments, spec: spec, document: document, csv: csv, console: console)
    }
    if let wanted = picked.first, !variantIDs.contains(wanted) {
      throw UsageError(
        message: "--variant: no variant '\(wanted)' in the spec",
        hint: closest(wanted, variantIDs).map { "did you mean '\($0)'?" } ?? "variants: " + variantIDs.joined(separator: ", "))
    }
    if arguments.isGiven(Key.fit) || arguments.isGiven(Key.noProfile) {
      throw UsageError(
        message: "--fit and --no-profile belong to the joint fit of past tests", hint: "add --variants (e.g. --variants all)")
    }
    if arguments.isGiven(SharedOptions.threads) {
      throw UsageError(
        message: "--threads sets the workers of the joint fit of past tests (one variant is fitted on one)",
        hint: "add --variants (e.g. --variants all), or drop --threads")
    }
    let variant = picked.last ?? experiment.variants.first?.id
    let observed: ObservedCounts
    let calibration: Calibration
    do {
      observed = try ObservedCounts.parse(csv: csv, source: csvPath, variant: variant)
      calibration = try Calibration.fit(experiment, document: document, observed: observed, source: csvPath)
    } catch {
      throw failure(error)
    }
    let report = try report(
      CalibrationRenderer.self, calibration, experiment: experiment.name, observedPath: csvPath, arguments: arguments, console: console)
    if try write(report, spec: calibration.document, arguments: arguments, console: console) {
      for r in calibration.rebalanced {
        console.err(
          "note: \(r.path): \(r.screen).\(r.action) \(JSONValue.format(r.from)) → \(JSONValue.format(r.to)), "
            + "so that the patched screen still sums to 1 with the fitted probabilities\n")
      }
    }
    return .success
  }

  /// The fit's report in the `--format` asked for (a table, JSON or HTML).
  static func report<R: CalibrationReportRenderer>(
    _ renderer: R.Type, _ fit: R.Fit, experiment: String, observedPath: String, arguments: ParsedArguments, console: any Console
  ) throws(UsageError) -> String {
    try arguments[Key.format].text(of: CalibrationReport<R>(fit, experiment: experiment, observedPath: observedPath), console: console)
  }

  /// Writes the report to `-o` (or stdout) and, with `--write-spec`, the calibrated spec `document`,
  /// validated, all or nothing (``OutputSet``: a failure leaves neither).
  /// - Returns: whether the spec was written.
  static func write(_ report: String, spec document: JSONValue, arguments: ParsedArguments, console: any Console) throws -> Bool {
    let output = OutputDestination(path: try arguments[OutputDestination.option])
    guard let specPath = try arguments[Key.writeSpec] else {
      try output.write(report, console: console)
      return false
    }
    try validateCalibrated(document, output: specPath)
    var outputs = OutputSet()
    outputs.add(report, to: output)
    outputs.add(JSONWriter.write(document) + "\n", to: OutputDestination(path: specPath))
    try outputs.write(console: console)
    console.err("wrote the calibrated spec to \(specPath)\n")
    return true
  }
}
