import Foundation
import FunnelLab
import FunnelTestSupport
import Testing

@testable import FunnelLabCLI

/// `funnellab analyze --data` with a day column: the test read day by day, and every way a
/// daily file can be wrong, named by its line.
@Suite struct AnalyzeOverTimeTests {
  static let header = "day,arm,users,conversions\n"

  func analyze(_ csv: String, _ extra: [String] = []) -> (code: Int32, out: String, err: String) {
    funnellab(["analyze", "--data", "-"] + extra, standardInput: csv)
  }

  /// Daily and cumulative counts of the same test give the same analysis, and the last day's
  /// totals are the snapshot analysed above the table.
  @Test func dailyAndCumulativeCountsAgree() throws {
    let daily = Self.header + "1,a,100,10\n1,b,100,12\n2,a,120,11\n2,b,110,19\n3,a,90,8\n3,b,95,14\n"
    let cumulative = Self.header + "1,a,100,10\n1,b,100,12\n2,a,220,21\n2,b,210,31\n3,a,310,29\n3,b,305,45\n"
    let fromDaily = analyze(daily, ["--format", "json"])
    let fromCumulative = analyze(cumulative, ["--counts", "cumulative", "--format", "json"])
    #expect(fromDaily.code == 0 && fromCumulative.code == 0, "\(fromDaily.err)\(fromCumulative.err)")
    let a = try JSONParser.parse(fromDaily.out)
    let b = try JSONParser.parse(fromCumulative.out)
    #expect(a["overTime"]?["rows"] == b["overTime"]?["rows"])
    #expect(a["arms"] == b["arms"])
    #expect(a["overTime"]?["counts"]?.kind == .string("daily"))
    #expect(b["overTime"]?["counts"]?.kind == .string("cumulative"))
    if case .array(let arms)? = a["arms"]?.kind {
      #expect(arms.first?["users"]?.kind == .number(310, literal: "310"))
    } else {
      Issue.record("no arms")
    }
  }

  /// The committed example stops early on the day its boundary is crossed, and says so in
  /// every human format.
  @Test func theCommittedExampleStopsEarly() throws {
    for format in TestStage.size(fast: ["table"], long: ["table", "markdown", "html"]) {
      let r = funnellab(
        "analyze", "--data", "experiments/data/klick-daily.csv", "--planned-users", "28000", "--format", format)
      #expect(r.code == 0, "\(r.err)")
      #expect(r.out.contains("goalOptional: stopped early on day 6"), "\(format)")
      #expect(r.out.contains("Counts read as daily totals"), "\(format)")
    }
    let html = funnellab("analyze", "--data", "experiments/data/klick-daily.csv", "--planned-users", "28000", "--format", "html").out
    let s = ReportStructure(html)
    #expect(s.error == nil, "\(String(describing: s.error))")
    #expect(s.count("sequential") == 1)
    #expect(s.svgsWithTitle == s.svgClasses.count)
  }

  /// Several arms: α is split over them unless --correction none, and said so.
  @Test func alphaIsSplitOverArms() throws {
    let csv = Self.header + "1,a,500,50\n1,b,500,60\n1,c,500,55\n2,a,500,52\n2,b,500,63\n2,c,500,49\n"
    let split = try JSONParser.parse(analyze(csv, ["--format", "json"]).out)
    #expect(split["overTime"]?["alpha"]?.kind == .number(0.025, literal: "0.025"))
    let whole = analyze(csv, ["--correction", "none"])
    #expect(whole.out.contains("Two-sided, α = 0.05."), "\(whole.out)")
    #expect(analyze(csv).out.contains("split over 2 arms by Bonferroni"), "\(analyze(csv).out)")
  }

