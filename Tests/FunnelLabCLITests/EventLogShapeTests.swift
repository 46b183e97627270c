import Foundation
import FunnelLab
import FunnelTestSupport
import Testing

@testable import FunnelLabCLI

/// `infer --log-format`: logs of other shapes than FunnelLab's taxonomy. One small log per
/// analytics tool, written by hand from the tool's documentation (Tests/Fixtures/event-logs:
/// four users through Welcome, Plan and Paywall; one buys, three complete, one goes back, one
/// quits), read to the same walks; and the problems of such a log refused with its line.
@Suite struct EventLogShapeTests {
  static let fixtures = "Tests/Fixtures/event-logs/"

  /// Each tool's log, with the options its shape needs, gives the same four walks.
  @Test(arguments: [
    ("amplitude.ndjson", ["--completion-event", "Onboarding Completed", "--purchase-event", "Purchase"], "YYYY-MM-DD", "Welcome"),
    (
      "mixpanel.ndjson",
      [
        "--log-format", "mixpanel", "--screen-event", "Screen Viewed", "--screen-property", "screen", "--completion-event",
        "Onboarding Completed", "--purchase-event", "Purchase",
      ], "epoch seconds", "Welcome"
    ),
    ("segment.ndjson", ["--completion-event", "Onboarding Completed", "--purchase-event", "Order Completed"], "ISO 8601", "Welcome"),
    (
      "ga4.ndjson", ["--completion-event", "tutorial_complete", "--purchase-event", "purchase", "--walk", "session"], "microseconds",
      "Welcome"
    ),
    ("posthog.ndjson", ["--completion-event", "onboarding completed", "--purchase-event", "purchase"], "ISO 8601", "Welcome"),
    (
      "clickstream.csv",
      ["--completion-event", "order_confirmation", "--purchase-event", "checkout_success", "--session-column", "session_id"],
      "YYYY-MM-DD", "welcome"
    ),
  ])
  func eachToolsLogGivesTheSameWalks(file: String, options: [String], times: String, start: String) throws {
    let spec = try temporaryFile("inferred.json")
    let r = funnellab(["infer", Self.fixtures + file, "-o", spec, "--format", "json"] + options)
    try #require(r.code == 0, "\(file): \(r.err)")
    #expect(r.out.contains("times as") && r.out.contains(times), "the report says how the log was read: \(r.out)")
    let report = try JSONParser.parse(r.out)
    #expect(InferCommandTests.number(report, "users") == 4, "\(r.out)")
    #expect(InferCommandTests.number(report, "completed") == 3)
    #expect(InferCommandTests.number(report, "purchasers") == 1, "\(r.out)")
    #expect(funnellab("validate", spec).code == 0)
    let document = try JSONParser.parse(try String(contentsOfFile: spec, encoding: .utf8))
    guard case .array(let screens)? = document["flow"]?["screens"]?.kind else {
      Issue.record("no screens")
      return
    }
    #expect(screens.count == 3)
    #expect(screens.first?["id"]?.kind == .string(start))
    #expect(screens.last?["kind"]?.kind == .string("paywall"), "the screen of the purchase is a paywall")
  }

  /// The shape is told by the first event where only one fits: Amplitude's, Segment's, GA4's
  /// and PostHog's objects; a CSV without `timestamp_ms` is a clickstream.
  @Test(arguments: ["amplitude", "segment", "ga4", "posthog"])
  func theShapeIsToldByTheFirstEvent(tool: String) throws {
    let r = funnellab("infer", Self.fixtures + tool + ".ndjson", "--completion-event", "x", "-o", try temporaryFile("s.json"))
    #expect(r.err.contains("Read as the \(tool) shape"), "\(r.err)")
  }

  /// Times in every documented form read to the same milliseconds; dates that do not exist are not times.
  @Test func timestampsInEveryForm() {
    let t = 1_710_325_274_000.0  // 2024-03-13 10:21:14 UTC
    for (text, format) in [
      ("1710325274", LogTimeFormat.epochSeconds), ("1710325274000", .epochMilliseconds), ("1710325274000000", .epochMicroseconds),
      ("2024-03-13 10:21:14", .dateTime), ("2024-03-13T10:21:14Z", .iso8601), ("2024-03-13T11:21:14+01:00", .iso8601),
      ("2024-03-13T05:21:14.000-0500", .iso8601), ("2024-03-13 10:21:14.000000", .dateTime),
    ] {
      let read = LogTimestamp.milliseconds(text)
      #expect(read?.milliseconds == t && read?.format == format, "\(text): \(String(describing: read))")
    }
    for bad in ["2024-02-30 10:00:00", "2024-13-01T00:00:00Z", "2024-03-13T25:00:00Z", "yesterday", "2024-03-13T10:21:14+", "-1e20"] {
      #expect(LogTimestamp.milliseconds(bad) == nil, "\(bad)")
    }
    #expect(LogTimestamp.text(milliseconds: UInt64(t) + 250, iso: true) == "2024-03-13T10:21:14.250Z")
  }

