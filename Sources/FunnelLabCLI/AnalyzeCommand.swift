import Foundation
import FunnelLab
import FunnelReport
import FunnelStats

/// `funnellab analyze`: the statistics of a real experiment's observed counts.
enum AnalyzeCommand: Command {
  static let corrections: [String: MultipleTestingCorrection] = [
    "holm": .holm, "bh": .benjaminiHochberg, "benjamini-hochberg": .benjaminiHochberg, "bonferroni": .bonferroni, "none": .none,
  ]

  static let spec = CommandSpec(
    name: "analyze",
    abstract: "Analyze a real experiment's counts: CIs, lifts, p-values, chance to beat control, SRM.",
    discussion: """
      Arms come from --arm flags (name=users:conversions, optionally
      :revenueSum:revenueSumOfSquares) and/or --data, a CSV file with the header
      arm,users,conversions[,revenue_sum,revenue_sum_squares]. The control is --control
      or the first arm. For each arm vs control: the conversion rate with a Wilson
      interval; with --test score (default) the Miettinen-Nurminen score test (as
      statsmodels test_proportions_2indep(method="score"), variance x N/(N-1)) with the
      intervals that invert it: Miettinen-Nurminen for the absolute lift, the score
      interval of the ratio for the relative lift; with --test pooled-z the pooled
      z-test (statsmodels proportions_ztest) with Newcombe and log-ratio intervals.
      Then the adjusted p-value (--correction, default holm), the Bayesian chance to
      beat control and expected loss (Beta(1,1) prior), and with revenue, Welch's
      t-test and a normal-posterior chance to beat control.
      Verdict: significant when the adjusted p-value is at most alpha and the intervals
      exclude 0 (a pooled z-test that disagrees with its interval is not significant).
      The sample-ratio-mismatch check compares arm sizes with --allocation (default:
      equal), flagged at p < 0.001; a mismatch turns every verdict into "do not trust:
      sample ratio mismatch", and with --fail-on-srm the command then exits 1.

      A running test, read day by day: give --data a day column (day,arm,users,...),
      each day's own counts (--counts daily, the default) or running totals (--counts
      cumulative). The analysis above is then of the last day's totals, followed by a
      table by day: the cumulative lift with its fixed-horizon interval and p-value
      (valid only at the planned end), the always-valid confidence sequence and
      p-values (valid however often you look), and the group-sequential boundary with
      its decision (stop, continue, end), alpha spent by the users so far over
      --planned-users (or --planned-days at the rate so far). Without a planned size the
      test is read as running: no boundary decides, and the report says how to give it.
      With several arms alpha is split over them (Bonferroni) unless --correction none.

      By segment: give --data a segment column (arm,segment,users,conversions), one row
      per arm and segment (an acquisition channel, a platform: anything known at
      assignment). The analysis above is of each arm's totals, followed by the
      conversion rate per segment with each segment's difference from the control
      (HC1, p-values corrected across the segments), Cochran's Q test of whether the
      effect differs between segments, and the difference post-stratified on the
      segments beside the unadjusted one, with the variance it removed.

      Per user: --users-file reads one CSV row per user (a header with an arm column and
      the columns named by --metric, --covariate and --ratio; other columns are ignored),
      streamed, so memory holds sums, not users. Each arm against the control: Welch's
      t-test of the metric's mean; with --covariate (a pre-period value of each user),
      CUPED (one pooled slope, as gbstats) and Lin's interacted regression (HC1, as
      statsmodels) beside it, and the decision on CUPED; with --ratio num/den, the ratio
      of sums (revenue per payer) by the delta method. Each arm's skewness says whether
      its normal interval can be trusted (355·skewness² users). The split is checked by
      chi-square and by an anytime-valid test (Lindon & Malek); with a day column, the
      difference day by day with its always-valid confidence sequence.
      """,
    options: [
      Key.arm, Key.data, Key.usersFile, Key.metric, Key.covariate, Key.ratio, Key.control, Key.allocation, Key.alpha, Key.alternative,
      Key.correction, Key.test, Key.margin, Key.failOnSRM, Key.counts, Key.plannedUsers, Key.plannedDays, Key.spending, Key.tuning,
      Key.mixing, Key.format, OutputDestination.option,
    ],
    conflicts: countOptions.map { (option: any OptionKey) -> OptionConflict in
      let name = option.spec.name
      return OptionConflict(
        option, Key.usersFile, message: "--\(name) reads counts, not --users-file",
        hint: name == "arm" || name == "data" ? "give the arms in the per-user file" : "drop --\(name)")
    },
    requirements: userOptions.map { (option: any OptionKey) -> OptionRequirement in
      OptionRequirement(
        option, needs: Key.usersFile, message: "--\(option.spec.name) reads a per-user file",
        hint: "add --users-file FILE (one row per user)")
    } + [OptionRequirement(Key.covariate, needs: Key.metric, message: "--covariate adjusts --metric", hint: "add --metric COLUMN")],
    examples: [
      "funnellab analyze --arm control=1000:120 --arm b=1000:150",
      "funnellab analyze --data experiments/data/klick-results.csv --allocation control=90,b=10 --format json",
      "funnellab analyze --data experiments/data/klick-daily.csv --planned-users 28000 --format html -o daily.html",
      "funnellab analyze --data experiments/data/klick-segments.csv",
      "funnellab analyze --data experiments/data/klick-results.csv --allocation control=90,b=10 --margin 0.01",
      "funnellab analyze --users-file experiments/data/betfree-users.csv --metric revenue --covariate pre_sessions --ratio revenue/purchases",
    ])

