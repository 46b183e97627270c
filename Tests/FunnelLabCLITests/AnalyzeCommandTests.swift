import Foundation
import FunnelLab
import FunnelStats
import FunnelTestSupport
import Testing

@testable import FunnelLabCLI

/// `funnellab analyze` against statsmodels 0.14 / scipy 1.17 (values computed with
/// `proportions_ztest`, `proportion_confint(method="wilson")` and `scipy.stats.chisquare`).
@Suite struct AnalyzeCommandTests {
  func json(_ arguments: String...) throws -> JSONValue { try json(arguments) }

  func json(_ arguments: [String]) throws -> JSONValue {
    let console = CapturingConsole()
    let code = FunnelLabCommandLine.run(arguments + ["--format", "json"], console: console)
    #expect(code == 0, "\(console.stderr)")
    return try JSONParser.parse(console.stdout)
  }

  func number(_ value: JSONValue?, _ path: String...) -> Double? {
    var current = value
    for key in path { current = current?[key] }
    if case .number(let x, _)? = current?.kind { return x }
    return nil
  }

  func close(_ x: Double?, _ reference: Double, relative: Double = 1e-9) -> Bool {
    guard let x else { return false }
    return abs(x - reference) <= relative * abs(reference)
  }

  @Test func issueExampleMatchesStatsmodels() throws {
    let doc = try json("analyze", "--arm", "control=1000:120", "--arm", "b=1000:150")
    guard case .array(let comparisons)? = doc["comparisons"]?.kind, case .array(let arms)? = doc["arms"]?.kind else {
      Issue.record("no comparisons")
      return
    }
    let b = comparisons[0]
    // statsmodels test_proportions_2indep(150, 1000, 120, 1000, method='score', compare='diff').
    #expect(close(number(b, "test", "pValue"), 0.04969744058978595))
    // With --test pooled-z: statsmodels proportions_ztest([150, 120], [1000, 1000]).
    let pooled = try json("analyze", "--arm", "control=1000:120", "--arm", "b=1000:150", "--test", "pooled-z")
    if case .array(let c)? = pooled["comparisons"]?.kind, let first = c.first {
      #expect(close(number(first, "test", "pValue"), 0.04964038686536878))
    } else {
      Issue.record("no comparisons with --test pooled-z")
    }
    #expect(close(number(arms[0], "rateInterval", "lower"), 0.10129926060130912))
    #expect(close(number(arms[0], "rateInterval", "upper"), 0.14160907584771276))
    #expect(close(number(arms[1], "rateInterval", "lower"), 0.1292100725130883))
    #expect(close(number(arms[1], "rateInterval", "upper"), 0.17346865842680032))
    #expect(number(b, "probabilityToBeatControl").map { $0 > 0.97 && $0 < 0.98 } == true)
    #expect(number(b, "relativeLift", "estimate").map { abs($0 - 0.25) < 1e-12 } == true)
    #expect(doc["sampleRatioMismatch"]?["mismatch"]?.kind == .bool(false))
    let table = funnellab("analyze", "--arm", "control=1000:120", "--arm", "b=1000:150")
    #expect(table.out.contains("95% CI (Wilson)"))
    #expect(table.out.contains("no mismatch with the planned allocation"))
  }

