import Foundation
import FunnelLab
import FunnelReport
import FunnelTestSupport
import Testing

@testable import FunnelLabCLI

#if canImport(FoundationXML)
  import FoundationXML
#endif

/// Compares `text` with the golden file `Fixtures/reports/<name>`; with
/// `FUNNELLAB_RECORD=1` in the environment, (re)writes the file instead and fails.
func expectGolden(_ text: String, _ name: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
  let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/reports/\(name)")
  if ProcessInfo.processInfo.environment["FUNNELLAB_RECORD"] == "1" {
    // A recording run fails, so that recording can never pass for a green test run:
    // review the new files with `git diff`, then run again without FUNNELLAB_RECORD.
    let old = try? String(contentsOf: url, encoding: .utf8)
    try text.write(to: url, atomically: true, encoding: .utf8)
    Issue.record(
      "\(old == text ? "re-recorded (unchanged)" : "recorded") golden file \(name); run again without FUNNELLAB_RECORD=1",
      sourceLocation: sourceLocation)
    return
  }
  guard let golden = try? String(contentsOf: url, encoding: .utf8) else {
    Issue.record("no golden file \(name); run with FUNNELLAB_RECORD=1 to record it", sourceLocation: sourceLocation)
    return
  }
  guard golden != text else { return }
  Issue.record(
    "\(name) differs from its golden file:\n\(lineDiff(golden, text))\n(re-record with FUNNELLAB_RECORD=1)", sourceLocation: sourceLocation)
}

/// Runs `arguments` once, end to end through ``FunnelLabCommandLine``, in the first golden's format,
/// and compares its standard output with that golden; the report the run wrote is rendered in each
/// other golden's format through the command's own call (``CapturingConsole``'s `alsoRendering:`,
/// ``ReportFormat/text(of:)`` in the command's terminal layout) and compared with its golden. One run
/// instead of one a format: the report is computed once, as a command computes it whatever the format.
/// - Returns: the run's console (its standard error, the other renderings).
@discardableResult
func expectGoldens(
  _ arguments: [String], _ goldens: [(format: ReportFormat, file: String)], exitCode: Int32 = 0,
  sourceLocation: SourceLocation = #_sourceLocation
) throws -> CapturingConsole {
  let first = try #require(goldens.first, sourceLocation: sourceLocation)
  let console = CapturingConsole(alsoRendering: goldens.dropFirst().map(\.format))
  let code = FunnelLabCommandLine.run(arguments + ["--format", first.format.rawValue], console: console)
  #expect(code == exitCode, "\(console.stderr)", sourceLocation: sourceLocation)
  try expectGolden(console.stdout, first.file, sourceLocation: sourceLocation)
  for golden in goldens.dropFirst() {
    let text = try #require(console.rendering(golden.format), "no \(golden.format.rawValue) report", sourceLocation: sourceLocation)
    try expectGolden(text, golden.file, sourceLocation: sourceLocation)
  }
  return console
}

/// The differing lines of two texts, `-` golden and `+` actual, at most 20.
func lineDiff(_ a: String, _ b: String) -> String {
  let x = a.split(separator: "\n", omittingEmptySubsequences: false)
  let y = b.split(separator: "\n", omittingEmptySubsequences: false)
  var out: [String] = []
  for i in 0..<max(x.count, y.count) where out.count < 40 {
    let l = i < x.count ? String(x[i]) : nil
    let r = i < y.count ? String(y[i]) : nil
    if l != r {
      out.append("line \(i + 1):")
      if let l { out.append("- \(l)") }
      if let r { out.append("+ \(r)") }
    }
  }
  return out.joined(separator: "\n")
}

/// What an XML parse of an HTML report found.
final class ReportStructure: NSObject, XMLParserDelegate {
  var svgClasses: [String] = []
  var svgsWithTitle = 0
  var svgsWithDesc = 0
  var elements: Set<String> = []
  var error: (any Error)?
  private var inSVG = false
  private var svgHasTitle = false
  private var svgHasDesc = false

  init(_ html: String) {
    super.init()
    let parser = XMLParser(data: Data(html.utf8))
    parser.delegate = self
    if !parser.parse() { error = parser.parserError ?? CocoaError(.formatting) }
  }

