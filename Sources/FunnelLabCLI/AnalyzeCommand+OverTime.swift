import FunnelLab
import FunnelReport
import FunnelStats

/// `analyze --data` with a `day` column: the test read day by day.
extension AnalyzeCommand {
  /// One row of the data file.
  typealias DataRow = CountsFile.Row

  /// The looks of a file with a day column, and the line of every arm at every look.
  struct DailyData {
    var looks: [SequentialAnalysis.Look]
    var lines: [[Int]]
    /// `daily` or `cumulative`: how the file's counts were read.
    var counts: String
  }

  /// Groups rows by day (a day's rows together, days in increasing order: numbers by value,
  /// anything else such as ISO dates by text), the arms of the first day on every day, and
  /// sums daily counts into running totals (`cumulative`: taken as they are).
  static func dailyData(_ rows: [DataRow], cumulative: Bool, file: String) throws(CommandFailure) -> DailyData {
    func fail(_ line: Int, _ message: String) -> CommandFailure {
      CommandFailure.invalidInput("\(file):\(line): \(message.escapingControlCharacters)")
    }
    var groups: [(day: String, rows: [DataRow])] = []
    for row in rows {
      let day = row.day ?? ""
      if let last = groups.last, last.day == day {
        groups[groups.count - 1].rows.append(row)
        continue
      }
      if let last = groups.last, !isLater(day, than: last.day) {
        throw fail(row.line, "day '\(day)' comes after day '\(last.day)'; give each day's rows together, days in increasing order")
      }
      groups.append((day, [row]))
    }
    guard let first = groups.first else { throw fail(1, "the file has no rows; expected day,arm,users,conversions") }
    guard groups.count <= GroupSequentialDesign.maxLooks else {
      throw fail(
        first.rows[0].line,
        "\(groups.count) days, more than the \(GroupSequentialDesign.maxLooks) looks a sequential analysis takes; aggregate to weeks")
    }
    let names = first.rows.map(\.arm.name)
    var running: [ArmData]?
    var data = DailyData(looks: [], lines: [], counts: cumulative ? "cumulative" : "daily")
    for group in groups {
      var arms: [ArmData] = []
      var lines: [Int] = []
      for name in names {
        let matching = group.rows.filter { $0.arm.name == name }
        guard let row = matching.first else {
          throw fail(group.rows[0].line, "day '\(group.day)' has no row for arm '\(name)'; every day needs a row for every arm")
        }
        if matching.count > 1 { throw fail(matching[1].line, "arm '\(name)' appears twice on day '\(group.day)'") }
        // The same wording and code as the same row without a day column.
        if let problem = row.arm.validationErrors(field: [.name(.arms), .index(0)]).first {
          throw StatsProblems(arms: [.file(file, line: row.line)], dataFile: file).failure([problem])
        }
        arms.append(row.arm)
        lines.append(row.line)
      }
      if let extra = group.rows.first(where: { !names.contains($0.arm.name) }) {
        throw fail(extra.line, "arm '\(extra.arm.name)' is not on the first day '\(first.day)'; every day has the same arms")
      }
      if !cumulative, let before = running {
        arms = zip(before, arms).map { sum($0, $1) }
      }
      running = arms
      data.looks.append(SequentialAnalysis.Look(day: group.day, arms: arms))
      data.lines.append(lines)
    }
    return data
  }

  /// Running totals: counts bounded at entry (≤ 10¹⁵ a row, ≤ 100 days) cannot overflow.
  static func sum(_ a: ArmData, _ b: ArmData) -> ArmData {
    var revenue: ArmData.Revenue?
    if case .statistic(let x) = a.revenue, case .statistic(let y) = b.revenue { revenue = .statistic(x + y) }
    return ArmData(name: a.name, users: a.users + b.users, conversions: a.conversions + b.conversions, revenue: revenue)
  }

  /// `day` later than `previous`: by value when both are whole numbers, else by text (ISO dates).
  static func isLater(_ day: String, than previous: String) -> Bool {
    if let d = Int(day), let p = Int(previous) { return d > p }
    return day > previous
  }

  /// The sequential analysis of the looks, its errors named by the file's lines.
  static func overTime(_ data: DailyData, control: String, settings: SequentialAnalysis.Settings, file: String) throws(CommandFailure)
    -> SequentialAnalysis.Report
  {
    do {
      return try SequentialAnalysis.analyze(looks: data.looks, control: control, settings: settings)
    } catch {
      // A problem of a look's arm is the data file's (65, its line); of the control or the
      // planned size, the flag's (64); anything else the data's as a whole (65).
      let looks = data.lines.map { $0.map { StatsProblems.Origin.file(file, line: $0) } }
      throw StatsProblems(looks: looks, dataFile: file).failure([error])
    }
  }

  /// The sequential settings from the command line: α split over the arms (Bonferroni) unless
  /// `--correction none`; the planned users given, or `--planned-days` at the rate of `looks`
  /// (``DecisionRule/plannedUsers(plannedDays:users:looks:)``), or none.
  static func sequentialSettings(
    _ arguments: ParsedArguments, alpha: Double, comparisons: Int, correction: String, looks: [SequentialAnalysis.Look]
  ) throws(UsageError) -> (settings: SequentialAnalysis.Settings, alphaNote: String?) {
    let spending = try arguments[Key.spending] ?? "obrien-fleming"
    let perArm = SequentialAnalysis.comparisonAlpha(alpha, comparisons: comparisons, split: correction != "none")
    var planned = try arguments[Key.plannedUsers]
    if let days = try arguments[Key.plannedDays] {
      guard planned == nil else {
        throw UsageError(message: "--planned-users and --planned-days both set the planned size", hint: "give one of them")
      }
      let users = looks.last?.arms.reduce(0) { $0 &+ $1.users } ?? 0
      planned = DecisionRule.plannedUsers(plannedDays: days, users: users, looks: looks.count)
    }
    let settings = SequentialAnalysis.Settings(
      alpha: perArm, spending: spending == "pocock" ? .pocock : .obrienFleming, plannedUsers: planned,
      mixingStandardDeviation: try arguments[Key.mixing] ?? 0.01, tuningParameter: try arguments[Key.tuning] ?? 5_000)
    let note =
      perArm != alpha ? "α \(JSONValue.format(alpha)) split over \(comparisons) arms by Bonferroni; --correction none for α per arm" : nil
    return (settings, note)
  }
}