  /// `--margin`: the non-inferiority and superiority-by-margin tests equal statsmodels 0.15.0
  /// `score_test_proportions_2indep(x₁, n₁, x₀, n₀, value=∓m, compare="diff", alternative="larger")`
  /// with its issue #10269 fixed (the restricted MLE reads `count0` for `nobs0` when the value is
  /// not 0; unpatched it gives 6.80079 for 6.79827) and the 50-digit `mn_diff_z` of
  /// Tests/FunnelStatsTests/Fixtures/make_reference.py, in JSON and in the table; a bad margin is refused.
  @Test(arguments: [
    (
      ["--data", "experiments/data/klick-results.csv", "--allocation", "control=90,b=10", "--margin", "0.01"], 6.798265708795138,
      5.2943017390614286e-12, 0.823247302321164,
      0.20518368722488883
    ),
    (
      ["--arm", "control=1000:120", "--arm", "b=1000:150", "--margin", "0.02"], 3.256686725046154, 0.0005636038187394896,
      0.6551101469604018, 0.2561984197574805
    ),
  ])
  func marginTestsMatchStatsmodels(arguments: [String], ni: Double, niP: Double, sup: Double, supP: Double) throws {
    let console = CapturingConsole()
    #expect(FunnelLabCommandLine.run(["analyze"] + arguments + ["--format", "json"], console: console) == 0, "\(console.stderr)")
    let doc = try JSONParser.parse(console.stdout)
    guard case .array(let comparisons)? = doc["comparisons"]?.kind, let c = comparisons.first else {
      Issue.record("no comparisons")
      return
    }
    #expect(close(number(c, "nonInferiority", "statistic"), ni), "\(String(describing: c["nonInferiority"]))")
    #expect(close(number(c, "nonInferiority", "pValue"), niP))
    #expect(close(number(c, "superiority", "statistic"), sup))
    #expect(close(number(c, "superiority", "pValue"), supP))
    #expect(c["nonInferior"]?.kind == .bool(true) && c["betterByTheMargin"]?.kind == .bool(false), "\(c)")
    let table = funnellab(["analyze"] + arguments)
    let row = table.out.split(separator: "\n").last { $0.contains("not shown") } ?? ""
    #expect(row.contains(" yes ") && row.hasSuffix("not shown"), "\(table.out)")
    #expect(funnellab(["analyze"] + arguments.dropLast() + ["1.5"]).code == 64)
  }

  /// The margin verdicts agree with the interval beside them: non-inferior exactly when the 95 %
  /// interval of Δ ends above −m (tested at α/2 one-sided), on either side of that end; and under a
  /// sample ratio mismatch they read "do not trust".
  @Test func marginVerdictsAgreeWithTheInterval() throws {
    let arms = ["--arm", "control=1000:120", "--arm", "b=1000:130"]
    let plain = try json(["analyze"] + arms)
    guard case .array(let comparisons)? = plain["comparisons"]?.kind,
      let lower = number(comparisons.first, "absoluteLift", "interval", "lower")
    else {
      Issue.record("no interval")
      return
    }
    #expect(lower < 0)
    for (margin, nonInferior) in [(-lower + 1e-4, true), (-lower - 1e-4, false)] {
      let doc = try json(["analyze"] + arms + ["--margin", String(margin)])
      guard case .array(let c)? = doc["comparisons"]?.kind else { continue }
      #expect(c.first?["nonInferior"]?.kind == .bool(nonInferior), "margin \(margin), lower \(lower)")
    }
    let mismatch = funnellab("analyze", "--data", "experiments/data/klick-results.csv", "--margin", "0.01")
    #expect(mismatch.out.contains("do not trust  ") || mismatch.out.contains("do not trust\n"), "\(mismatch.out)")
    #expect(!mismatch.out.contains(" yes "), "\(mismatch.out)")
  }

  /// A count below 5 brings Fisher's exact test beside the score test (scipy `fisher_exact([[3, 47], [0, 50]])`),
  /// in every format; with large counts it is `null` and not mentioned.
  @Test func smallCountsShowFishersExactTest() throws {
    let doc = try json("analyze", "--arm", "control=50:0", "--arm", "b=50:3")
    guard case .array(let comparisons)? = doc["comparisons"]?.kind, let b = comparisons.first else {
      Issue.record("no comparisons")
      return
    }
    #expect(close(number(b, "fisherExact", "pValue"), 0.24242424242424243))
    #expect(b["fisherExact"]?["method"]?.kind == .string("Fisher's exact test"))
    let table = funnellab("analyze", "--arm", "control=50:0", "--arm", "b=50:3")
    #expect(table.out.contains("Fisher's exact test (a cell below 5; the verdict stays the score test's): b p = 0.2424"), "\(table.out)")
    for format in ["markdown", "html"] {
      let r = funnellab("analyze", "--arm", "control=50:0", "--arm", "b=50:3", "--format", format)
      let text = r.out.replacingOccurrences(of: "&apos;", with: "'")
      #expect(text.contains("Fisher's exact test (a cell below 5; the verdict stays the score test's): b p = 0.2424"), "\(format)")
    }
    let large = try json("analyze", "--arm", "control=1000:120", "--arm", "b=1000:150")
    if case .array(let c)? = large["comparisons"]?.kind, let first = c.first {
      #expect(first["fisherExact"]?.kind == .null)
    }
    #expect(!funnellab("analyze", "--arm", "control=1000:120", "--arm", "b=1000:150").out.contains("Fisher's exact test ("))
  }

