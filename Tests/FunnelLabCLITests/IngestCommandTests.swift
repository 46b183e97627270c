import Foundation
import FunnelLab
import FunnelReport
import FunnelTestSupport
import Testing

@testable import FunnelLabCLI

/// `funnellab ingest`: an event log back to the views and action counts `run` reports,
/// streamed, every bad line counted and reported.
@Suite struct IngestCommandTests {
  /// The views and action counts (non-zero) of an aggregate, by screen id and action id:
  /// what an ingest of the same walks must give.
  static func expected(_ a: FunnelAggregate, _ f: CompiledFlow) -> ObservedCounts {
    var counts = ObservedCounts()
    for s in f.screenIDs.indices where a.views[s] > 0 { counts.views[f.screenIDs[s]] = a.views[s] }
    for (i, slot) in f.actions.enumerated() where a.actionCounts[i] > 0 {
      counts.actions[f.screenIDs[slot.screen], default: [:]][slot.id, default: 0] += a.actionCounts[i]
    }
    return counts
  }

  /// Every line of `text` into an ingest.
  static func ingest(_ text: String, format: EventIngest.Format = .ndjson, names: EventNameMap = EventNameMap(), variant: String? = nil)
    -> EventIngest
  {
    var ingest = EventIngest(format: format, names: names, variantProperty: variant)
    var reader = LineReader()
    reader.feed(Array(text.utf8)[...]) { number, line in
      if case .text(let t) = line {
        ingest.add(line: t, number: number)
      } else if case .problem(let m) = line {
        ingest.addBadLine(m, number: number)
      }
    }
    reader.finish { number, line in
      if case .text(let t) = line {
        ingest.add(line: t, number: number)
      } else if case .problem(let m) = line {
        ingest.addBadLine(m, number: number)
      }
    }
    ingest.finish()
    return ingest
  }

  /// The flows and variants traced: every one in the long stage; in the fast stage one a flow
  /// with what only it has (Klick's skips and goals, BetFree's purchases and restores, NCDB's
  /// failed inputs and tasks).
  static let traced = TestStage.size(
    fast: [("klick-onboarding", "goalOptional"), ("betfree-onboarding", ""), ("ncdb-first-launch", "control")],
    long: [
      ("klick-onboarding", "control"), ("klick-onboarding", "goalOptional"), ("betfree-onboarding", ""),
      ("urbannest-onboarding", ""), ("ncdb-first-launch", ""), ("ncdb-first-launch", "control"),
    ])

  /// The trace of a variant, ingested, gives exactly the views and the count of every
  /// action of `run` with the same seed, on every seed flow: failed inputs and tasks
  /// (NCDB), restores and purchases (BetFree), skips and goals (Klick) included.
  @Test(arguments: traced)
  func traceThenIngestGivesTheRunsCountsExactly(name: String, variantID: String) throws {
    let experiment = try ExperimentLoader.load(contentsOf: experimentPath(name))
    let variant = variantID.isEmpty ? experiment.variants.last?.id ?? "" : variantID
    let users = 3000
    let trace = try UserTrace.trace(experiment, variant: variant, users: users, seed: 7)
    let result = try ExperimentRunner.run(experiment, options: RunOptions(users: users, seed: 7, threads: 2, variants: [variant]))
    let run = try #require(result.variant(variant))
    let ingest = Self.ingest(TraceRenderer.ndjson(trace))
    #expect(ingest.badLines == 0 && ingest.outside.isEmpty)
    #expect(ingest.counts.keys.sorted() == [""])
    #expect(ingest.counts[""] == Self.expected(run.aggregate, run.flow))
    #expect(ingest.views == run.aggregate.views.reduce(0, +))
    #expect(ingest.actions == run.aggregate.actionCounts.reduce(0, +))
    #expect(ingest.uncounted["onboarding_started"] == UInt64(users))
  }

