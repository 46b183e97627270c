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
      OptionSpec(name: "format", short: "f", valueName: "format", help: "table or json (default: table)."),
      OutputDestination.option,
    ],
    examples: [
      "funnellab check experiments/*.json",
      "funnellab check experiments/*.json --junit build/funnellab-check.xml",
      "funnellab check experiments/klick-onboarding.json --format json",
    ])

  static func run(_ arguments: ParsedArguments, console: any Console) throws -> ExitCode {
    let format = try arguments.choice("format", ["table", "json"]) ?? "table"
    let output = OutputDestination(path: arguments.value("output"))
    guard !arguments.positionals.isEmpty else {
      throw UsageError(message: "no spec given", hint: "e.g. funnellab check experiments/*.json")
    }
    var experiments: [(String, Experiment)] = []
    var invalid: [SpecErrors] = []
    for path in arguments.positionals {
      if isJSONSchema(path) {
        console.err("note: skipping \(path): a JSON Schema, not an experiment\n")
        continue
      }
      do {
        experiments.append((path, try ExperimentLoader.load(contentsOf: path)))
      } catch {
        invalid.append(error)
      }
    }
    if !invalid.isEmpty {
      let failures = invalid.map(CommandFailure.invalid)
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
      try OutputDestination(path: junit).write(CheckRenderer.junit(files), console: console)
    }
    try output.write(format == "json" ? CheckRenderer.json(files) : CheckRenderer.table(files), console: console)
    return files.allSatisfy { $0.results.allSatisfy(\.passed) } ? .success : .checkFailed
  }

  /// Whether `path` is a JSON Schema (such as `experiments/schema.json`, which a
  /// shell glob `experiments/*.json` includes): its `$schema` names json-schema.org.
  static func isJSONSchema(_ path: String) -> Bool {
    guard let data = FileManager.default.contents(atPath: path), let text = String(data: data, encoding: .utf8),
      let document = try? JSONParser.parse(text), case .string(let schema)? = document["$schema"]?.kind
    else { return false }
    return schema.contains("json-schema.org")
  }
}