  func parser(
    _ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?, attributes: [String: String] = [:]
  ) {
    elements.insert(name)
    if name == "svg" {
      inSVG = true
      svgHasTitle = false
      svgHasDesc = false
      svgClasses.append(attributes["class"] ?? "")
    } else if inSVG, name == "title" {
      svgHasTitle = true
    } else if inSVG, name == "desc" {
      svgHasDesc = true
    }
  }

  func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
    guard name == "svg" else { return }
    inSVG = false
    if svgHasTitle { svgsWithTitle += 1 }
    if svgHasDesc { svgsWithDesc += 1 }
  }

  func count(_ kind: String) -> Int { svgClasses.filter { $0 == kind }.count }
}

@Suite struct ReportFormatTests {
  static let run = ["run", "experiments/klick-onboarding.json", "--users", "3000", "--seed", "7", "--threads", "2", "-q"]

  func output(_ arguments: [String]) -> String {
    let console = CapturingConsole()
    let code = FunnelLabCommandLine.run(arguments, console: console)
    #expect(code == 0, "\(console.stderr)")
    return console.stdout
  }

  @Test func runGolden() throws {
    try expectGoldens(Self.run, [(.json, "run.json"), (.csv, "run.csv"), (.markdown, "run.md")])
  }

  @Test func experimentModeGolden() throws {
    try expectGoldens(
      Self.run + ["--mode", "experiment"], [(.json, "experiment.json"), (.csv, "experiment.csv"), (.markdown, "experiment.md")])
  }

  @Test func gridGolden() throws {
    try expectGoldens(
      ["grid", "experiments/klick-onboarding.json", "--users", "500", "--seed", "7", "--threads", "2", "-q"],
      [(.json, "grid.json"), (.csv, "grid.csv"), (.markdown, "grid.md")])
  }

  /// `grid --exact` on the built-in Klick grid: no users, no seed, every cell in JSON and CSV.
  @Test func gridExactGolden() throws {
    try expectGoldens(
      ["grid", "--exact", "--top", "5", "--threads", "2", "-q"],
      [(.table, "grid-exact.txt"), (.json, "grid-exact.json"), (.csv, "grid-exact.csv"), (.markdown, "grid-exact.md")])
  }

  /// `grid --exact` refuses what only a simulation has (its shards are tested in ShardingTests), and the simulated grid sends a grid
  /// too large for it to `--exact`; neither writes a file.
  @Test func gridExactRefusesSimulationOptionsAndTheSimulatedGridPointsToIt() throws {
    for option in [["--users", "100"], ["--seed", "3"], ["--alpha", "0.1"]] {
      let r = funnellab(["grid", "--exact", "-q"] + option)
      #expect(r.code == 64, "\(option)")
      #expect(r.err.contains("--exact") && r.err.contains(option[0]), "\(r.err)")
    }
    let out = try temporaryFile("big.json")
    let r = funnellab("grid", "Benchmarks/specs/klick-grid-1000.json", "-q", "-o", out)
    #expect(r.code == 65)
    #expect(r.err.contains("1000 cells") && r.err.contains("--exact"), "\(r.err)")
    #expect(!FileManager.default.fileExists(atPath: out))
  }

  @Test func powerGolden() throws {
    try expectGoldens(
      ["power", "--baseline", "0.1", "--mde", "0.02"], [(.json, "power.json"), (.csv, "power.csv"), (.markdown, "power.md")])
  }

  @Test func analyzeGolden() throws {
    try expectGoldens(
      ["analyze", "--arm", "control=1000:120", "--arm", "b=1000:150", "--arm", "c,\"x\"=1000:90"],
      [(.json, "analyze.json"), (.csv, "analyze.csv"), (.markdown, "analyze.md")])
  }

  /// `analyze` of a daily file (the README's example): the snapshot of the last day, then the
  /// table by day.
  @Test func analyzeOverTimeGolden() throws {
    try expectGoldens(
      ["analyze", "--data", "experiments/data/klick-daily.csv", "--planned-users", "28000"],
      [(.json, "analyze-over-time.json"), (.csv, "analyze-over-time.csv"), (.markdown, "analyze-over-time.md")])
  }