  /// A segment column: the totals are analysed as before, and the segments' differences,
  /// Cochran's Q and the post-stratified difference match statsmodels (OLS with HC1 on the
  /// expanded per-user rows of experiments/data/klick-segments.csv; combine_effects).
  @Test func segmentColumnMatchesStatsmodels() throws {
    let doc = try json("analyze", "--data", repositoryRoot.appendingPathComponent("experiments/data/klick-segments.csv").path)
    let segments = doc["segments"]
    guard case .array(let cells)? = segments?["cells"]?.kind, case .array(let adjusted)? = segments?["adjusted"]?.kind,
      case .array(let q)? = segments?["heterogeneity"]?.kind, case .array(let arms)? = doc["arms"]?.kind
    else {
      Issue.record("no segments")
      return
    }
    #expect(number(arms[0], "users") == 40_051)
    #expect(cells.count == 4)
    #expect(close(number(cells[2], "difference"), 0.006438074361111289))
    #expect(close(number(cells[2], "standardError"), 0.003309228183455082))
    #expect(close(number(cells[3], "pValue"), 0.032698474102421424, relative: 1e-8))
    #expect(close(number(q[0], "q"), 0.9026289536529255))
    #expect(adjusted.count == 2)
    #expect(close(number(adjusted[0], "difference"), 0.003997400927961453))
    #expect(close(number(adjusted[0], "standardError"), 0.0014090161778398478))
    #expect(close(number(adjusted[1], "difference"), 0.004046778794970431))
    #expect(close(number(adjusted[1], "standardError"), 0.0014024578084530558))
    #expect(segments?["metric"]?.kind == .string("conversion"))
  }

  @Test(arguments: [
    ("arm,segment,users,conversions\nc,a,100,10\nc,a,100,12\nb,a,100,11\n", "appears twice in segment 'a'"),
    ("arm,segment,day,users,conversions\nc,a,1,100,10\nb,a,1,100,11\n", "a day column or a segment column, not both"),
    ("arm,segment,users,conversions\nc,,100,10\nb,a,100,11\n", "the segment is empty"),
    ("arm,segment,users,conversions\nc,a,100,150\nc,b,100,0\nb,a,100,11\n", "conversions must be from 0 to its users"),
  ])
  func segmentColumnProblemsNameTheLine(file: String, message: String) throws {
    let url = try scratchFolder("segments").appendingPathComponent("segments.csv")
    try Data(file.utf8).write(to: url)
    defer { try? FileManager.default.removeItem(at: url) }
    let console = CapturingConsole()
    let code = FunnelLabCommandLine.run(["analyze", "--data", url.path], console: console)
    #expect(code == 65)
    #expect(console.stderr.contains(message), "\(console.stderr)")
    #expect(console.stdout.isEmpty)
  }

  @Test func sampleRatioMismatchIsFlaggedAgainstThePlannedAllocation() throws {
    let skewed = try json("analyze", "--arm", "control=5200:520", "--arm", "b=4800:500")
    #expect(close(number(skewed["sampleRatioMismatch"], "test", "pValue"), 6.334248366623988e-05, relative: 1e-8))
    #expect(skewed["sampleRatioMismatch"]?["mismatch"]?.kind == .bool(true))
    let planned = try json("analyze", "--arm", "control=9000:900", "--arm", "b=1000:110", "--allocation", "control=90,b=10")
    #expect(planned["sampleRatioMismatch"]?["mismatch"]?.kind == .bool(false))
    let table = funnellab("analyze", "--arm", "control=5000:500", "--arm", "b=5000:500", "--allocation", "control=90,b=10")
    #expect(table.out.contains("MISMATCH"))
  }