  @Test(arguments: [
    (header + "2,a,1,1\n2,b,1,1\n1,a,1,1\n1,b,1,1\n", [String](), "standard input:4: day '1' comes after day '2'"),
    (header + "1,a,1,1\n1,b,1,1\n2,a,1,1\n", [], "standard input:4: day '2' has no row for arm 'b'"),
    (header + "1,a,1,1\n1,b,1,1\n1,b,1,1\n", [], "standard input:4: arm 'b' appears twice on day '1'"),
    (header + "1,a,1,1\n1,b,1,1\n2,a,1,1\n2,b,1,1\n2,c,1,1\n", [], "standard input:6: arm 'c' is not on the first day"),
    (header + "1,a,10,1\n1,b,10,1\n2,a,9,1\n2,b,10,1\n", ["--counts", "cumulative"], "standard input:4: cumulative counts decrease"),
    (header + "1,a,10,11\n1,b,10,1\n", [], "standard input:2 (conversions): 11 conversions exceed 10 users"),
    (header + ",a,10,1\n,b,10,1\n", [], "standard input:2: the day is empty"),
    (header + "1,a,10,1\n1,b,10,1\n", ["--control", "x"], "--control: no arm named 'x'"),
    (header + "1,a,10,1\n1,b,10,1\n", ["--alternative", "greater"], "a day column is read two-sided"),
  ])
  func badDailyFilesAreNamedByLine(csv: String, extra: [String], message: String) {
    let r = analyze(csv, extra)
    #expect(r.code != 0)
    #expect(r.err.contains(message), "\(r.err)")
    #expect(r.out.isEmpty)
  }

