import FunnelLab
import FunnelReport

/// `funnellab diff`: what an edit to a spec does to its exact funnel.
enum DiffCommand: Command {
  static let spec = CommandSpec(
    name: "diff",
    abstract: "Compare the exact funnels of two specs (or a spec and a baseline); exit 1 when any metric moved.",
    discussion: """
      Solves both sides exactly (no seed, no noise) and compares every metric of every
      variant, matched by id: the values that moved beyond --tolerance (the largest
      relative moves first), variants added or gone, and where each change comes from
      (the screen whose quits moved most, the screen whose reach moved most). Either
      side may be a spec or a baseline written by 'funnellab exact --format json'.
      Exit status: 0 when nothing moved, 1 when something did (as diff(1)), 65 when
      a side is invalid, 66 when it cannot be read.
      """,
    positionals: [
      PositionalSpec(name: "old", help: "The spec (or baseline JSON) before the change.", optional: false),
      PositionalSpec(name: "new", help: "The spec (or baseline JSON) after the change.", optional: false),
    ],
    options: BaselineOptions.toleranceOptions + [BaselineOptions.allowOtherExperiment, format, OutputDestination.option],
    examples: [
      "funnellab exact experiments/urbannest-onboarding.json --format json -o build/urbannest-exact.json",
      "funnellab diff build/urbannest-exact.json experiments/urbannest-onboarding.json",
      "funnellab diff experiments/urbannest-onboarding.json experiments/urbannest-onboarding.json --tolerance completionRate=0.001 --format markdown",
    ])

  /// `--format` of `diff`.
  static let format = Option<OutputFormat>.format(
    for: SnapshotRenderer.Report.self, help: "table, json or markdown (a pull-request comment) (default: table).")

  static func run(_ arguments: ParsedArguments, console: any Console) throws -> ExitCode {
    let format = try arguments[Self.format]
    let output = OutputDestination(path: try arguments[OutputDestination.option])
    let tolerance = try BaselineOptions.tolerance(arguments)
    guard arguments.positionals.count == 2 else {
      throw UsageError(message: "diff takes two files, got \(arguments.positionals.count)", hint: "funnellab diff OLD.json NEW.json")
    }
    let (old, oldIsBaseline) = try snapshot(arguments.positionals[0], console: console)
    let (new, newIsBaseline) = try snapshot(arguments.positionals[1], console: console)
    // A baseline file judges the other side only where it covers it.
    let allowOther = try arguments[BaselineOptions.allowOtherExperiment]
    if oldIsBaseline {
      try BaselineOptions.refuseUncovered(
        new, by: old, named: InputFile.displayName(arguments.positionals[0]), allowOtherExperiment: allowOther)
    }
    if newIsBaseline {
      try BaselineOptions.refuseUncovered(
        old, by: new, named: InputFile.displayName(arguments.positionals[1]), allowOtherExperiment: allowOther)
    }
    let report = SnapshotRenderer.Report(
      comparison: SnapshotComparison.compare(baseline: old, current: new, tolerance: tolerance),
      baseline: InputFile.displayName(arguments.positionals[0]), current: InputFile.displayName(arguments.positionals[1]))
    try output.write(report, as: format, console: console)
    return report.comparison.passed ? .success : .checkFailed
  }

  /// The exact funnel of the file at `path`: a baseline (`"command": "exact"`) as saved, a spec solved;
  /// and whether it was a baseline.
  static func snapshot(_ path: String, console: any Console) throws(CommandFailure) -> (FunnelSnapshot, isBaseline: Bool) {
    let text = try InputFile.read(path, console: console)
    if FunnelSnapshot.isBaseline(text) {
      do {
        return (try FunnelSnapshot.decode(exactJSON: text, source: InputFile.displayName(path)), true)
      } catch {
        throw CommandFailure.invalid(error)
      }
    }
    return (try BaselineOptions.solve(try LoadedSpec.load(text: text, source: InputFile.displayName(path)).experiment), false)
  }
}
