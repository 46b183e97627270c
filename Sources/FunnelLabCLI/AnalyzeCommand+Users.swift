import FunnelLab
import FunnelReport
import FunnelStats

/// `analyze --users-file`: a per-user export, streamed.
extension AnalyzeCommand {
  /// The options that belong to a per-user file only (each needs `--users-file`), and those that belong to
  /// counts only (each refused with it): declared in ``spec``'s requirements and conflicts.
  static let userOptions: [any OptionKey] = [Key.metric, Key.covariate, Key.ratio]
  static let countOptions: [any OptionKey] = [
    Key.arm, Key.data, Key.test, Key.margin, Key.counts, Key.plannedUsers, Key.plannedDays, Key.spending, Key.mixing,
  ]

  static func runUsers(_ path: String, _ arguments: ParsedArguments, console: any Console) throws -> ExitCode {
    if let side = try arguments[Key.alternative], side != "two-sided" {
      throw UsageError(message: "a per-user file is read two-sided", hint: "drop --alternative \(side)")
    }
    var columns = UserFile.Columns(metric: try arguments[Key.metric], covariate: try arguments[Key.covariate])
    if let ratio = try arguments[Key.ratio] {
      let parts = ratio.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
      guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else {
        throw UsageError(message: "--ratio '\(ratio)' is not numerator/denominator", hint: "e.g. --ratio revenue/purchases")
      }
      (columns.numerator, columns.denominator) = (parts[0], parts[1])
    }
    guard columns.metric != nil || columns.numerator != nil else {
      throw UsageError(message: "--users-file needs --metric COLUMN or --ratio NUM/DEN", hint: "e.g. --metric revenue")
    }
    var settings = UserMetricAnalysis.Settings()
    settings.alpha = try arguments[Key.alpha] ?? 0.05
    let correction = try arguments[Key.correction] ?? "holm"
    settings.correction = corrections[correction] ?? .holm
    settings.control = try arguments[Key.control]
    if let text = try arguments[Key.allocation] { settings.allocation = try parseAllocation(text) }
    if let tuning = try arguments[Key.tuning] { settings.sequenceTuning = tuning }
    let format = try arguments[Key.format]
    let file = try readUsers(path, columns: columns, console: console)
    let source = InputFile.displayName(path)
    let report: UserMetricAnalysis.Report
    do {
      report = try UserMetricAnalysis.analyze(file, settings: settings)
    } catch {
      let origins = [StatsProblems.Origin](repeating: .file(source, line: nil), count: file.arms.count)
      throw StatsProblems(arms: origins, dataFile: source).failure([error])
    }
    try OutputDestination(path: try arguments[OutputDestination.option]).write(
      UserAnalysisRenderer.Report(report), as: format, console: console)
    if try arguments[Key.failOnSRM], report.mismatch {
      console.err("Sample ratio mismatch: exit 1 (--fail-on-srm).\n")
      return .checkFailed
    }
    return .success
  }

  /// Streams the per-user file at `path` into its arms' sums, refusing it at its first bad line.
  static func readUsers(_ path: String, columns: UserFile.Columns, console: any Console) throws(CommandFailure) -> UserFile {
    var file = UserFile(columns: columns)
    let stopped = try InputFile.streamLines(
      path, label: "analyze", console: console,
      line: { number, line in
        switch line {
        case .text(let text): file.add(line: text, number: number)
        case .problem(let message): file.addBadLine(message, number: number)
        }
      },
      goOn: { file.problem == nil }, finish: { file.finish() })
    let source = InputFile.displayName(path)
    if let stopped {
      throw CommandFailure.invalidInput("\(source):\(stopped.line): \(stopped.message); give one user per line.")
    }
    if let problem = file.problem {
      throw CommandFailure.invalidInput("\(source):\(problem.line): \(problem.message.escapingControlCharacters).")
    }
    return file
  }
}