  /// Without a planned size a running test is never told it stopped or ended (issue 57): its
  /// planned size is unknown, said on stderr, in the headline and in the table.
  @Test func withoutAPlanTheTestKeepsRunningAndSaysHowToGiveIt() {
    let r = analyze(Self.header + "1,a,1000,100\n1,b,1000,104\n2,a,1000,98\n2,b,1000,101\n")
    #expect(r.code == 0)
    let note = r.err.replacingOccurrences(of: "\n  ", with: " ")
    #expect(note.contains("no --planned-users or --planned-days: the planned size is unknown"), "\(r.err)")
    #expect(r.out.contains("Keep running: planned size unknown (give --planned-users or --planned-days)"), "\(r.out)")
    for word in ["ended", "stopped", "STOP", "end: no difference", "end: b"] { #expect(!r.out.contains(word), "\(word): \(r.out)") }
  }

  /// The note of a missing planned size is folded to the terminal's width (`COLUMNS`, the
  /// terminal, else 80 columns), as prose is, not one line of 130 columns (issue 59).
  @Test(arguments: [(nil, nil, 80), ("60", nil, 60), (nil, 100, 100)] as [(String?, Int?, Int)])
  func theNoteOnAMissingPlanFitsTheWidth(columns: String?, terminal: Int?, width: Int) {
    let csv = Self.header + "1,a,1000,100\n1,b,1000,104\n2,a,1000,98\n2,b,1000,101\n"
    let console = CapturingConsole(
      environment: columns.map { ["COLUMNS": $0] } ?? [:], standardInput: Array(csv.utf8), terminalColumns: terminal)
    #expect(FunnelLabCommandLine.run(["analyze", "--data", "-"], console: console) == 0)
    let lines = console.stderr.split(separator: "\n")
    #expect(lines.count > 1, "\(console.stderr)")
    #expect(lines.allSatisfy { $0.count <= width }, "\(console.stderr)")
    #expect(console.stderr.replacingOccurrences(of: "\n  ", with: " ").contains("so the test is read as running and no boundary decides"))
  }

  /// The six-arm running test of `Tests/Fixtures/decisions` (4 of 8 days, an arm 13.8 % ahead
  /// that has not crossed its boundary): one recommendation across arms first, in every format;
  /// the fixed read of the last day is an interim look, never a win, and never green.
  @Test func aRunningSixArmTestKeepsRunningInEveryFormat() throws {
    let file = "Tests/Fixtures/decisions/six-arms-running.csv"
    let unknown = funnellab("analyze", "--data", file, "--color", "always")
    #expect(unknown.out.contains("Keep running: planned size unknown (give --planned-users or --planned-days)"), "\(unknown.out)")
    #expect(!unknown.out.contains("stopped early") && !unknown.out.contains("\u{1B}[32m"), "\(unknown.out)")
    for (flags, progress) in [
      (["--planned-users", "48000"], "50% of the planned size, about 4 days left"),
      (["--planned-days", "8"], "50% of the planned size, about 4 days left"),
    ] {
      let table = funnellab(["analyze", "--data", file, "--color", "always"] + flags)
      #expect(table.code == 0, "\(table.err)")
      let first = table.out.split(separator: "\n").dropFirst().first.map(String.init) ?? ""
      #expect(first.hasPrefix("Keep running: \(progress)"), "\(first)")
      #expect(table.out.contains("Interim look:") && table.out.contains("bigEffect      ahead (interim)"), "\(table.out)")
      #expect(!table.out.contains("\u{1B}[32m") && !table.out.contains(" wins "), "no green and no win: \(table.out)")
    }
    let markdown = funnellab("analyze", "--data", file, "--planned-users", "48000", "--format", "markdown").out
    #expect(markdown.contains("**Keep running: 50% of the planned size, about 4 days left;"), "\(markdown)")
    #expect(!markdown.contains("| wins"), "\(markdown)")
    let html = funnellab("analyze", "--data", file, "--planned-users", "48000", "--format", "html").out
    #expect(html.contains("<p class=\"headline\" data-role=\"decision\">Keep running: 50% of the planned size"), "\(html)")
    #expect(!html.contains("class=\"tone-good\"") && !html.contains("point good"), "no green in the page")
    let json = try JSONParser.parse(funnellab("analyze", "--data", file, "--planned-users", "48000", "--format", "json").out)
    #expect(json["summary"]?["recommendation"]?["action"]?.kind == .string("keepRunning"))
    #expect(json["overTime"]?["progress"]?["daysLeft"]?.kind == .number(4, literal: "4"))
  }

  @Test func plannedUsersAndPlannedDaysAreOneOrTheOther() {
    let r = funnellab(
      "analyze", "--data", "Tests/Fixtures/decisions/six-arms-running.csv", "--planned-users", "48000", "--planned-days", "8")
    #expect(r.code == 64)
    #expect(r.err.contains("--planned-users and --planned-days both set the planned size"), "\(r.err)")
    let counts = funnellab("analyze", "--arm", "a=100:10", "--arm", "b=100:12", "--planned-days", "3")
    #expect(counts.code == 64)
    #expect(counts.err.contains("--planned-days needs a --data file with a day column"), "\(counts.err)")
  }

  /// A planned size the first day already passes is most likely a typo (per arm, or a digit short): said on stderr.
  @Test func aPlanReachedOnTheFirstDayIsQuestioned() {
    let csv = Self.header + "1,a,1000,100\n1,b,1000,104\n2,a,1000,98\n2,b,1000,101\n"
    let r = analyze(csv, ["--planned-users", "1500"])
    #expect(r.code == 0, "\(r.err)")
    #expect(
      r.err.replacingOccurrences(of: "\n  ", with: " ").contains(
        "Note: --planned-users 1,500 is reached on the first day (2,000 users over all arms)"), "\(r.err)")
    let fine = analyze(csv, ["--planned-users", "4000"])
    #expect(fine.code == 0, "\(fine.err)")
    #expect(!fine.err.contains("is reached on the first day"), "\(fine.err)")
  }

  @Test func moreThanAHundredDaysAreRefused() {
    let csv = Self.header + (1...101).map { "\($0),a,10,1\n\($0),b,10,1\n" }.joined()
    let r = analyze(csv)
    #expect(r.code == 65)
    #expect(r.err.contains("101 days, more than the 100 looks"), "\(r.err)")
  }

