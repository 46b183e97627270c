import Foundation
import FunnelLab
import FunnelReport

/// `funnellab check`: evaluate every expectation of one or more specs.
enum CheckCommand: Command {
  static let spec = CommandSpec(
    name: "check",
    abstract: "Check the expectations written in specs; exit 1 when any fails (for CI).",
    discussion: """
      Evaluates every entry of each spec's "expectations": range and lift on exact
      values (the exact engine: no sampling noise, the same on every run), beats from
      the power of the z-test at the exact rates (and, with "simulate", a seeded
      experiment-mode run), best from exact values or a seeded experiment-mode run.
      Prints a pass/fail table with the measured value, its interval and, on failure,
      why. Exit status: 0 when every expectation passes, 1 when any fails, 65 when a
      spec is invalid (nothing is checked then). Nothing to check is a failure too (1):
      a spec without expectations, or files none of which is a spec (a CI glob that
      matches the wrong files), unless --allow-empty.
      With --baseline BASE.json (written by 'funnellab exact SPEC --format json' or by
      --update-baseline): also solves the spec exactly and compares every metric of
      every variant with the baseline; any move beyond --tolerance fails (1), naming
      the metrics and the first screen of each variant whose reach or quits moved.
      Exact, so there is no noise and no flake: snapshot testing for funnels.
      """,
    positionals: [PositionalSpec(name: "spec", help: "Experiment specs (JSON) to check.", optional: false, variadic: true)],
    options: [Key.junit, Key.allowEmpty, Key.baseline, Key.updateBaseline] + BaselineOptions.toleranceOptions + [
      BaselineOptions.allowOtherExperiment, Key.format, OutputDestination.option,
    ],
    requirements: Key.baselineOnly,
    examples: [
      "funnellab check experiments/*.json --junit build/funnellab-check.xml",
      "funnellab check experiments/urbannest-onboarding.json --format json",
      "funnellab check experiments/*.json --format github",
      "funnellab check experiments/urbannest-onboarding.json --update-baseline build/urbannest-baseline.json",
      "funnellab check experiments/urbannest-onboarding.json --baseline build/urbannest-baseline.json --tolerance completionRate=0.001",
    ])

  /// The options of `check`.
  enum Key {
    static let junit = Option<String?>.text(
      "junit", valueName: "file", help: "Also write JUnit XML (testsuites/testsuite/testcase/failure) to this file.", file: .writes)
    static let allowEmpty = Option<Bool>.flag(
      "allow-empty", help: "Pass a spec without expectations, and files none of which is a spec (exit 0).")
    static let baseline = Option<String?>.text(
      "baseline", valueName: "file", help: "Compare the spec's exact funnel with this baseline (one spec only).", file: .reads)
    static let updateBaseline = Option<String?>.text(
      "update-baseline", valueName: "file", help: "Write the spec's exact funnel to this file as the new baseline (one spec only).",
      file: .writes)
    static let format = Option<OutputFormat>.format(
      for: CheckRenderer.Report.self,
      help:
        "table, json, markdown (a pull-request comment), html, or github (::error annotations at each failing expectation's line) (default: table)."
    )

    /// The options that compare with a baseline need `--baseline`.
    static let baselineOnly: [OptionRequirement] =
      ([BaselineOptions.tolerance, BaselineOptions.relativeTolerance] as [any OptionKey]).map { option in
        OptionRequirement(
          option, needs: baseline, message: "--tolerance and --relative-tolerance need --baseline",
          hint: "e.g. --baseline build/klick-baseline.json")
      } + [
        OptionRequirement(
          BaselineOptions.allowOtherExperiment, needs: baseline, message: "--allow-other-experiment needs --baseline",
          hint: "it accepts a baseline of another experiment")
      ]
  }