  /// A 99/1 holdout's shape: the small arm's chance to beat the control is exact (the closed
  /// form B(16729, 400345)/B(16729, 400202), which 80-digit sums and mpmath quadrature agree
  /// on; it read 0.002758 when the small arm's tail was integrated in one panel), and with
  /// two arms it and the control's chance to be best add up to 1.
  @Test func chanceToBeatIsExactForVeryUnequalArms() throws {
    let doc = try json("analyze", "--arm", "c=416929:16728", "--arm", "t=142:0")
    guard case .array(let comparisons)? = doc["comparisons"]?.kind, case .array(let arms)? = doc["arms"]?.kind,
      comparisons.count == 1, arms.count == 2
    else {
      Issue.record("no comparison")
      return
    }
    let beat = number(comparisons[0], "probabilityToBeatControl")
    #expect(close(beat, 0.002865474909, relative: 1e-8), "\(String(describing: beat))")
    let controlBest = number(arms[0], "probabilityToBeBest") ?? .nan
    #expect(abs((beat ?? .nan) + controlBest - 1) < 1e-10)
    #expect(close(number(arms[1], "probabilityToBeBest"), 0.002865474909, relative: 1e-8))
  }

  /// A data file with a header and no row is the file's problem: 65 naming it (it gave 64 and no name).
  @Test func aHeaderOnlyFileNamesTheFile() throws {
    let path = try temporaryFile("header.csv", contents: "arm,users,conversions\n")
    let r = funnellab("analyze", "--data", path)
    #expect(r.code == 65, "\(r.err)")
    #expect(r.err.hasPrefix("Error: \(path): no arms: the file has a header and no row; add one row per arm"), "\(r.err)")
    #expect(r.out.isEmpty)
  }

  /// An arm (or control) of one user has no p-value or interval: not available with its reason
  /// (`insufficientData`) in every format, `null` in JSON, never `p = 1.0000`; Fisher's test neither.
  @Test(arguments: [["control=1:0", "b=1000:100"], ["control=1000:100", "b=1:1"], ["control=1:0", "b=1:0"]])
  func aOneUserArmHasNoPValue(arms: [String]) throws {
    let flags = arms.flatMap { ["--arm", $0] }
    let doc = try json(["analyze"] + flags)
    guard case .array(let comparisons)? = doc["comparisons"]?.kind, let b = comparisons.first else {
      Issue.record("no comparisons")
      return
    }
    for key in ["test", "adjustedPValue", "absoluteLift", "relativeLift", "fisherExact"] {
      #expect(b[key]?.kind == .null, "\(key): \(String(describing: b[key]))")
    }
    #expect(JSONWriter.write(b).contains("\"insufficientData\""), "\(JSONWriter.write(b))")
    let reason = "No p-value or interval (n/a) for b (fewer than two users in it or in control): a test needs two users in each arm."
    for format in ["table", "markdown", "html"] {
      let r = funnellab(["analyze"] + flags + ["--format", format])
      // (The terminal's lines wrap.)
      let words = r.out.split(whereSeparator: \.isWhitespace).joined(separator: " ")
      #expect(r.code == 0 && words.contains(reason), "\(format): \(r.out)")
      // The only p-value left is the sample ratio's.
      #expect(r.out.components(separatedBy: "1.0000").count <= 2, "\(format): \(r.out)")
    }
    let csv = funnellab(["analyze"] + flags + ["--format", "csv"]).out.split(whereSeparator: \.isNewline).map {
      $0.split(separator: ",", omittingEmptySubsequences: false)
    }
    let p = try #require(csv.first?.firstIndex(of: "p_value"))
    #expect(csv.last?[p] == "" && csv.last?[p + 1] == "", "\(csv)")
  }