  static func run(_ arguments: ParsedArguments, console: any Console) throws -> ExitCode {
    if let path = try arguments[Key.usersFile] { return try runUsers(path, arguments, console: console) }
    var (arms, origins, daily, segmentRows) = try fileArms(arguments, console: console)
    let fromFile = origins.count
    for text in try arguments[Key.arm] {
      arms.append(try parseArm(text))
      origins.append(.flag("--arm '\(text.escapingControlCharacters)'"))
    }
    guard arms.count >= 2 else {
      if fromFile > 0, let data = try arguments[Key.data] {
        // The file's problem: name it, with the data exit code.
        throw CommandFailure(
          code: .invalidInput,
          text: ("Error: \(InputFile.displayName(data)): needs at least two arms (got \(arms.count));"
            + " add a row for each arm, or --arm name=users:conversions\n").escapingControlCharactersButNewlines)
      }
      throw UsageError(message: "needs at least two arms (got \(arms.count))", hint: "e.g. --arm control=1000:120 --arm b=1000:150")
    }
    let alpha = try arguments[Key.alpha] ?? 0.05
    let side = try arguments[Key.alternative] ?? "two-sided"
    let correctionName = try arguments[Key.correction] ?? "holm"
    let format = try arguments[Key.format]
    let test = try arguments[Key.test] ?? "score"
    let control = try arguments[Key.control] ?? arms[0].name
    var allocation: [String: Double]?
    if let text = try arguments[Key.allocation] { allocation = try parseAllocation(text) }
    let settings = ExperimentAnalysis.Settings(
      alpha: alpha, alternative: Alternative(rawValue: side) ?? .twoSided,
      correction: corrections[correctionName] ?? .holm, proportionTest: ControlComparison.ProportionTest(rawValue: test) ?? .score,
      plannedAllocation: allocation, margin: try arguments[Key.margin])
    let report: ExperimentAnalysis.Report
    do {
      report = try ExperimentAnalysis.analyze(arms: arms, control: control, settings: settings)
    } catch {
      throw StatsProblems(arms: origins, dataFile: try arguments[Key.data].map(InputFile.displayName)).failure(error.problems)
    }
    if segmentRows != nil, side != "two-sided" {
      throw UsageError(message: "a segment column is read two-sided", hint: "drop --alternative \(side)")
    }
    let segments = segmentRows.map { segmentReport($0, control: control, settings: settings) }
    var overTime: AnalysisRenderer.OverTime?
    if let daily, let path = try arguments[Key.data] {
      guard side == "two-sided" else {
        throw UsageError(message: "a day column is read two-sided", hint: "drop --alternative \(side)")
      }
      let sequential = try sequentialSettings(
        arguments, alpha: alpha, comparisons: arms.count - 1, correction: correctionName, looks: daily.looks)
      notePlannedSize(arguments, planned: sequential.settings.plannedUsers, daily: daily, console: console)
      let report = try Self.overTime(daily, control: control, settings: sequential.settings, file: InputFile.displayName(path))
      overTime = (
        report,
        SequentialRenderer.Context(
          counts: daily.counts, alphaNote: sequential.alphaNote)
      )
    }
    try OutputDestination(path: try arguments[OutputDestination.option]).write(
      AnalysisRenderer.Report(report, overTime: overTime, segments: segments), as: format, console: console)
    if try arguments[Key.failOnSRM], report.sampleRatioMismatch.mismatch {
      console.err("Sample ratio mismatch (p = \(JSONValue.format(report.sampleRatioMismatch.test.pValue))): exit 1 (--fail-on-srm).\n")
      return .checkFailed
    }
    return .success
  }