  static func run(_ arguments: ParsedArguments, console: any Console) throws -> ExitCode {
    let format = try arguments[Key.format]
    let output = OutputDestination(path: try arguments[OutputDestination.option])
    guard !arguments.positionals.isEmpty else {
      throw UsageError(message: "no spec given", hint: "e.g. funnellab check experiments/*.json")
    }
    var experiments: [(String, Experiment)] = []
    var lines: [[Int?]] = []
    var failures: [CommandFailure] = []
    for loaded in LoadedSpec.loadAll(arguments.positionals, console: console) {
      switch loaded {
      case .success(let spec):
        experiments.append((spec.source, spec.experiment))
        lines.append(ExperimentLoader.expectationLines(in: spec.text))
      case .failure(let failure): failures.append(failure)
      }
    }
    if !failures.isEmpty {
      let code = failures.contains { $0.code == .invalidInput } ? ExitCode.invalidInput : .noInput
      throw CommandFailure(code: code, text: failures.map(\.text).joined())
    }
    let baseline = try Baseline(arguments, specs: experiments.count, console: console)
    try refuseNothingToCheck(
      experiments, given: arguments.positionals, allowEmpty: (try arguments[Key.allowEmpty]) || baseline.replacesExpectations)
    var files: [CheckRenderer.File] = []
    // A bar on a terminal over every spec's expectations (a simulated one can take seconds); -q hides it.
    let total = experiments.reduce(0) { $0 + $1.1.expectations.count }
    let bar = ProgressBar(console: console, label: "check", enabled: total > 0, unit: "expectations")
    for ((path, experiment), lines) in zip(experiments, lines) {
      do {
        let before = files.reduce(0) { $0 + $1.results.count }
        let results = try ExpectationChecker.check(experiment) { done, _ in bar.update(done: before + done, total: total) }
        files.append(CheckRenderer.File(path: path, experiment: experiment.name, results: results, lines: lines))
      } catch {
        bar.finish()
        throw CommandFailure.invalid(error)
      }
    }
    bar.finish()
    var update: (OutputDestination, String)?
    if baseline.replacesExpectations, let (path, experiment) = experiments.first, let index = files.indices.first {
      // Solved once for both the comparison and the new baseline.
      let solved = try ExactCommand.solve(experiment, console: console)
      files[index].baseline = try baseline.compare(
        FunnelSnapshot(
          experiment: experiment.name, ids: solved.map(\.variant.id), flows: solved.map(\.flow), funnels: solved.map(\.exact),
          primary: experiment.metrics.primary),
        path: path, allowOtherExperiment: try arguments[BaselineOptions.allowOtherExperiment])
      if let destination = baseline.update {
        update = (destination, ExactRenderer.Report(experiment: experiment.name, variants: solved, metrics: experiment.metrics).json())
      }
    }
    // Written all or nothing: a failure to write one leaves every earlier file as it was.
    var outputs = OutputSet()
    if let junit = try arguments[Key.junit] { outputs.add(CheckRenderer.junit(files), to: OutputDestination(path: junit)) }
    if let (destination, text) = update { outputs.add(text, to: destination) }
    outputs.add(try format.text(of: CheckRenderer.Report(files), console: console), to: output)
    try outputs.write(console: console)
    return files.allSatisfy(\.passed) ? .success : .checkFailed
  }

  /// `--baseline` and `--update-baseline`: read and checked before anything is solved.
  struct Baseline {
    var snapshot: (path: String, value: FunnelSnapshot)?
    var update: OutputDestination?
    var tolerance: SnapshotTolerance

    /// Whether a baseline is asked for, so a spec without expectations still has something to check.
    var replacesExpectations: Bool { snapshot != nil || update != nil }

    init(_ arguments: ParsedArguments, specs: Int, console: any Console) throws {
      tolerance = try BaselineOptions.tolerance(arguments)
      let path = try arguments[Key.baseline]
      update = try arguments[Key.updateBaseline].map { OutputDestination(path: $0) }
      if (path != nil || update != nil), specs != 1 {
        throw UsageError(
          message: "--baseline and --update-baseline take one spec, got \(specs)", hint: "run check once per spec and baseline")
      }
      if let path { snapshot = (InputFile.displayName(path), try BaselineOptions.load(path, console: console)) }
    }

    /// The comparison of the spec's exact funnel (`current`) with the baseline, when one was given.
    /// - Throws: ``CommandFailure`` (65) when the baseline cannot judge it (``BaselineOptions/refuseUncovered(_:by:named:allowOtherExperiment:)``).
    func compare(_ current: FunnelSnapshot, path: String, allowOtherExperiment: Bool) throws(CommandFailure) -> SnapshotRenderer.Report? {
      guard let (name, base) = snapshot else { return nil }
      try BaselineOptions.refuseUncovered(current, by: base, named: name, allowOtherExperiment: allowOtherExperiment)
      let comparison = SnapshotComparison.compare(baseline: base, current: current, tolerance: tolerance)
      return SnapshotRenderer.Report(comparison: comparison, baseline: name, current: path)
    }
  }

  /// A check that checks nothing fails (exit 1), naming why, unless `allowEmpty`: no file
  /// given was a spec, or a spec has no expectations. Nothing is written then.
  static func refuseNothingToCheck(_ experiments: [(String, Experiment)], given: [String], allowEmpty: Bool) throws(CommandFailure) {
    guard !allowEmpty else { return }
    if experiments.isEmpty {
      throw CommandFailure(
        code: .checkFailed,
        text: "Error: nothing to check: "
          + (given.count == 1
            ? "\(InputFile.displayName(given[0])) is not" : "none of \(given.map(InputFile.displayName).joined(separator: ", ")) is")
          + " an experiment spec; give the specs (e.g. experiments/klick-onboarding.json), or --allow-empty\n")
    }
    let empty = experiments.filter { $0.1.expectations.isEmpty }.map { InputFile.displayName($0.0) }
    guard empty.isEmpty else {
      throw CommandFailure(
        code: .checkFailed,
        text: empty.map {
          "Error: \($0): no expectations to check; add an \"expectations\" list (docs/guide-ci-checks.md), or pass --allow-empty\n"
        }.joined())
    }
  }

}