  /// A clickstream's problems are refused with their line: no user column, a time that is not
  /// one, a screen name with a control character; shape flags that cannot apply are refused (64).
  @Test func problemsAreRefusedWithTheirLine() throws {
    let noUser = try temporaryFile("a.csv", contents: "who,event,timestamp\nu1,welcome,2024-03-13 10:21:14\n")
    let r1 = funnellab("infer", noUser)
    #expect(r1.code == 65 && r1.err.contains("a.csv:2") && r1.err.contains("--user-column"), "\(r1.err)")
    let badTime = try temporaryFile("b.csv", contents: "user_id,event,timestamp\nu1,welcome,13/03/2024\n")
    let r2 = funnellab("infer", badTime)
    #expect(r2.code == 65 && r2.err.contains("b.csv:2") && r2.err.contains("is not a time"), "\(r2.err)")
    let control = try temporaryFile("c.csv", contents: "user_id,event,timestamp\nu1,\"wel\u{1B}come\",1710325274\n")
    let r3 = funnellab("infer", control)
    #expect(r3.code == 65 && r3.err.contains("c.csv:2") && r3.err.contains("control character"), "\(r3.err)")
    #expect(funnellab("infer", noUser, "--log-format", "funnellab", "--user-column", "who").code == 64)
    #expect(funnellab("infer", noUser, "--events-map", "x.json", "--log-format", "ga4").code == 64)
    #expect(funnellab("infer", noUser, "--screen-event", "screen_view").code == 64)
    #expect(funnellab("infer", noUser, "--screen-order", "a,,b").code == 64)
    #expect(funnellab("infer", noUser, "--completion-event", "x", "--purchase-event", "x").code == 64)
  }

  /// `--idle-minutes` ends a walk after a gap: a user's two visits a day apart are two walks.
  @Test func idleMinutesEndAWalk() throws {
    let log = try temporaryFile(
      "d.csv",
      contents: """
        user_id,screen,timestamp
        u1,welcome,2024-03-13 10:00:00
        u1,plan,2024-03-13 10:00:30
        u1,onboarding_completed,2024-03-13 10:01:00
        u2,welcome,2024-03-13 10:00:00
        u2,welcome,2024-03-14 10:00:00
        u2,plan,2024-03-14 10:00:30
        u2,onboarding_completed,2024-03-14 10:01:00

        """)
    let once = funnellab("infer", log, "--format", "json", "-o", try temporaryFile("s.json"))
    try #require(once.code == 0, "\(once.err)")
    #expect(InferCommandTests.number(try JSONParser.parse(once.out), "users") == 2)
    let idle = funnellab("infer", log, "--idle-minutes", "30", "--format", "json", "-o", try temporaryFile("s.json"))
    try #require(idle.code == 0, "\(idle.err)")
    #expect(InferCommandTests.number(try JSONParser.parse(idle.out), "users") == 3)
    #expect(idle.out.contains("ended after 30"), "\(idle.out)")
  }

  /// A shape's options on a log told to be FunnelLab's own events (by its first record, no
  /// `--log-format`) are refused (65, the line named) before any file is written: they would
  /// be ignored without a word.
  @Test func shapeOptionsOnFunnelLabsOwnEventsAreRefused() throws {
    let log = try temporaryFile("own.ndjson", contents: funnellab("trace", "--users", "20").out)
    let spec = try temporaryFile("never.json")
    for options in [["--user-column", "user_id"], ["--idle-minutes", "30"], ["--completion-event", "done"], ["--screen-order", "a,b"]] {
      let r = funnellab(["infer", log, "-o", spec] + options)
      #expect(r.code == 65 && r.err.contains("own.ndjson:1") && r.err.contains("FunnelLab's own events"), "\(options): \(r.err)")
      #expect(!FileManager.default.fileExists(atPath: spec), "\(options)")
    }
    #expect(funnellab("infer", log, "-o", spec).code == 0)
  }

