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
      """,
    positionals: [PositionalSpec(name: "spec", help: "Experiment specs (JSON) to check.", optional: false, variadic: true)],
    options: [
      OptionSpec(name: "junit", valueName: "file", help: "Also write JUnit XML (testsuites/testsuite/testcase/failure) to this file."),
      OptionSpec(name: "allow-empty", help: "Pass a spec without expectations, and files none of which is a spec (exit 0)."),
      OutputFormat.option(OutputFormat.tableOrJSON),
      OutputDestination.option,
    ],
    examples: [
      "funnellab check experiments/*.json --junit build/funnellab-check.xml",
      "funnellab check experiments/urbannest-onboarding.json --format json",
    ])

  static func run(_ arguments: ParsedArguments, console: any Console) throws -> ExitCode {
    let format = try arguments.format(OutputFormat.tableOrJSON)
    let output = OutputDestination(path: arguments.value("output"))
    guard !arguments.positionals.isEmpty else {
      throw UsageError(message: "no spec given", hint: "e.g. funnellab check experiments/*.json")
    }
    var experiments: [(String, Experiment)] = []
    var failures: [CommandFailure] = []
    for loaded in LoadedSpec.loadAll(arguments.positionals, console: console) {
      switch loaded {
      case .success(let spec): experiments.append((spec.source, spec.experiment))
      case .failure(let failure): failures.append(failure)
      }
    }
    if !failures.isEmpty {
      let code = failures.contains { $0.code == .invalidInput } ? ExitCode.invalidInput : .noInput
      throw CommandFailure(code: code, text: failures.map(\.text).joined())
    }
    try refuseNothingToCheck(experiments, given: arguments.positionals, allowEmpty: arguments.flag("allow-empty"))
    var files: [CheckRenderer.File] = []
    for (path, experiment) in experiments {
      do {
        files.append(CheckRenderer.File(path: path, experiment: experiment.name, results: try ExpectationChecker.check(experiment)))
      } catch {
        throw CommandFailure.invalid(error)
      }
    }
    if let junit = arguments.value("junit") {
      try output.preflight()
      try OutputDestination(path: junit).write(CheckRenderer.junit(files), console: console)
    }
    try output.write(format == .json ? CheckRenderer.json(files) : terminal(CheckRenderer.table(files)), console: console)
    return files.allSatisfy { $0.results.allSatisfy(\.passed) } ? .success : .checkFailed
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
