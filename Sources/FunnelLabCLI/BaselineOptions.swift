import FunnelLab
import FunnelReport

/// The options that compare a spec's exact funnel with a saved one (`check --baseline`,
/// `diff`): the tolerance of a move, and reading or writing a baseline file.
enum BaselineOptions {
  /// `--tolerance`.
  static let tolerance = Option<[String]>.repeatable(
    "tolerance", valueName: "x|metric=x",
    help:
      "The absolute move allowed before a metric counts as changed (default 1e-9: any change); metric=x sets one metric's (e.g. completionRate=0.005). Repeatable."
  )
  /// `--relative-tolerance`.
  static let relativeTolerance = Option<Double?>.number(
    "relative-tolerance", valueName: "x", help: "Also allow x × |baseline| (default 1e-9; 0.01 allows a 1 % move).", in: 0...1e6)

  /// `--tolerance` and `--relative-tolerance`.
  static let toleranceOptions: [any OptionKey] = [tolerance, relativeTolerance]

  /// The tolerance the command line asks for.
  /// - Throws: ``UsageError`` for a value that is not a number in [0, 1e6], or an unknown metric.
  static func tolerance(_ arguments: ParsedArguments) throws(UsageError) -> SnapshotTolerance {
    var tolerance = SnapshotTolerance()
    if let r = try arguments[relativeTolerance] { tolerance.relative = r }
    for text in try arguments[Self.tolerance] {
      // `=0.1` names no metric: an empty name is refused, never read as the global tolerance.
      let parts = text.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
      let number = parts.last ?? ""
      guard let x = decimalNumber(number), x >= 0, x <= 1e6 else {
        throw UsageError(
          message: "--tolerance expects a number from 0 to 1e6 or metric=number, got '\(text.escapingControlCharacters)'",
          hint: "e.g. --tolerance 0.001 or --tolerance completionRate=0.005")
      }
      guard parts.count == 2 else {
        tolerance.absolute = x
        continue
      }
      guard !parts[0].isEmpty else {
        throw UsageError(
          message: "--tolerance '\(text.escapingControlCharacters)' names no metric before '='",
          hint: "e.g. --tolerance completionRate=0.005, or --tolerance 0.005 for every metric")
      }
      guard let metric = FunnelMetric(rawValue: parts[0]) else {
        let names = FunnelMetric.allCases.map(\.rawValue)
        throw UsageError(
          message: "--tolerance: unknown metric '\(parts[0].escapingControlCharacters)'",
          hint: NameSuggestion.hint(for: parts[0], in: names) ?? "use one of: " + names.joined(separator: ", "))
      }
      tolerance.perMetric[metric] = x
    }
    return tolerance
  }

  /// `--allow-other-experiment`: a baseline of another experiment is refused without it.
  static let allowOtherExperiment = Option<Bool>.flag(
    "allow-other-experiment",
    help: "Accept a baseline whose experiment name is not the spec's (a renamed or copied experiment).")

  /// Refuses (65, naming the baseline file) a baseline that cannot judge `current`: another
  /// experiment's (unless allowed), or one missing a metric that `current` has a value of.
  static func refuseUncovered(
    _ current: FunnelSnapshot, by baseline: FunnelSnapshot, named name: String, allowOtherExperiment: Bool
  ) throws(CommandFailure) {
    let errors = FunnelSnapshot.coverageErrors(baseline: baseline, current: current, allowOtherExperiment: allowOtherExperiment)
    guard errors.isEmpty else { throw CommandFailure.invalid(SpecErrors(source: name, errors: errors)) }
  }

  /// The baseline file at `path`, read as `funnellab exact --format json` writes it.
  /// - Throws: ``CommandFailure``: 66 when unreadable, 65 when it is not a baseline (naming the JSON path and line).
  static func load(_ path: String, console: any Console) throws(CommandFailure) -> FunnelSnapshot {
    let text = try InputFile.read(path, console: console)
    do {
      return try FunnelSnapshot.decode(exactJSON: text, source: InputFile.displayName(path))
    } catch {
      throw CommandFailure.invalid(error)
    }
  }

  /// Solves `experiment` exactly.
  /// - Throws: ``CommandFailure`` (65) when the experiment does not compile.
  static func solve(_ experiment: Experiment) throws(CommandFailure) -> FunnelSnapshot {
    do {
      return try FunnelSnapshot.solve(experiment)
    } catch {
      throw CommandFailure.invalid(error)
    }
  }
}