  /// A data file with one arm names the file, with the data exit code (it gave 64 and no name).
  @Test func aFileWithOneArmNamesTheFile() throws {
    let path = try temporaryFile("one.csv", contents: "arm,users,conversions\ncontrol,100,10\n")
    let r = funnellab("analyze", "--data", path)
    #expect(r.code == 65)
    #expect(r.err.hasPrefix("Error: \(path): needs at least two arms (got 1)"), "\(r.err)")
    #expect(r.out.isEmpty)
  }

  @Test func armsFromCSVWithRevenue() throws {
    let path = try temporaryFile(
      "arms.csv",
      contents: """
        arm,users,conversions,revenue_sum,revenue_sum_squares
        control,10000,500,4995.0,49900.05
        yearly49,10000,560,5594.4,55888.056
        """)
    let doc = try json("analyze", "--data", path)
    guard case .array(let comparisons)? = doc["comparisons"]?.kind else { return }
    #expect(comparisons.count == 1)
    #expect(comparisons[0]["revenue"]?["welch"]?["method"] != nil)
  }

  @Test(arguments: [
    ("arm,users,conversions\ncontrol,100,10\nb,100,x\n", "arms.csv:3: conversions 'x' is not a whole number"),
    ("arm,users,convs\n", "arms.csv:1: missing column 'conversions'"),
    ("arm,users,conversions,extra\n", "arms.csv:1: unknown column 'extra'"),
    ("arm,users,conversions\ncontrol,100\n", "arms.csv:2: 2 fields, expected 3"),
    // The second `users` was once ignored; `ingest` refused the same header.
    ("arm,users,conversions,users\ncontrol,100,10,200\nb,100,12,300\n", "arms.csv:1: column 'users' appears twice"),
    ("arm,Users,conversions, users \ncontrol,100,10,200\n", "arms.csv:1: column 'users' appears twice"),
  ])
  func csvProblemsNameTheLine(contents: String, message: String) throws {
    // (Each file names its line; one arm alone is the file's problem too, below.)
    let path = try temporaryFile("arms.csv", contents: contents)
    let r = funnellab("analyze", "--data", path)
    #expect(r.code == 65)
    #expect(r.err.contains(message), "\(r.err)")
    #expect(r.out.isEmpty)
  }

  @Test(arguments: [
    (["analyze", "--arm", "control=1000:120"], 64, "Error: needs at least two arms (got 1)"),
    (["analyze", "--arm", "control=1000", "--arm", "b=1:1"], 64, "Error: --arm 'control=1000' is not name=users:conversions"),
    (
      ["analyze", "--arm", "control=1000:1200", "--arm", "b=1000:150"], 64,
      "Error: --arm 'control=1000:1200' (conversions): 1200 conversions exceed 1000 users"
    ),
    (
      ["analyze", "--arm", "control=1000:100", "--arm", "control=1000:150"], 64,
      "Error: --arm 'control=1000:150' (name): duplicate arm name 'control'"
    ),
    (["analyze", "--arm", "a=1000:100", "--arm", "b=1000:150", "--control", "c"], 64, "Error: --control: no arm named 'c'"),
    (["analyze", "--arm", "a=1000:100", "--arm", "b=1000:150", "--correction", "fdr"], 64, "Error: --correction must be one of"),
    (["analyze", "--data", "/nonexistent.csv"], 66, "Error: /nonexistent.csv: no such file; check the path"),
  ])
  func badInputIsAClearError(arguments: [String], code: Int32, message: String) {
    let console = CapturingConsole()
    #expect(FunnelLabCommandLine.run(arguments, console: console) == code)
    #expect(console.stderr.hasPrefix(message), "\(console.stderr)")
    #expect(console.stdout.isEmpty)
  }

  @Test func zeroConversionsGiveDefinedAnswersNotNaN() throws {
    let r = funnellab("analyze", "--arm", "control=1000:0", "--arm", "b=1000:0", "--format", "json")
    #expect(r.code == 0, "\(r.err)")
    #expect(!r.out.contains("nan") && !r.out.contains("NaN"))
  }