  /// The command line, from a file and from standard input (read in chunks of 7 bytes,
  /// so lines straddle chunks), writes the same CSV, which is the library's; `calibrate`
  /// reads it.
  @Test func theCommandStreamsAFileOrStandardInputToTheSameCSV() throws {
    let trace = funnellab("trace", "--users", "400", "--seed", "3")
    #expect(trace.code == 0)
    let log = try temporaryFile("events.ndjson", contents: trace.out)
    let fromFile = funnellab("ingest", log)
    #expect(fromFile.code == 0, "\(fromFile.err)")
    let fromStandardInput = funnellab(["ingest"], standardInput: trace.out)
    #expect(fromStandardInput.out == fromFile.out)
    #expect(fromFile.out == IngestRenderer.csv(Self.ingest(trace.out), variants: false))
    #expect(fromFile.out.hasPrefix("count,screen,action\r\n"))
    #expect(fromFile.err.contains("events.ndjson: 5,") && fromFile.err.contains("not counted (no view or action)"))
    let observed = try temporaryFile("observed.csv", contents: fromFile.out)
    let calibrate = funnellab("calibrate", experimentPath("klick-onboarding"), observed)
    #expect(calibrate.code == 0, "\(calibrate.err)")
    #expect(calibrate.out.contains("calibrated against"))
  }