  /// Notes on stderr about the planned size of a daily file: unknown (no boundary decides), or
  /// reached on the first day (likely not the total over all arms).
  static func notePlannedSize(_ arguments: ParsedArguments, planned: Int?, daily: DailyData, console: any Console) {
    if !arguments.isGiven(Key.plannedUsers), !arguments.isGiven(Key.plannedDays) {
      console.err(
        TerminalOptions.note(
          "Note: no --planned-users or --planned-days: the planned size is unknown, so the test is read as running and no boundary decides.",
          console: console))
    }
    let firstDayUsers = daily.looks.first?.arms.reduce(0, { $0 &+ $1.users }) ?? 0
    if let planned, firstDayUsers >= planned {
      console.err(
        TerminalOptions.note(
          "Note: --planned-users \(NumberText.grouped(planned)) is reached on the first day (\(Vocabulary.plural(firstDayUsers, "user")) over all arms), "
            + "so the test is read as ended there; is it the planned total over all arms?", console: console))
    }
  }

  /// The arms of `--data` with the origin (`file:line`) of each, and the looks when the file
  /// has a day column (the arms are then the last day's totals).
  static func fileArms(_ arguments: ParsedArguments, console: any Console) throws -> (
    arms: [ArmData], origins: [StatsProblems.Origin], daily: DailyData?, segments: SegmentData?
  ) {
    var arms: [ArmData] = []
    var origins: [StatsProblems.Origin] = []
    var daily: DailyData?
    var segments: SegmentData?
    if let path = try arguments[Key.data] {
      let rows = try readCSV(path, console: console)
      guard !rows.isEmpty else {
        throw CommandFailure.invalidInput(
          "\(InputFile.displayName(path).escapingControlCharacters): no arms: the file has a header and no row;"
            + " add one row per arm (arm,users,conversions)")
      }
      if rows.contains(where: { $0.segment != nil }) {
        guard !arguments.isGiven(Key.arm) else {
          throw UsageError(message: "--arm cannot be added to a --data file with a segment column", hint: "put every arm in the file")
        }
        let data = try segmentData(rows, file: InputFile.displayName(path))
        segments = data
        arms = data.totals
        origins = data.lines.map { .file(InputFile.displayName(path), line: $0) }
      } else if rows.contains(where: { $0.day != nil }) {
        guard !arguments.isGiven(Key.arm) else {
          throw UsageError(message: "--arm cannot be added to a --data file with a day column", hint: "put every arm in the file")
        }
        let counts = try arguments[Key.counts] ?? "daily"
        let data = try dailyData(rows, cumulative: counts == "cumulative", file: InputFile.displayName(path))
        daily = data
        for (arm, line) in zip(data.looks.last?.arms ?? [], data.lines.last ?? []) {
          arms.append(arm)
          origins.append(.file(InputFile.displayName(path), line: line))
        }
      } else {
        for row in rows {
          arms.append(row.arm)
          origins.append(.file(InputFile.displayName(path), line: row.line))
        }
      }
    }
    if daily == nil {
      let dailyOnly: [any OptionKey] = [Key.counts, Key.plannedUsers, Key.plannedDays, Key.spending, Key.tuning, Key.mixing]
      if let flag = arguments.firstGiven(dailyOnly)?.spec.name {
        throw UsageError(message: "--\(flag) needs a --data file with a day column", hint: "e.g. day,arm,users,conversions")
      }
    }
    return (arms, origins, daily, segments)
  }

  /// `name=users:conversions[:revenueSum:revenueSumOfSquares]`.
  static func parseArm(_ text: String) throws(UsageError) -> ArmData {
    let parts = text.split(separator: "=", maxSplits: 1).map(String.init)
    guard parts.count == 2, !parts[0].isEmpty else {
      throw UsageError(message: "--arm '\(text)' is not name=users:conversions", hint: "e.g. --arm control=12000:1320")
    }
    let fields = parts[1].split(separator: ":", omittingEmptySubsequences: false).map(String.init)
    guard fields.count == 2 || fields.count == 4, let users = decimalInteger(fields[0]), let conversions = decimalInteger(fields[1]) else {
      throw UsageError(
        message: "--arm '\(text)' is not name=users:conversions[:revenueSum:revenueSumOfSquares]",
        hint: "users and conversions are whole numbers, e.g. control=12000:1320")
    }
    var revenue: ArmData.Revenue?
    if fields.count == 4 {
      guard let sum = decimalNumber(fields[2]), let squares = decimalNumber(fields[3]) else {
        throw UsageError(message: "--arm '\(text)': revenue sum and sum of squares must be numbers", hint: nil)
      }
      revenue = .statistic(SampleMeanStatistic(n: users, sum: sum, sumOfSquares: squares))
    }
    return ArmData(name: parts[0], users: users, conversions: conversions, revenue: revenue)
  }