  /// `exact` in CSV and Markdown (BetFree sells plans; NCDB has no paywall, so its
  /// Markdown shows no purchase, trial or revenue rows).
  @Test(arguments: [
    ("betfree-onboarding", [(ReportFormat.csv, "exact.csv"), (.markdown, "exact.md")]),
    ("ncdb-first-launch", [(.markdown, "exact-no-paywall.md")]),
  ])
  func exactGolden(experiment: String, goldens: [(ReportFormat, String)]) throws {
    try expectGoldens(["exact", "experiments/\(experiment).json"], goldens.map { (format: $0.0, file: $0.1) })
  }

  /// `exact`'s first line on the edge-case flows of `Tests/Fixtures/decisions` (issue 57): the best
  /// arm only by more than the margin, equivalent arms, ties with the control said as ties, a
  /// negligible effect, and only a control (nothing to compare, no table of effects).
  @Test(arguments: ["six-arms", "tie", "negligible", "equivalent", "control-only"])
  func exactDecisionGolden(flow: String) throws {
    try expectGolden(output(["exact", "Tests/Fixtures/decisions/\(flow).json", "--format", "markdown"]), "exact-\(flow).md")
  }

  /// `sensitivity` where the top variants tie (the README's example: a three-way tie at 0, no
  /// flip), and `check` of tied arms (a tie, neither beats the other).
  @Test(arguments: [
    (["sensitivity", "experiments/klick-onboarding.json", "--vary", "featureUtility=0:0.2:0.04", "--wide"], "sensitivity-tie.txt"),
    (
      ["sensitivity", "experiments/klick-onboarding.json", "--vary", "featureUtility=0:0.2:0.04", "--format", "json"],
      "sensitivity-tie.json"
    ),
    (["check", "Tests/Fixtures/decisions/tie-expectations.json"], "check-tie.txt"),
  ])
  func tieGolden(arguments: [String], file: String) throws {
    let console = CapturingConsole()
    let code = FunnelLabCommandLine.run(arguments, console: console)
    // The check fails: three of its expectations compare tied arms.
    #expect(code == (arguments.first == "check" ? 1 : 0), "\(console.stderr)")
    try expectGolden(console.stdout, file)
  }

  /// Every reason a check can fail (out of range on either side, undefined for each
  /// kind, a lift short and too costly, not better, underpowered, not significant in a
  /// simulation, a rival better, a probability too low), worded by FunnelReport from the
  /// library's values: table, JSON and JUnit against goldens recorded before the words
  /// moved out of the library.
  @Test func checkFailuresGolden() throws {
    let spec = "Tests/FunnelLabCLITests/Fixtures/check-failures.json"
    let junit = try scratchFolder("check-failures").appendingPathComponent("junit.xml")
    defer { try? FileManager.default.removeItem(at: junit) }
    for (arguments, golden) in [([String](), "check-failures.txt"), (["--format", "json"], "check-failures.json")] {
      let console = CapturingConsole()
      let code = FunnelLabCommandLine.run(["check", spec] + arguments, console: console)
      #expect(code == 1, "\(console.stderr)")
      try expectGolden(console.stdout, golden)
    }
    #expect(FunnelLabCommandLine.run(["check", spec, "--junit", junit.path], console: CapturingConsole()) == 1)
    try expectGolden(try String(contentsOf: junit, encoding: .utf8), "check-failures.xml")
  }

  @Test func csvQuotesByRFC4180() {
    #expect(CSVWriter.field("plain") == "plain")
    #expect(CSVWriter.field("a,b") == "\"a,b\"")
    #expect(CSVWriter.field("say \"hi\"") == "\"say \"\"hi\"\"\"")
    // Control characters are escaped (issue 58): a field never spans two physical lines.
    #expect(CSVWriter.field("two\r\nlines") == "two\\r\\nlines")
  }

