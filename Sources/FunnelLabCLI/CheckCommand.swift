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
      spec is invalid (nothing is checked then).
      """,
    positionals: [PositionalSpec(name: "spec", help: "Experiment specs (JSON) to check.", optional: false, variadic: true)],
    options: [
      OptionSpec(name: "junit", valueName: "file", help: "Also write JUnit XML (testsuites/testsuite/testcase/failure) to this file."),
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

}
