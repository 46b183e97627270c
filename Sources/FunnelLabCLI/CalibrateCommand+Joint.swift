import Foundation
import FunnelLab
import FunnelReport

extension CalibrateCommand {
  /// `calibrate --variants a,b,c [--fit p,q]` (or `--variant a --variant b …`): the joint fit of past tests (``BehaviorCalibration``).
  static func runJointly(
    _ arguments: ParsedArguments, spec: LoadedSpec, document: JSONValue, csv: String, console: any Console
  ) throws -> ExitCode {
    let experiment = spec.experiment
    let csvPath = arguments.positionals[1]
    let variantIDs = experiment.variants.map(\.id)
    let picked = try arguments[Key.variant]
    let option = picked.isEmpty ? "--variants" : "--variant"
    let wanted = try arguments[Key.variants] ?? (picked.isEmpty ? "all" : picked.joined(separator: ","))
    let column = ObservedCounts.variantColumn(inCSV: csv)
    guard !column.variants.isEmpty else {
      // A file that does not parse says why (exit 65); one that parses has no variant column.
      do { _ = try ObservedCounts.parse(csv: csv, source: csvPath) } catch { throw failure(error) }
      throw UsageError(
        message: "\(option): \(InputFile.displayName(csvPath)) has no variant column",
        hint: "the CSV needs screen,action,count,variant rows of " + variantIDs.joined(separator: ", "))
    }
    if let line = column.unlabelledLine {
      throw CommandFailure(
        code: .invalidInput,
        text: "\(InputFile.displayName(csvPath)):\(line): the row has no variant, so it would count in every arm; "
          + "name its variant, or drop it\n")
    }
    var variants: [String]
    if wanted == "all" {
      variants = column.variants.filter(variantIDs.contains)
      for other in column.variants where !variantIDs.contains(other) {
        console.err(
          "note: \(InputFile.displayName(csvPath)) has rows of '\(other)', which is not a variant of the spec; they are left out\n")
      }
      guard !variants.isEmpty else {
        throw UsageError(
          message: "\(option) all: \(InputFile.displayName(csvPath)) has no rows of the spec's variants",
          hint: "the CSV's variant column must name " + variantIDs.joined(separator: ", "))
      }
    } else {
      variants = wanted.split(separator: ",", omittingEmptySubsequences: false).map { String($0).trimmingCharacters(in: .whitespaces) }
      for id in variants where !variantIDs.contains(id) {
        throw UsageError(
          message: "\(option): no variant '\(id)' in the spec",
          hint: closest(id, variantIDs).map { "did you mean '\($0)'?" } ?? "variants: " + variantIDs.joined(separator: ", "))
      }
      guard Set(variants).count == variants.count else {
        throw UsageError(message: "\(option): a variant is named twice", hint: "name each past arm once")
      }
    }
    let candidates = try fitCandidates(arguments[Key.fit])
    let calibration = try fitJointly(
      experiment, document: document, csv: csv, csvPath: csvPath, variants: variants, candidates: candidates,
      profile: !(try arguments[Key.noProfile]), threads: try arguments[SharedOptions.threads], console: console)
    let report = try report(
      BehaviorCalibrationRenderer.self, calibration, experiment: experiment.name, observedPath: csvPath, arguments: arguments,
      console: console)
    if try write(report, spec: calibration.document, arguments: arguments, console: console) {
      let fittedBehavior = calibration.parameters.contains { if case .behavior = $0.kind { true } else { false } }
      if fittedBehavior, calibration.calibrated.parameterUncertainty == nil {
        console.err(
          "note: the fit's uncertainty could not be written as a parameterUncertainty section (a standard error wider than its "
            + "parameter's range, or correlations that round to ±1); the calibrated spec has none\n")
      }
    }
    return .success
  }