  /// A data file of `count` arms, the control first.
  static func armRows(_ count: Int) -> String {
    "arm,users,conversions\ncontrol,100000,10000\n" + (1..<count).map { "a\($0),100000,\(9_950 + $0 % 100)\n" }.joined()
  }

  /// 1,000 arms are analysed (the limit; a minute in a debug build, so in the long stage).
  @Test(.longStage) func armsUpToTheLimitAreAnalysed() throws {
    let thousand = try temporaryFile("arms1000.csv", contents: Self.armRows(1_000))
    let r = funnellab("analyze", "--data", thousand, "--format", "json")
    #expect(r.code == 0, "\(r.err)")
  }

  /// 1,001 arms are refused, by the flag or by the file that gave them (exit 65 naming the
  /// file, as every problem of a data file).
  @Test func armsBeyondTheLimitAreRefused() throws {
    let tooMany = try temporaryFile("arms1001.csv", contents: Self.armRows(1_001))
    let file = funnellab("analyze", "--data", tooMany)
    #expect(file.code == 65, "\(file.err)")
    #expect(file.err.hasPrefix("Error: \(tooMany): 1001 arms; at most 1000"), "\(file.err)")
    #expect(file.out.isEmpty)
    let flags = (0...1_000).flatMap { ["--arm", "a\($0)=100:10"] }
    let command = funnellab(["analyze"] + flags)
    #expect(command.code == 64, "\(command.err)")
    #expect(command.err.hasPrefix("Error: arms: 1001 arms; at most 1000"), "\(command.err)")
  }

}

/// One condition, one wording and one exit code, wherever its value came from: a row of a
/// file is the data's problem (65, `file:line`), the same numbers typed as `--arm` the command
/// line's (64), and a day column changes neither.
@Suite struct StatsProblemsTests {
  @Test func oneConditionHasOneCodeInEveryInput() throws {
    let plain = try temporaryFile("arms.csv", contents: "arm,users,conversions\nc,100,10\nt,100,120\n")
    let daily = try temporaryFile("daily.csv", contents: "day,arm,users,conversions\n1,c,100,10\n1,t,100,120\n")
    let fromFile = funnellab("analyze", "--data", plain)
    let fromDays = funnellab("analyze", "--data", daily)
    let fromFlag = funnellab("analyze", "--arm", "c=100:10", "--arm", "t=100:120")
    let problem = "(conversions): 120 conversions exceed 100 users; check that users and conversions are not swapped\n"
    #expect(fromFile.code == 65 && fromDays.code == 65 && fromFlag.code == 64)
    #expect(fromFile.err == "Error: \(plain):3 \(problem)")
    #expect(fromDays.err == "Error: \(daily):3 \(problem)")
    #expect(fromFlag.err == "Error: --arm 't=100:120' \(problem)")
  }

  @Test func settingsAreNamedByTheirFlags() {
    let problems = StatsProblems(arms: [.file("a.csv", line: 2), .flag("--arm 'b=1:1'")], dataFile: "a.csv")
    #expect(problems.origin(of: [.name(.control)]).origin == .flag("--control"))
    #expect(problems.origin(of: [.name(.settings), .name(.plannedAllocation), .key("b")]).origin == .flag("--allocation[b]"))
    #expect(problems.origin(of: [.name(.arms), .index(1), .name(.users)]) == (.flag("--arm 'b=1:1'"), "users"))
    #expect(problems.origin(of: [.name(.arms), .index(0), .name(.revenue), .name(.n)]) == (.file("a.csv", line: 2), "revenue.n"))
    // The arms as a whole, and anything the command has no flag for, are the file's.
    #expect(problems.origin(of: [.name(.arms)]).origin == .file("a.csv", line: nil))
    #expect(problems.origin(of: [.name(.table), .every, .index(1)]) == (.file("a.csv", line: nil), "table[*][1]"))
    #expect(StatsProblems().failure([StatsError(.invalidParameter, field: [.name(.alpha)], message: "m")]).code == .usage)
    #expect(problems.failure([StatsError(.negativeCount, field: [.name(.arms), .index(0)], message: "m")]).code == .invalidInput)
  }
}