  @Test func runHTMLHasEveryChartWithATextAlternative() throws {
    let html = output(Self.run + ["--format", "html"])
    let s = ReportStructure(html)
    #expect(s.error == nil, "not well-formed XML: \(String(describing: s.error))")
    let variants = 5
    #expect(s.count("funnel") == variants)
    #expect(s.count("forest") >= 5)
    #expect(s.count("plans") == variants)
    #expect(s.count("revenue") == 1)
    #expect(s.svgsWithTitle == s.svgClasses.count)
    #expect(s.svgsWithDesc == s.svgClasses.count)
    #expect(!s.elements.contains("script"))
    // The only links are the jump list's, to the page's own sections.
    #expect(html.components(separatedBy: "href=\"").dropFirst().allSatisfy { $0.hasPrefix("#sec-") })
    #expect(!html.contains("src=") && !html.contains("url(http"))
    #expect(html == output(Self.run + ["--format", "html"]), "the same run gives the same bytes")
  }

  /// `exact --format html`: well-formed, self-contained, the truth against the control and a
  /// metrics table, and one screens table per variant (and a plan-mix table where the flow sells plans).
  @Test func exactHTMLIsWellFormedWithATablePerVariant() throws {
    let html = output(["exact", "experiments/betfree-onboarding.json", "--format", "html"])
    let s = ReportStructure(html)
    #expect(s.error == nil, "not well-formed XML: \(String(describing: s.error))")
    #expect(html.components(separatedBy: "<table>").count - 1 == 2 + 4 * 2)
    #expect(html.contains("data-role=\"decision\""))
    #expect(!s.elements.contains("script"))
    #expect(html.components(separatedBy: "href=\"").dropFirst().allSatisfy { $0.hasPrefix("#sec-") }, "links stay in the page")
    #expect(!html.contains("src="))
    let ncdb = output(["exact", "experiments/ncdb-first-launch.json", "--format", "html"])
    #expect(ncdb.components(separatedBy: "<table>").count - 1 == 2 + 3)
    #expect(!ncdb.contains("revenue") && !ncdb.contains("purchase"))
  }

  /// Funnels end in their outcomes: BetFree's funnels (which differ only at the paywall)
  /// differ at the purchase step; NCDB, which has no paywall, gets no purchase row and no
  /// chart or column of a paywall or revenue metric.
  @Test func funnelsEndInOutcomesAndUndefinedMetricsAreNotDrawn() throws {
    let page = output(["run", "experiments/betfree-onboarding.json", "--users", "3000", "-q", "--format", "html"])
    // The funnels only: the side-by-side charts name the outcomes too.
    let betfree = page.components(separatedBy: "<svg ").filter { $0.contains("class=\"funnel\" viewBox") }.joined()
    let purchased = betfree.components(separatedBy: "$ purchased a plan</text>").dropFirst().map { part in
      String(part.prefix { $0 != "(" })
    }
    #expect(purchased.count == 4)
    #expect(Set(purchased).count == 4, "the purchase step of each variant: \(purchased)")
    #expect(betfree.components(separatedBy: "✓ completed</text>").count - 1 == 4)
    let ncdb = output(["run", "experiments/ncdb-first-launch.json", "--users", "3000", "-q", "--format", "html"])
    #expect(!ncdb.contains("purchased a plan") && ncdb.contains("✓ completed"))
    #expect(ncdb.contains(">completion<") && ncdb.contains("completion: difference"))
    for label in ["paywall view", "purchase conversion", "revenue per user", "trial starts", "realized per user"] {
      #expect(!ncdb.contains(">\(label)<") && !ncdb.contains("\(label): difference"), "NCDB shows \(label)")
    }
  }

  /// The run report draws the control's and each variant's funnels side by side, funnels that
  /// end in abandoned too, and forests with an axis of labelled ticks.
  @Test func runHTMLComparesFunnelsSideBySide() throws {
    let html = output(Self.run + ["--format", "html"])
    let s = ReportStructure(html)
    #expect(s.error == nil, "not well-formed XML: \(String(describing: s.error))")
    #expect(s.count("funnel-comparison") == 4, "control vs each of the four variants")
    #expect(html.components(separatedBy: "✗ abandoned</text>").count - 1 == 5 + 4)
    #expect(html.contains("proUpsell ↪</text>") && html.contains("land here</text>"))
    #expect(html.contains("<text x=\"200.0\" y=") && html.contains(" class=\"tick\">+"), "an axis with signed tick labels")
  }