  /// The joint fit of the rows of `variants` in `csv`, with a bar for each stage of the fit
  /// (``stageBar(_:)``) and then one over the profile's ends on `console`'s terminal, all
  /// cleared before it returns; `threads` workers (`nil`: every core), which the fit does not depend on.
  static func fitJointly(
    _ experiment: Experiment, document: JSONValue, csv: String, csvPath: String, variants: [String],
    candidates: [BehaviorParameter], profile: Bool, threads: Int? = nil, console: any Console
  ) throws(CommandFailure) -> BehaviorCalibration {
    let stages = StagedProgress(console: console, describe: stageBar)
    let progress = PacedProgress(console: console, label: "profile intervals", unit: "ends", note: profileNote)
    defer {
      stages.finish()
      progress.finish()
    }
    do {
      var observed: [(variant: String, counts: ObservedCounts)] = []
      for id in variants { observed.append((id, try ObservedCounts.parse(csv: csv, source: csvPath, variant: id))) }
      return try BehaviorCalibration.fit(
        experiment, document: document, observed: observed, candidates: candidates, profile: profile, source: csvPath,
        threads: threads,
        progress: { done, total in
          stages.finish()  // the fit is done: its last bar gives way to the profile's
          progress.update(done: done, total: total)
        }, fitting: { stages.update($0, done: $1, total: $2) })
    } catch {
      throw failure(error)
    }
  }

  /// The behavior parameters `--fit` names (default: every fittable one).
  static func fitCandidates(_ value: String?) throws(UsageError) -> [BehaviorParameter] {
    guard let value, value != "all" else { return BehaviorCalibration.fittable }
    var out: [BehaviorParameter] = []
    let names = BehaviorCalibration.fittable.map(\.rawValue)
    for name in value.split(separator: ",", omittingEmptySubsequences: false).map({ String($0).trimmingCharacters(in: .whitespaces) }) {
      guard let parameter = BehaviorParameter(rawValue: name), BehaviorCalibration.fittable.contains(parameter) else {
        throw UsageError(
          message: "--fit: '\(name)' is not a behavior parameter that acts on the counts",
          hint: closest(name, names).map { "did you mean '\($0)'?" } ?? "fittable: " + names.joined(separator: ", "))
      }
      if !out.contains(parameter) { out.append(parameter) }
    }
    return out
  }

  /// The bar of a stage of the fit: its label and its unit (a Jacobian solves the rates once
  /// per parameter; the observed information at `P + P²` points, evaluations).
  @Sendable static func stageBar(_ stage: BehaviorCalibration.Stage) -> (label: String, unit: String) {
    switch stage {
    case .identification: ("identifying parameters", "parameters")
    case .scoring(let iteration): ("fitting, iteration \(iteration)", "parameters")
    case .information: ("observed information", "evaluations")
    }
  }

  /// The announcement of the profile-likelihood phase, once the fit took `fitted` seconds:
  /// each end is a few constrained fits, measured at about 0.62 of the fit's own time
  /// (`calibrate experiments/betfree-onboarding.json experiments/data/betfree-past-tests.csv
  /// --variants all` took 21 s to fit and 52 s more for its 4 ends, debug build, 2 cores).
  static func profileNote(fitted: Double, done: Int, total: Int) -> String? {
    let left = fitted * 0.62 * Double(total)
    guard fitted + left > ProgressBar.announcedAboveSeconds else { return nil }
    return "Note: fitted in \(ProgressBar.duration(fitted)); the profile-likelihood intervals take \(total) ends, about"
      + " \(ProgressBar.duration(left)) more at that pace; --no-profile skips them.\n"
  }

  /// The one-line-per-problem failure of a spec or counts error.
  static func failure(_ error: SpecErrors) -> CommandFailure {
    var text = ""
    for e in error.errors {
      text += InputFile.displayName(error.source) + (e.line.map { ":\($0)" } ?? "") + ": \(e.message.escapingControlCharacters)"
      text += (e.hint.map { "; \($0.escapingControlCharacters)" } ?? "") + "\n"
    }
    return CommandFailure(code: ExitCode(error), text: text)
  }

  /// Checks that the calibrated spec loads before anything is written to `output`.
  static func validateCalibrated(_ document: JSONValue, output: String) throws(CommandFailure) {
    do {
      _ = try ExperimentLoader.load(text: JSONWriter.write(document), source: output)
    } catch {
      var text = ""
      for e in error.errors { text += "\(output): \(e.description.escapingControlCharacters)\n" }
      text +=
        "Error: the calibrated spec would be invalid (\(Vocabulary.plural(error.errors.count, "problem"))); nothing was written.\n"
      throw CommandFailure(code: ExitCode(error), text: text)
    }
  }
}