  @Test func sequentialFlagsNeedADayColumn() {
    let r = funnellab("analyze", "--arm", "a=100:10", "--arm", "b=100:12", "--planned-users", "1000")
    #expect(r.code == 64)
    #expect(r.err.contains("--planned-users needs a --data file with a day column"), "\(r.err)")
    let mixed = funnellab(["analyze", "--data", "-", "--arm", "c=1:1"], standardInput: Self.header + "1,a,1,1\n1,b,1,1\n")
    #expect(mixed.code == 64)
    #expect(mixed.err.contains("--arm cannot be added"), "\(mixed.err)")
  }
}

/// `run --mode experiment --users-per-day N --days D`: a live test simulated day by day.
@Suite struct ExperimentOverTimeCommandTests {
  static let base = [
    "run", "experiments/klick-onboarding.json", "--mode", "experiment", "--users-per-day", "20000", "--days", "14", "--variant",
    "features5", "-q", "--wide",
  ]

  /// Six arms simulated day by day: the one recommendation across arms opens the report (the
  /// arm that crossed its boundary first, not the A/A copy), and with too few users the first
  /// line says the test would hold back the truly best arm, with its true lift.
  @Test func sixArmsOpenWithOneRecommendationAndTheDesignAgainstTheTruth() {
    let run = ["run", "Tests/Fixtures/decisions/six-arms.json", "--mode", "experiment", "-q", "--color", "never"]
    let big = funnellab(run + ["--users-per-day", "20000", "--days", "10"])
    #expect(big.code == 0, "\(big.err)")
    let lines = big.out.split(separator: "\n").map(String.init)
    #expect(lines.dropFirst().first { !$0.isEmpty }?.hasPrefix("Ship bigEffect (purchase conversion +10.34%)") == true, "\(big.out)")
    #expect(big.out.contains("bigEffect: stopped early on day 4, its boundary crossed"), "\(big.out)")
    let small = funnellab(run + ["--users-per-day", "2000", "--days", "5"])
    let first = small.out.split(separator: "\n").dropFirst().first.map(String.init) ?? ""
    #expect(
      first.hasPrefix("! Wrong call by the truth: this test ships nothing and holds back the truly best arm, bigEffect"), "\(small.out)")
  }

  @Test func everyFormatReadsTheDaysBesideTheTruth() throws {
    for format in TestStage.size(fast: ["table"], long: ["table", "markdown", "html"]) {
      let r = funnellab(Self.base + ["--format", format])
      #expect(r.code == 0, "\(r.err)")
      #expect(r.out.contains("True lift +7.6% (exact engine); verdict: correct"), "\(format)")
    }
    let csv = funnellab(Self.base + ["--format", "csv"])
    #expect(csv.out.hasPrefix("day,arm,users,conversions,"))
    #expect(csv.out.split(whereSeparator: \.isNewline).count == 15)
    let json = try JSONParser.parse(funnellab(Self.base + ["--format", "json"]).out)
    #expect(json["overTime"]?["truth"] != nil)
    #expect(json["primary"] != nil, "the snapshot of the last day is still there")
    guard TestStage.isLong else { return }
    let twoThreads = funnellab(Self.base + ["--format", "json", "--threads", "2"]).out
    #expect(funnellab(Self.base + ["--format", "json", "--threads", "1"]).out == twoThreads)
  }

  @Test(arguments: [
    (["--users-per-day", "100"], "--users-per-day and --days go together"),
    (["--users-per-day", "100", "--days", "3", "--mode", "truth"], "needs --mode experiment"),
    (["--users-per-day", "100", "--days", "3", "--mode", "experiment", "--users", "50"], "--users and --users-per-day both"),
    (["--users-per-day", "10000000000", "--days", "2", "--mode", "experiment"], "is above 10000000000 users"),
    (["--users-per-day", "100", "--days", "101", "--mode", "experiment"], "--days"),
  ])
  func badSchedulesAreRefused(extra: [String], message: String) {
    let r = funnellab(["run", "experiments/klick-onboarding.json", "-q"] + extra)
    #expect(r.code == 64)
    #expect(r.err.contains(message), "\(r.err)")
    #expect(r.out.isEmpty)
  }
}