  /// A log that mixes ways of writing times reads each by its own shape, and the note names
  /// every way with its count.
  @Test func mixedTimeFormatsAreEachNamed() throws {
    let log = try temporaryFile(
      "mixed.csv",
      contents: """
        user_id,screen,timestamp
        u1,welcome,2024-03-13 10:00:00
        u1,plan,1710324030
        u1,onboarding_completed,2024-03-13T10:01:00Z

        """)
    let r = funnellab("infer", log, "--format", "json", "-o", try temporaryFile("s.json"))
    try #require(r.code == 0, "\(r.err)")
    #expect(r.out.contains("times as mixed, each read by its own shape:"), "\(r.out)")
    for name in ["YYYY-MM-DD HH:MM:SS (UTC) (1 event)", "epoch seconds (1 event)", "ISO 8601 (1 event)"] {
      #expect(r.out.contains(name), "\(name): \(r.out)")
    }
    guard case .array(let formats)? = try JSONParser.parse(r.out)["reading"]?["timeFormats"]?.kind else {
      Issue.record("no reading.timeFormats: \(r.out)")
      return
    }
    #expect(formats.count == 3)
  }

  /// `--since` and `--until` count the walks that start in the window (a date is its
  /// midnight, UTC); a time that is not one, or an empty window, is refused (64).
  @Test func sinceAndUntilCountTheWalksThatStartInTheWindow() throws {
    let log = try temporaryFile(
      "w.csv",
      contents: """
        user_id,screen,timestamp
        u1,welcome,2024-03-12 23:59:00
        u1,plan,2024-03-13 00:00:30
        u1,onboarding_completed,2024-03-13 00:01:00
        u2,welcome,2024-03-13 10:00:00
        u2,plan,2024-03-13 10:00:30
        u2,onboarding_completed,2024-03-13 10:01:00
        u3,welcome,2024-03-14 10:00:00
        u3,onboarding_completed,2024-03-14 10:01:00

        """)
    func users(_ options: [String]) throws -> (users: Double?, outside: Double?) {
      let r = funnellab(["infer", log, "--format", "json", "-o", try temporaryFile("s.json")] + options)
      try #require(r.code == 0, "\(options): \(r.err)")
      let json = try JSONParser.parse(r.out)
      return (InferCommandTests.number(json, "users"), InferCommandTests.number(json, "outsideWindow"))
    }
    #expect(try users([]) == (3, 0))
    #expect(try users(["--since", "2024-03-13"]) == (2, 1), "u1 started the day before")
    #expect(try users(["--since", "2024-03-13", "--until", "2024-03-14"]) == (1, 2))
    #expect(try users(["--until", "2024-03-13T10:00:00Z"]) == (1, 2), "until is not included")
    let report = try temporaryFile("r.md")
    let r = funnellab("infer", log, "--since", "2024-03-13", "-o", try temporaryFile("s.json"), "--format", "markdown", "--report", report)
    try #require(r.code == 0, "\(r.err)")
    #expect(try String(contentsOfFile: report, encoding: .utf8).contains("Only walks that started from 2024-03-13 00:00 (UTC)"))
    for bad in [["--since", "yesterday"], ["--until", "2024-02-30"], ["--since", "2024-03-14", "--until", "2024-03-13"]] {
      let refused = funnellab(["infer", log, "-o", try temporaryFile("s.json")] + bad)
      #expect(refused.code == 64 && refused.err.hasPrefix("Error: --"), "\(bad): \(refused.err)")
    }
  }

  /// In a clickstream, `--segment-property` names a column: each walk's segment is its rows'.
  @Test func aSegmentIsAColumnOfAClickstream() throws {
    let log = try temporaryFile(
      "s.csv",
      contents: """
        user_id,screen,timestamp,tier
        u1,welcome,2024-03-13 10:00:00,free
        u1,onboarding_completed,2024-03-13 10:01:00,free
        u2,welcome,2024-03-13 10:00:00,trial
        u2,onboarding_completed,2024-03-13 10:01:00,trial
        u3,welcome,2024-03-13 10:02:00,trial

        """)
    let r = funnellab("infer", log, "--segment-property", "tier", "--format", "json", "-o", try temporaryFile("spec.json"))
    try #require(r.code == 0, "\(r.err)")
    guard case .array(let segments)? = try JSONParser.parse(r.out)["segments"]?.kind else {
      Issue.record("no segments: \(r.out)")
      return
    }
    #expect(segments.map { $0["id"]?.kind } == [.string("free"), .string("trial")])
    #expect(segments.map { InferCommandTests.number($0, "users") } == [1, 2])
  }