  /// The false-positive charts of every variant share one axis: the α line at one x, the same ticks.
  @Test func planningPeekingChartsShareOneAxis() throws {
    let html = output([
      "power", "experiments/klick-onboarding.json", "--variant", "features5", "--variant", "features3", "--replicates", "100",
      "--users-per-day", "20000", "--format", "html",
    ])
    let charts = html.components(separatedBy: "<svg ").filter { $0.contains("class=\"peeking\" viewBox") }
    #expect(charts.count == 2)
    let alpha = charts.map { chart in
      Set(chart.components(separatedBy: "<line ").filter { $0.contains("class=\"zero\"") }.map { $0.split(separator: "\"")[1] })
    }
    #expect(alpha.allSatisfy { $0.count == 1 } && Set(alpha).count == 1, "α line at \(alpha)")
    let ticks = charts.map { chart in chart.components(separatedBy: "class=\"tick\">").dropFirst().map { $0.prefix { $0 != "<" } } }
    #expect(ticks.count == 2 && ticks.first == ticks.last && ticks.first?.count ?? 0 >= 3, "\(ticks)")
  }

  @Test func gridHTMLHasAHeatmap() throws {
    let html = output(["grid", "experiments/klick-onboarding.json", "--users", "500", "--seed", "7", "-q", "--format", "html"])
    let s = ReportStructure(html)
    #expect(s.error == nil, "not well-formed XML: \(String(describing: s.error))")
    #expect(s.count("heatmap") >= 1)
    #expect(s.svgsWithTitle == s.svgClasses.count)
  }

  @Test(arguments: [
    ["--mode", "experiment"], [],
  ])
  func otherHTMLReportsAreWellFormed(extra: [String]) throws {
    for arguments in [
      Self.run + extra + ["--format", "html"], ["power", "--baseline", "0.1", "--mde", "0.02", "--format", "html"],
      ["analyze", "--arm", "control=1000:120", "--arm", "b=1000:150", "--format", "html"],
    ] {
      let s = ReportStructure(output(arguments))
      #expect(s.error == nil, "\(arguments): \(String(describing: s.error))")
      #expect(s.svgsWithTitle == s.svgClasses.count)
    }
  }

  /// `analyze` of `klick-results.csv`: headless Chromium draws its table 1,066 px wide, so it
  /// is a table in a 1280 px window (main's content box is 1,200 px) and cards in a 1024 px one
  /// (992 px); the width the page switches to cards at lies between the two.
  @Test func analyzeTableIsATableOnALaptop() throws {
    let html = output(["analyze", "--data", "experiments/data/klick-results.csv", "--format", "html"])
    let query = try #require(html.components(separatedBy: "@container t1 (max-width: ").dropFirst().first)
    let width = try #require(Int(query.prefix { $0.isNumber }))
    #expect(width >= 1_066 && width < 1_200, "cards below \(width) px")
  }

  @Test func powerHTMLHasACurveThroughTheDesign() throws {
    let html = output(["power", "--baseline", "0.1", "--mde", "0.02", "--format", "html"])
    let s = ReportStructure(html)
    #expect(s.error == nil, "\(String(describing: s.error))")
    #expect(s.count("power") == 1)
    #expect(html.contains("3,841 users: power 80.0%"), "the design itself is on the curve")
  }

  static let plan = [
    "power", "experiments/klick-onboarding.json", "--variant", "features5", "--replicates", "300", "--users-per-day", "20000",
  ]