  /// Two variants' traces in one log, each event naming its variant, give each variant's
  /// own counts; renamed events (a team's taxonomy) read back through the same map.
  @Test func variantsAndRenamedEventsReadBack() throws {
    let map = experimentPath("data/klick-events-map")
    var log = ""
    var expected: [String: ObservedCounts] = [:]
    for variant in ["control", "features3"] {
      let r = funnellab(
        "trace", "--users", "300", "--variant", variant, "--variant-property", "arm", "--events-map", map)
      #expect(r.code == 0, "\(r.err)")
      log += r.out
      let e = try ExperimentLoader.load(contentsOf: experimentPath("klick-onboarding"))
      let trace = try UserTrace.trace(e, variant: variant, users: 300, seed: nil)
      expected[variant] = Self.expected(trace.aggregate, try UserTrace.flow(of: e, variant: variant))
    }
    let names = try EventNameMap(contentsOf: map)
    let ingest = Self.ingest(log, names: names, variant: "arm")
    #expect(ingest.counts == expected)
    #expect(ingest.badLines == 0 && ingest.outside.isEmpty)
    let path = try temporaryFile("two.ndjson", contents: log)
    let r = funnellab("ingest", path, "--events-map", map, "--variant-property", "arm")
    #expect(r.code == 0, "\(r.err)")
    #expect(r.out.hasPrefix("count,screen,action,variant\r\n") && r.out.contains(",features3\r\n"))
    #expect(r.err.contains("of 2 variants"))
    // Without the map, the renamed events are outside the taxonomy and named as such.
    let unmapped = Self.ingest(log, variant: "arm")
    #expect(unmapped.outside["Onboarding Started"] == 600 && unmapped.counts != expected)
    // Without the variant property the two variants add up.
    let pooled = Self.ingest(log, names: names)
    #expect(
      pooled.counts[""]?.views["welcome"] == (expected["control"]?.views["welcome"] ?? 0) + (expected["features3"]?.views["welcome"] ?? 0))
  }

  /// A CSV log (a header with an event column, a column per property, quoted fields
  /// spanning lines, CRLF) gives the counts of the same events written as NDJSON.
  @Test func aCSVLogCountsLikeTheSameEventsInNDJSON() throws {
    let ndjson = funnellab("trace", "--users", "200").out
    let keys = ["screen_name", "action", "from_screen", "last_screen", "reason"]
    var csv = "user_id,event," + keys.joined(separator: ",") + ",note\r\n"
    for (k, line) in ndjson.split(separator: "\n").enumerated() {
      let event = try JSONParser.parse(String(line))
      guard case .string(let name)? = event["event"]?.kind else { continue }
      let fields = keys.map { key -> String in
        if case .string(let value)? = event["properties"]?[key]?.kind { return value }
        return ""
      }
      let note = k % 3 == 0 ? "\"a, \"\"quoted\"\"\nnote\"" : ""
      csv += "\(k),\(name)," + fields.joined(separator: ",") + ",\(note)\r\n"
    }
    let fromCSV = Self.ingest(csv, format: .csv)
    #expect(fromCSV.badLines == 0, "\(fromCSV.firstBadLines)")
    #expect(fromCSV.counts == Self.ingest(ndjson).counts)
    let path = try temporaryFile("events.csv", contents: csv)
    let r = funnellab("ingest", path)
    #expect(r.code == 0, "\(r.err)")
    #expect(r.out == funnellab(["ingest", "--input-format", "ndjson"], standardInput: ndjson).out)
  }

  /// A bad line stops the command by default (exit 65, the line named, no output file
  /// touched); --max-bad-lines skips up to that many, counts them and names the first.
  @Test func badLinesStopTheCommandUnlessAllowedAndAreNeverSilent() throws {
    var lines = funnellab("trace", "--users", "50").out.split(separator: "\n").map(String.init)
    lines.insert("{\"event\": \"onboarding_screen_viewed\", \"properties\": {}}", at: 3)
    lines.insert("not json at all", at: 10)
    lines.insert("[1, 2]", at: 20)
    let log = try temporaryFile("bad.ndjson", contents: lines.joined(separator: "\n") + "\n")
    let out = URL(fileURLWithPath: log).deletingLastPathComponent().appendingPathComponent("out.csv").path
    try "before".write(toFile: out, atomically: true, encoding: .utf8)
    let strict = funnellab("ingest", log, "-o", out)
    #expect(strict.code == 65)
    #expect(strict.err.hasPrefix("Error: \(log):4: no \"screen_name\" property; fix the line, or skip such lines with --max-bad-lines N"))
    #expect(strict.err.split(separator: "\n").count == 1)
    #expect(try String(contentsOfFile: out, encoding: .utf8) == "before")
    let tooFew = funnellab("ingest", log, "--max-bad-lines", "2", "-o", out)
    #expect(tooFew.code == 65 && tooFew.err.contains("(more than 2)"))
    #expect(try String(contentsOfFile: out, encoding: .utf8) == "before")
    let allowed = funnellab("ingest", log, "--max-bad-lines", "3", "-o", out)
    #expect(allowed.code == 0, "\(allowed.err)")
    #expect(allowed.err.contains("bad lines: 3 (line 4: no \"screen_name\" property; line 11: not JSON (column 2: invalid literal"))
    #expect(allowed.err.contains("line 21: not a JSON object but an array"))
    #expect(try String(contentsOfFile: out, encoding: .utf8).hasPrefix("count,screen,action"))
  }

  /// Every way a log can be wrong gives its own bad line, by line and reason.
  @Test(arguments: [
    ("\"just a string\"", "not a JSON object but a string"),
    ("{\"properties\": {}}", "no \"event\" name"),
    ("{\"event\": 3}", "the event name is a number, not a string"),
    ("{\"event\": \"onboarding_continued\", \"properties\": []}", "\"properties\" is an array, not an object"),
    ("{\"event\": \"onboarding_continued\", \"properties\": {\"screen_name\": {\"a\": 1}}}", "\"screen_name\" is an object, not text"),
    ("{\"event\": \"onboarding_continued\", \"properties\": {\"screen_name\": \"\"}}", "\"screen_name\" is empty"),
    (
      "{\"event\": \"onboarding_continued\", \"properties\": {\"screen_name\": \"a\\u001bb\"}}", "\"screen_name\" holds a control character"
    ),
    ("{\"event\": \"onboarding_continued\", \"properties\": {\"screen_name\": \" x\"}}", "\"screen_name\" begins or ends with a space"),
    ("{\"event\": \"onboarding_action_failed\", \"properties\": {\"screen_name\": \"x\"}}", "no \"action\" property"),
    (
      "{\"event\": \"onboarding_continued\", \"properties\": {\"screen_name\": \"x\", \"action\": \"views\"}}",
      "an action may not be named \"views\""
    ),
    ("{\"event\": \"onboarding_skipped\", \"properties\": {\"screen_name\": \"x\"}}", "no \"from_screen\" property"),
  ])
  func eachBadLineNamesWhatIsWrong(line: String, message: String) {
    let ingest = Self.ingest("{\"event\": \"onboarding_started\"}\n" + line + "\n")
    #expect(ingest.badLines == 1)
    #expect(ingest.firstBadLines == [EventIngest.BadLine(line: 2, message: message)])
  }

  /// Events that carry no count and events outside the taxonomy are counted by name, never
  /// as bad lines; an abandonment counts as a quit only when its reason is a quit (or absent).
  @Test func uncountedAndUnknownEventsAreTalliedByName() {
    var text = "{\"event\": \"app_opened\"}\n{\"event\": \"purchase_started\", \"properties\": {\"plan\": \"yearly\"}}\n"
    text += "{\"event\": \"onboarding_abandoned\", \"properties\": {\"last_screen\": \"a\", \"reason\": \"step_limit\"}}\n"
    text += "{\"event\": \"onboarding_abandoned\", \"properties\": {\"last_screen\": \"a\", \"reason\": \"exit\"}}\n"
    text += "{\"event\": \"onboarding_abandoned\", \"properties\": {\"last_screen\": \"a\", \"reason\": \"quit\", \"action\": \"leave\"}}\n"
    text += "{\"event_type\": \"onboarding_abandoned\", \"event_properties\": {\"last_screen\": \"b\"}}\n"
    for k in 0..<30 { text += "{\"event\": \"custom_\(k)\"}\n" }
    let ingest = Self.ingest(text)
    #expect(ingest.badLines == 0)
    #expect(ingest.uncounted == ["purchase_started": 1, "onboarding_abandoned": 2])
    #expect(ingest.counts[""]?.actions == ["a": ["leave": 1], "b": ["quit": 1]])
    #expect(ingest.outside.count == EventIngest.maximumNamesKept && ingest.otherOutside == 31 - UInt64(EventIngest.maximumNamesKept))
    #expect(ingest.outside["app_opened"] == 1)
  }

  /// In a CSV a quote opens a quoted field only at the start of a field, as the CSV reader
  /// has it: a quote inside a word does not swallow the lines after it; a carriage return
  /// outside quotes (two records on one line) and a header that does not parse are refused.
  @Test func csvQuotesAndLineEndsAreReadAsTheCSVReaderReadsThem() {
    let log =
      "event,screen_name\nonboarding_screen_viewed,we\"lcome\nonboarding_screen_viewed,goal\n"
      + "onboarding_screen_viewed,\"multi\nline\"\nonboarding_screen_viewed,a\rb\n"
    let ingest = Self.ingest(log, format: .csv)
    // The quoted multi-line screen is a bad line, not a view. (Written as a plain dictionary: a
    // `filter` closure inside #expect crashes the 6.3.1 compiler's release-mode IR generation.)
    let views: [String: UInt64] = ["we\"lcome": 1, "goal": 1]
    #expect(ingest.counts[""]?.views == views)
    #expect(ingest.badLines == 2, "\(ingest.firstBadLines)")
    #expect(ingest.firstBadLines.map(\.line) == [4, 6])
    #expect(ingest.firstBadLines[0].message == "\"screen_name\" holds a control character")
    #expect(ingest.firstBadLines[1].message.hasPrefix("more than one record on the line"))
    let broken = Self.ingest("event,\"open\nonboarding_screen_viewed,x\n", format: .csv)
    #expect(broken.fatal == EventIngest.BadLine(line: 1, message: "the header: a quoted field never closes"))
    let open = Self.ingest("event,screen_name\nonboarding_screen_viewed,\"open\nonboarding_screen_viewed,x\n", format: .csv)
    #expect(open.firstBadLines == [EventIngest.BadLine(line: 2, message: "a quoted field never closes")] && open.lines == 2)
    let header = Self.ingest("event,\"a\"b\nx,y\n", format: .csv)
    #expect(header.fatal?.line == 1 && header.fatal?.message.hasPrefix("the header: text after a closing quote") == true)
    let long = Self.ingest(
      "{\"event\": \"onboarding_screen_viewed\", \"properties\": {\"screen_name\": \"e" + String(repeating: "\u{301}", count: 500)
        + "\"}}\n")
    #expect(long.firstBadLines.first?.message == "\"screen_name\" is longer than 800 bytes")
  }

  /// The CSV reader's quote rule, read line by line, agrees with the reader on every short
  /// line of quotes, commas, spaces and letters: a line ends inside quotes exactly when the
  /// reader finds a quoted field that never closes.
  @Test func endsInsideQuotesAgreesWithTheCSVReader() {
    let alphabet: [Character] = ["a", ",", "\"", " "]
    var state: UInt64 = 20_261_126
    var checked = 0
    for _ in 0..<20_000 {
      state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
      var line = ""
      var bits = state >> 20
      for _ in 0..<Int(state % 11) {
        line.append(alphabet[Int(bits & 3)])
        bits >>= 2
      }
      let message: String?
      do {
        _ = try CSVReader.records(line)
        message = nil
      } catch {
        message = error.message
      }
      if message?.hasPrefix("text after a closing quote") == true { continue }
      checked += 1
      #expect(CSVReader.endsInsideQuotes(line, startingInside: false) == (message == "a quoted field is never closed"), "\(line)")
    }
    #expect(checked > 10_000)
  }

  /// Usage errors exit 64 (with the usage line), unreadable inputs 66, a log with nothing to count or a CSV
  /// without an event column 65; each in one line, stdout empty.
  @Test func errorsExitWithTheirDocumentedCodes() throws {
    let nothing = try temporaryFile("nothing.ndjson", contents: "{\"event\": \"app_opened\"}\n\n")
    let noEvent = try temporaryFile("noevent.csv", contents: "user,screen_name\n1,welcome\n")
    let twice = try temporaryFile("twice.csv", contents: "event,event\nx,y\n")
    let cases: [([String], Int32, String)] = [
      (["ingest", nothing], 65, "no view or action among 1 lines (outside the taxonomy: 1 events (app_opened 1); name yours"),
      (["ingest", noEvent], 65, "noevent.csv:1: the header has no \"event\" column; name the event column \"event\"."),
      (["ingest", twice], 65, "twice.csv:1: the header names the column \"event\" twice; give each column its own name."),
      (["ingest", "/nonexistent/events.ndjson"], 66, "no such file"),
      (["ingest", "/tmp"], 66, "a folder, not a file"),
      (["ingest", nothing, "--input-format", "xml"], 64, "--input-format"),
      (["ingest", nothing, "--max-bad-lines", "-1"], 64, "--max-bad-lines"),
      (["ingest", nothing, "--variant-property", ""], 64, "the property's name is empty"),
      (
        ["ingest", repositoryRoot.appendingPathComponent("experiments/data/klick-events.csv").path, "--variant-property", "varient"], 65,
        "no \"varient\" property (the variant, --variant-property), and no event counted before it had one: is --variant-property the name"
      ),
      (["ingest", nothing, nothing], 64, "'funnellab ingest' takes 1 argument"),
      (["trace", "--variant-property", ""], 64, "the property's name is empty"),
      (["trace", "--variant-property", "screen_name"], 64, "the events already have a property 'screen_name'"),
    ]
    for (arguments, code, message) in cases {
      let r = funnellab(arguments)
      #expect(r.code == code, "\(arguments): \(r.err)")
      #expect(r.err.contains(message), "\(arguments): \(r.err)")
      // A usage error adds the usage line after its one-line message.
      #expect(r.out.isEmpty && r.err.split(separator: "\n").count == (code == 64 ? 3 : 1), "\(arguments): \(r.err)")
    }
  }

  /// The sample log in experiments/data is what `trace` writes for it (so the README's
  /// walk-through reads real output), and it ingests without a bad line.
  @Test func theSampleLogIsATrace() throws {
    let sample = try String(
      contentsOf: repositoryRoot.appendingPathComponent("experiments/data/klick-events.ndjson"), encoding: .utf8)
    let map = experimentPath("data/klick-events-map")
    let r = funnellab("trace", "--users", "100", "--variant-property", "variant", "--events-map", map)
    #expect(r.out == sample)
    let ingest = Self.ingest(sample, names: try EventNameMap(contentsOf: map), variant: "variant")
    #expect(ingest.badLines == 0 && ingest.counts.keys.sorted() == ["control"])
  }
}
