import FunnelLab
import FunnelReport
import FunnelStats

/// `analyze --users-file`: a per-user export, streamed.
extension AnalyzeCommand {
  /// The flags that belong to a per-user file only, and those that belong to counts only.
  static let userFlags = ["metric", "covariate", "ratio"]
  static let countFlags = ["arm", "data", "test", "margin", "counts", "planned-users", "planned-days", "spending", "msprt-tau"]

  /// Refuses the per-user flags when the arms come from counts.
  static func refuseUserFlags(_ arguments: ParsedArguments) throws(UsageError) {
    for flag in userFlags where arguments.value(flag) != nil {
      throw UsageError(message: "--\(flag) reads a per-user file", hint: "add --users-file FILE (one row per user)")
    }
  }

  static func runUsers(_ path: String, _ arguments: ParsedArguments, console: any Console) throws -> ExitCode {
    for flag in countFlags where arguments.value(flag) != nil {
      throw UsageError(
        message: "--\(flag) reads counts, not --users-file",
        hint: flag == "arm" || flag == "data" ? "give the arms in the per-user file" : "drop --\(flag)")
    }
    if let side = arguments.value("alternative"), side != "two-sided" {
      throw UsageError(message: "a per-user file is read two-sided", hint: "drop --alternative \(side)")
    }
    var columns = UserFile.Columns(metric: arguments.value("metric"), covariate: arguments.value("covariate"))
    if let ratio = arguments.value("ratio") {
      let parts = ratio.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
      guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else {
        throw UsageError(message: "--ratio '\(ratio)' is not numerator/denominator", hint: "e.g. --ratio revenue/purchases")
      }
      (columns.numerator, columns.denominator) = (parts[0], parts[1])
    }
    if columns.covariate != nil, columns.metric == nil {
      throw UsageError(message: "--covariate adjusts --metric", hint: "add --metric COLUMN")
    }
    guard columns.metric != nil || columns.numerator != nil else {
      throw UsageError(message: "--users-file needs --metric COLUMN or --ratio NUM/DEN", hint: "e.g. --metric revenue")
    }
    var settings = UserMetricAnalysis.Settings()
    settings.alpha = try arguments.number("alpha", in: 1e-12...0.5) ?? 0.05
    let correction = try arguments.choice("correction", ["holm", "bh", "benjamini-hochberg", "bonferroni", "none"]) ?? "holm"
    settings.correction = corrections[correction] ?? .holm
    settings.control = arguments.value("control")
    if let text = arguments.value("allocation") { settings.allocation = try parseAllocation(text) }
    if let tuning = try arguments.number("cs-tuning", in: 1...1e12) { settings.sequenceTuning = tuning }
    let format = try arguments.format(OutputFormat.all)
    let file = try readUsers(path, columns: columns, console: console)
    let source = InputFile.displayName(path)
    let report: UserMetricAnalysis.Report
    do {
      report = try UserMetricAnalysis.analyze(file, settings: settings)
    } catch {
      let origins = [StatsProblems.Origin](repeating: .file(source, line: nil), count: file.arms.count)
      throw StatsProblems(arms: origins, dataFile: source).failure([error])
    }
    let out =
      switch format {
      case .json: UserAnalysisRenderer.json(report)
      case .csv: UserAnalysisRenderer.csv(report)
      case .markdown: UserAnalysisRenderer.markdown(report)
      case .html: UserAnalysisRenderer.html(report)
      case .table: terminal(UserAnalysisRenderer.table(report))
      }
    try OutputDestination(path: arguments.value("output")).write(out, console: console)
    if arguments.flag("fail-on-srm"), report.mismatch {
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
