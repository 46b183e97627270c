import FunnelLab
import FunnelReport

/// `funnellab sensitivity`: where does the winner flip as assumptions change?
enum SensitivityCommand: Command {
  static let spec = CommandSpec(
    name: "sensitivity",
    abstract: "Rerun the comparison across behavior parameter values; show where the winner flips.",
    discussion: """
      For every combination of the --vary values (the last varies fastest), solves
      every variant exactly (no sampling noise) and names the winner on the metric
      (default: the spec's primary metric): the variant that beats every other by
      more than the spec's equivalence margin (±1 % of the control's value by
      default); otherwise the point is a tie of the variants within the margin. A
      flip between two different winners along the last parameter is located by
      bisection to 1/1024 of the bracket; a tie never starts or ends a flip. A sweep
      estimated at over 10 s (from its first point) is announced, with progress.
      """,
    positionals: [PositionalSpec(name: "spec", help: "An experiment spec (JSON); default: built-in klick-onboarding.")],
    options: [Key.vary, Key.metric, SharedOptions.threads, Key.format, OutputDestination.option],
    examples: [
      "funnellab sensitivity experiments/klick-onboarding.json --vary fatiguePerScreen=0:0.2:0.02",
      "funnellab sensitivity experiments/betfree-onboarding.json --vary priceSensitivity=0.5:2:0.25 --metric revenuePerUser --format json",
    ])

  /// The options of `sensitivity` (`--threads` is ``SharedOptions/threads``).
  enum Key {
    static let vary = Option<[String]>.repeatable(
      "vary", valueName: "parameter=from:to:step", help: "A behavior parameter and its values.")
    static let metric = Option<FunnelMetric?>.metric(help: "The metric whose winner is tracked (default: metrics.primary).")
    static let format = Option<OutputFormat>.format(for: SensitivityRenderer.Report.self)
  }

  static func run(_ arguments: ParsedArguments, console: any Console) throws -> ExitCode {
    let format = try arguments[Key.format]
    let metric = try arguments[Key.metric]
    let threads = try arguments[SharedOptions.threads]
    let varies = try arguments[Key.vary]
    guard !varies.isEmpty else { throw UsageError(message: "give at least one --vary", hint: "e.g. --vary fatiguePerScreen=0:0.2:0.02") }
    var axes: [Sensitivity.Axis] = []
    for text in varies {
      let parts = text.split(separator: "=", maxSplits: 1).map(String.init)
      let names = BehaviorParameter.allCases.map(\.rawValue)
      guard parts.count == 2, let parameter = BehaviorParameter(rawValue: parts[0]) else {
        throw UsageError(
          message: "--vary '\(text.escapingControlCharacters)': unknown behavior parameter '\(parts.first ?? "")'",
          hint: closest(parts.first ?? "", names).map { "did you mean '\($0)'?" } ?? "parameters: " + names.joined(separator: ", "))
      }
      let range = parts[1].split(separator: ":", omittingEmptySubsequences: false).map { decimalNumber(String($0)) }
      guard range.count == 3, let from = range[0], let to = range[1], let step = range[2], step > 0, from <= to else {
        throw UsageError(
          message: "--vary '\(text)': expected from:to:step, finite numbers with step > 0 and from ≤ to",
          hint: "e.g. fatiguePerScreen=0:0.2:0.02")
      }
      let bounds = parameter.range
      guard bounds.contains(from), bounds.contains(to) else {
        throw UsageError(
          message:
            "--vary '\(text)': \(parameter.rawValue) goes from \(JSONValue.format(bounds.lowerBound)) to \(JSONValue.format(bounds.upperBound))",
          hint: "the unit is \(parameter.unit); the default is \(JSONValue.format(parameter.defaultValue))")
      }
      if parameter == .screensSeenCap, from != from.rounded() || step != step.rounded() {
        throw UsageError(message: "--vary '\(text)': screensSeenCap takes whole numbers", hint: "e.g. screensSeenCap=5:30:5")
      }
      guard let axis = Sensitivity.Axis(parameter: parameter, from: from, to: to, step: step) else {
        throw UsageError(
          message: "--vary '\(text)': more than \(Limits.sensitivityPoints) values", hint: "use a larger step")
      }
      guard !axes.contains(where: { $0.parameter == parameter }) else {
        throw UsageError(message: "--vary '\(text)': \(parameter.rawValue) is varied twice", hint: "give one range per parameter")
      }
      axes.append(axis)
    }
    guard Sensitivity.pointCount(axes) != nil else {
      throw UsageError(
        message:
          "the --vary axes give more than \(Limits.sensitivityPoints) points (\(axes.map { String($0.values.count) }.joined(separator: " × ")))",
        hint: "use larger steps or fewer axes")
    }
    let experiment = try LoadedSpec.load(arguments, console: console).experiment
    let result: Sensitivity
    // The first point's time paces the rest.
    let progress = PacedProgress(console: console, label: "sensitivity", unit: "points") { first, done, total in
      let left = first / Double(max(done, 1)) * Double(total - done)
      guard first + left > ProgressBar.announcedAboveSeconds else { return nil }
      return "Note: \(total) points at \(ProgressBar.duration(first / Double(max(done, 1)))) each (each solves every variant exactly):"
        + " about \(ProgressBar.duration(left)) more; larger steps or fewer axes make it shorter.\n"
    }
    do {
      result = try Sensitivity.run(experiment, axes: axes, metric: metric, threads: threads, progress: progress.update)
    } catch {
      progress.finish()
      throw CommandFailure.invalid(error)
    }
    progress.finish()
    let output = OutputDestination(path: try arguments[OutputDestination.option])
    try output.write(SensitivityRenderer.Report(result), as: format, console: console)
    return .success
  }
}