  /// How the log was read is in every format of the report, and on standard error only when
  /// the report is not printed there.
  @Test(arguments: ["table", "markdown", "html", "json"])
  func theReadingIsInEveryFormat(format: String) throws {
    let report = try temporaryFile("report.\(format)")
    let r = funnellab(
      "infer", Self.fixtures + "clickstream.csv", "--completion-event", "order_confirmation", "--purchase-event", "checkout_success",
      "-o", try temporaryFile("s.json"), "--format", format, "--report", report)
    try #require(r.code == 0, "\(r.err)")
    #expect(try String(contentsOfFile: report, encoding: .utf8).contains("Read as the clickstream shape"), "\(format)")
    #expect(r.err.contains("Read as the clickstream shape"), "a report in a file: the note on standard error too")
    let inline = funnellab(
      "infer", Self.fixtures + "clickstream.csv", "--completion-event", "order_confirmation", "--purchase-event", "checkout_success")
    #expect(inline.err.components(separatedBy: "Read as the clickstream shape").count == 2, "once, in the report: \(inline.err)")
  }
}

/// trace → infer in every shape: a trace of a seed spec written as a clickstream (screen
/// views, purchases and completions only) or as each tool's export, inferred back with the
/// options its shape needs, gives a spec whose exact completion (and BetFree's purchase
/// conversion) lies within 3 SE of the seed's (20,000 users in the long stage).
@Suite struct EventLogShapeRoundTripTests {
  static let shapes: [(String, [String])] = [
    ("clickstream", []), ("amplitude", []),
    ("mixpanel", ["--log-format", "mixpanel", "--screen-event", "Screen Viewed", "--screen-property", "screen"]),
    ("segment", []), ("ga4", ["--walk", "session"]), ("posthog", []),
  ]

  static let metrics: [(spec: String, metric: String)] = [
    ("klick-onboarding", "completionRate"), ("betfree-onboarding", "purchaseConversion"),
    ("betfree-onboarding", "completionRate"), ("urbannest-onboarding", "completionRate"),
  ]

  /// Every shape with every metric in the long stage; in the fast stage each shape once, the
  /// metrics taken in turn so that each of them is read back in some shape.
  static let cases: [(shape: Int, spec: String, metric: String)] = shapes.indices.flatMap { k in
    let all = metrics.map { (k, $0.spec, $0.metric) }
    return TestStage.size(fast: [all[k % all.count]], long: all)
  }

  /// The seeds' exact control metrics, solved once for the suite (each seed solves every variant).
  static let seedMetrics: [String: JSONValue] = {
    var out: [String: JSONValue] = [:]
    for spec in Set(metrics.map(\.spec)) { out[spec] = try? InferCommandTests.exact("experiments/\(spec).json") }
    return out
  }()

  @Test(arguments: cases)
  func roundTripInEveryShape(shape: Int, spec: String, metric: String) throws {
    let (name, options) = Self.shapes[shape]
    let users = TestStage.size(fast: 4_000, long: 20_000)
    let log = try temporaryFile("\(spec).\(name == "clickstream" ? "csv" : "ndjson")")
    let inferred = try temporaryFile("inferred.json")
    let trace = funnellab("trace", "experiments/\(spec).json", "--users", String(users), "-q", "--log-format", name, "-o", log)
    try #require(trace.code == 0, "\(trace.err)")
    let infer = funnellab(["infer", log, "-o", inferred, "--format", "json"] + options)
    try #require(infer.code == 0, "\(name): \(infer.err)")
    #expect(infer.out.contains("Read as the \(name) shape"), "the report says how the log was read")
    let truth = try #require(InferCommandTests.number(Self.seedMetrics[spec], metric))
    let predicted = try #require(InferCommandTests.number(try InferCommandTests.exact(inferred), metric))
    let se = (truth * (1 - truth) / Double(users)).squareRoot()
    #expect(abs(predicted - truth) <= 3 * se, "\(name) \(spec) \(metric): inferred \(predicted), seed \(truth), 3 SE = \(3 * se)")
  }
}