  static func parseAllocation(_ text: String) throws(UsageError) -> [String: Double] {
    guard !text.isEmpty else {
      throw UsageError(message: "--allocation is empty", hint: "give name=weight for every arm, e.g. --allocation control=90,b=10")
    }
    var weights: [String: Double] = [:]
    for item in text.split(separator: ",") {
      let pair = item.split(separator: "=").map(String.init)
      guard pair.count == 2, let w = decimalNumber(pair[1]), w > 0 else {
        throw UsageError(message: "--allocation '\(text)' is not name=weight,...", hint: "e.g. --allocation control=90,b=10")
      }
      weights[pair[0]] = w
    }
    return weights
  }

  /// The rows of the counts file at `path` (``CountsFile``), naming the file and line of any problem.
  static func readCSV(_ path: String, console: any Console) throws(CommandFailure) -> [DataRow] {
    let text = try InputFile.read(path, console: console)
    do {
      return try CountsFile.read(text)
    } catch {
      throw CommandFailure.invalidInput("\(InputFile.displayName(path)):\(error.line): \(error.message.escapingControlCharacters)")
    }
  }
}

extension AnalyzeCommand {
  /// The options of `analyze` (`--alpha` is ``SharedOptions/alpha``, within its own range).
  enum Key {
    static let arm = Option<[String]>.repeatable("arm", valueName: "name=users:conversions", help: "An arm's observed counts.")
    static let data = Option<String?>.text(
      "data", valueName: "file.csv",
      help: "Arms from a CSV file (arm,users,conversions[,revenue_sum,revenue_sum_squares]; optional day or segment column).",
      file: .reads)
    static let usersFile = Option<String?>.text(
      "users-file", valueName: "file.csv",
      help: "One row per user (arm and metric columns; optional covariate and day), read in bounded memory.", file: .reads)
    static let metric = Option<String?>.text(
      "metric", valueName: "column", help: "With --users-file: the column compared (e.g. revenue).")
    static let covariate = Option<String?>.text(
      "covariate", valueName: "column", help: "With --users-file: a pre-period column to adjust by (CUPED and Lin's regression).")
    static let ratio = Option<String?>.text(
      "ratio", valueName: "num/den", help: "With --users-file: a ratio of two columns (e.g. revenue/purchases).")
    static let control = Option<String?>.text("control", valueName: "name", help: "The control arm (default: the first).")
    static let allocation = Option<String?>.text(
      "allocation", valueName: "name=weight,...", help: "Planned allocation, e.g. control=90,b=10 (default: equal).")
    static let alpha = SharedOptions.alpha.within(1e-12...0.5)
    static let alternative = Option<String?>.choice(
      "alternative", valueName: "side", help: "two-sided, greater or less (default two-sided).", Alternative.allCases.map(\.rawValue))
    static let correction = Option<String?>.choice(
      "correction", valueName: "method", help: "holm, bh, bonferroni or none (default holm).",
      ["holm", "bh", "benjamini-hochberg", "bonferroni", "none"])
    static let test = Option<String?>.choice(
      "test", valueName: "name", help: "score or pooled-z (default score).", ControlComparison.ProportionTest.allCases.map(\.rawValue))
    static let margin = Option<Double?>.number(
      "margin", valueName: "m",
      help:
        "A margin on the conversion difference (0.01: 1 point): each arm also gets a non-inferiority test (worse by less than m?) and a superiority test (better by more than m?), one-sided at alpha.",
      in: 1e-9...0.999_999)
    static let failOnSRM = Option<Bool>.flag(
      "fail-on-srm", help: "Exit 1 when the sample-ratio check flags a mismatch (output is still written).")
    static let counts = Option<String?>.choice(
      "counts", valueName: "kind", help: "With a day column: daily (each day's own counts, default) or cumulative.",
      ["daily", "cumulative"])
    static let plannedUsers = Option<Int?>.integer(
      "planned-users", valueName: "n",
      help: "With a day column: the planned users over all arms (without it or --planned-days the planned size is unknown).",
      in: 1...StatsLimits.maxCount)
    static let plannedDays = Option<Int?>.integer(
      "planned-days", valueName: "n", help: "With a day column: the planned days; the planned users are the users a day so far times n.",
      in: 1...GroupSequentialDesign.maxLooks)
    static let spending = Option<String?>.choice(
      "spending", valueName: "name", help: "With a day column: obrien-fleming (default) or pocock alpha spending.",
      ["obrien-fleming", "pocock"])
    static let tuning = Option<Double?>.number(
      "cs-tuning", valueName: "n", help: "With a day column: users at which the confidence sequence is tightest (default 5000).",
      in: 1...1e12)
    static let mixing = Option<Double?>.number(
      "msprt-tau", valueName: "t", help: "With a day column: the mSPRT's mixing standard deviation on the difference (default 0.01).",
      in: 1e-6...10)
    static let format = Option<OutputFormat>.format(for: AnalysisRenderer.Report.self, UserAnalysisRenderer.Report.self)
  }
}