  /// The plan in CSV and Markdown, and its HTML page's peeking charts, from one plan.
  @Test func planningGoldenAndThePeekingCharts() throws {
    let console = CapturingConsole(alsoRendering: [.markdown, .html])
    #expect(FunnelLabCommandLine.run(Self.plan + ["--format", "csv"], console: console) == 0, "\(console.stderr)")
    try expectGolden(console.stdout, "planning.csv")
    try expectGolden(try #require(console.rendering(.markdown)), "planning.md")
    let s = ReportStructure(try #require(console.rendering(.html)))
    #expect(s.error == nil, "\(String(describing: s.error))")
    #expect(s.count("peeking") == 1)
    #expect(s.count("peeking-power") == 1)
    #expect(s.svgsWithTitle == s.svgClasses.count)
  }

  @Test func unknownFormatIsAUsageError() {
    let r = funnellab("run", "--users", "100", "--format", "xml")
    #expect(r.code == 64)
  }

  @Test func htmlGoesToTheOutputFile() throws {
    let path = try temporaryFile("klick.html")
    let r = funnellab("run", "--users", "1000", "-q", "--format", "html", "-o", path)
    #expect(r.code == 0, "\(r.err)")
    let text = try String(contentsOfFile: path, encoding: .utf8)
    #expect(text.hasPrefix("<!DOCTYPE html>"))
  }
}

@Suite struct OutputDeviceTests {
  /// `-o` onto a device must write to the device, not rename a temporary file over it
  /// (which turned /dev/null into a regular file). /dev/zero, because other processes
  /// on a shared machine may still break /dev/null.
  @Test func writingToADeviceKeepsTheDevice() throws {
    let before = try FileManager.default.attributesOfItem(atPath: "/dev/zero")[.type] as? FileAttributeType
    try #require(before == .typeCharacterSpecial)
    let r = funnellab("power", "--baseline", "0.1", "--mde", "0.02", "--format", "csv", "-o", "/dev/zero")
    #expect(r.code == 0, "\(r.err)")
    let after = try FileManager.default.attributesOfItem(atPath: "/dev/zero")[.type] as? FileAttributeType
    #expect(after == .typeCharacterSpecial)
  }
}

/// `power <spec> --compare-bandit` in every text format (BetFree's four arms, 300 replicates).
@Suite struct BanditReportFormatTests {
  static let arguments = [
    "power", "experiments/betfree-onboarding.json", "--compare-bandit", "--users-per-day", "3000", "--days", "10", "--replicates", "300",
    "--holdout", "0.05",
  ]

  @Test func banditGolden() throws {
    try expectGoldens(
      Self.arguments, [(.table, "bandit.txt"), (.json, "bandit.json"), (.csv, "bandit.csv"), (.markdown, "bandit.md")])
  }
}

/// `run --mode bandit` in every text format (Klick's five arms, 2,000 users a day for 5 days).
@Suite struct BanditRunFormatTests {
  static let arguments = [
    "run", "experiments/klick-onboarding.json", "--mode", "bandit", "--users-per-day", "2000", "--days", "5", "--seed", "3", "-q",
  ]

  @Test func banditRunGolden() throws {
    try expectGoldens(
      Self.arguments, [(.json, "bandit-run.json"), (.csv, "bandit-run.csv"), (.markdown, "bandit-run.md"), (.table, "bandit-run.txt")])
  }

  /// One thread gives the golden run: checked on the JSON, which carries every number. Each run
  /// of this command simulates its design's coverage replicates again (5 s in a debug build), so
  /// the whole command runs twice in the long stage only; in the fast stage `BanditRunTests`
  /// holds the run and its coverage to the same values on one thread and on several.
  @Test(.longStage) func oneThreadGivesTheGoldenRun() throws {
    let one = CapturingConsole()
    #expect(FunnelLabCommandLine.run(Self.arguments + ["--format", "json", "--threads", "1"], console: one) == 0)
    try expectGolden(one.stdout, "bandit-run.json")
  }

  @Test(arguments: [
    (["--mode", "bandit"], "Error: --mode bandit needs --users-per-day and --days"),
    (["--policy", "top-two"], "Error: --policy needs --mode bandit"),
    (["--mode", "bandit", "--users-per-day", "100", "--days", "2", "--shard", "0/2"], "Error: --shard works with --mode truth"),
    (
      ["--mode", "bandit", "--users-per-day", "100", "--days", "2", "--min-share", "0.4"],
      "Error: --min-share 0.4: must be in [0.0001, 1/5) for 5 arms"
    ),
    (["--mode", "bandit", "--users-per-day", "100", "--days", "2", "--burn-in", "2"], "Error: --burn-in 2 must be shorter than --days 2"),
  ])
  func refusals(extra: [String], message: String) {
    let r = funnellab(["run", "experiments/klick-onboarding.json", "-q"] + extra)
    #expect(r.code != 0, "\(r.err)")
    #expect(r.code == 64)
    #expect(r.err.hasPrefix(message), "\(r.err)")
    #expect(r.out.isEmpty)
  }
}
