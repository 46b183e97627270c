import Foundation
import FunnelLab
import FunnelTestSupport
import Testing

@testable import FunnelLabCLI

/// `funnellab infer`: a trace of a seed spec read back to a spec whose exact funnel is the
/// seed's within sampling error, probabilities that recover a neutral spec's, the
/// first-order test and returns named, and every problem of a log refused with its line.
@Suite struct InferCommandTests {
  static func number(_ value: JSONValue?, _ path: String...) -> Double? {
    var current = value
    for key in path { current = current?[key] }
    if case .number(let x, _)? = current?.kind { return x }
    return nil
  }

  /// The exact control metrics of a spec file.
  static func exact(_ path: String) throws -> JSONValue? {
    let r = funnellab("exact", path, "--format", "json")
    try #require(r.code == 0, "\(r.err)")
    guard case .array(let variants)? = try JSONParser.parse(r.out)["variants"]?.kind else { return nil }
    return variants.first?["metrics"]
  }

  /// The seeds and metrics read back: every one in the long stage; in the fast stage the two of
  /// the flows with a paywall (a purchase, and a completion behind skippable and required inputs).
  static let roundTrips = TestStage.size(
    fast: [("klick-onboarding", "completionRate"), ("betfree-onboarding", "purchaseConversion")],
    long: [
      ("klick-onboarding", "completionRate"), ("betfree-onboarding", "purchaseConversion"), ("betfree-onboarding", "completionRate"),
      ("urbannest-onboarding", "completionRate"), ("ncdb-first-launch", "completionRate"),
    ])

  /// trace → infer → validate → exact: the inferred spec's completion (and BetFree's purchase
  /// conversion) lies within 3 SE of the seed's exact control value, the SE of a proportion of the
  /// log's users (4,000 in the fast stage, 20,000 in the long one).
  @Test(arguments: roundTrips)
  func roundTripReproducesTheSeedsExactFunnel(spec: String, metric: String) throws {
    let log = try temporaryFile("\(spec).ndjson")
    let inferred = try temporaryFile("inferred.json")
    let users = TestStage.size(fast: 4_000, long: 20_000)
    let trace = funnellab("trace", "experiments/\(spec).json", "--users", String(users), "-q", "-o", log)
    try #require(trace.code == 0, "\(trace.err)")
    let infer = funnellab("infer", log, "-o", inferred, "--format", "json")
    try #require(infer.code == 0, "\(infer.err)")
    #expect(funnellab("validate", inferred).code == 0)
    let truth = try #require(Self.number(try Self.exact("experiments/\(spec).json"), metric))
    let predicted = try #require(Self.number(try Self.exact(inferred), metric))
    let se = (truth * (1 - truth) / Double(users)).squareRoot()
    #expect(abs(predicted - truth) <= 3 * se, "\(spec) \(metric): inferred \(predicted), seed \(truth), 3 SE = \(3 * se)")
    // The report's prediction is the exact engine's on the spec it wrote.
    let report = try JSONParser.parse(infer.out)
    if metric == "completionRate" {
      #expect(abs((Self.number(report, "predictedCompletionRate") ?? -1) - predicted) < 1e-12)
    }
  }

  /// An inferred spec works like a written one: `calibrate` against the counts `ingest` reads
  /// from the same log finds nothing contradicted (the spec's probabilities are the log's), and
  /// `check --update-baseline` then `check --baseline` find the funnel unchanged.
  @Test func calibrateAndCheckTakeAnInferredSpec() throws {
    let log = try temporaryFile("u.ndjson")
    try #require(funnellab("trace", "experiments/urbannest-onboarding.json", "--users", "3000", "-q", "-o", log).code == 0)
    let spec = try temporaryFile("inferred.json")
    try #require(funnellab("infer", log, "-o", spec).code == 0)
    let counts = try temporaryFile("observed.csv")
    try #require(funnellab("ingest", log, "-o", counts).code == 0)
    let calibrated = funnellab("calibrate", spec, counts)
    #expect(calibrated.code == 0, "\(calibrated.err)")
    #expect(calibrated.out.contains("No assumption is contradicted beyond noise"), "\(calibrated.out)")
    let baseline = try temporaryFile("baseline.json")
    #expect(funnellab("check", spec, "--update-baseline", baseline).code == 0)
    let check = funnellab("check", spec, "--baseline", baseline)
    #expect(check.code == 0 && check.out.contains("unchanged from its baseline"), "\(check.out)")
  }

  /// With `--segment-property`, Klick's segments (which differ in intent, so in how often they
  /// quit) get their own probabilities where the test says they differ, weighed by their share;
  /// the spec validates and its completion stays within 3 SE of the seed's.
  @Test func segmentsGetTheirOwnProbabilitiesWhereTheyDiffer() throws {
    let log = try temporaryFile("k.ndjson")
    let users = TestStage.size(fast: 8_000, long: 20_000)
    try #require(funnellab("trace", "experiments/klick-onboarding.json", "--users", String(users), "-q", "-o", log).code == 0)
    let spec = try temporaryFile("inferred.json")
    let r = funnellab("infer", log, "--segment-property", "segment", "-o", spec, "--format", "json")
    try #require(r.code == 0, "\(r.err)")
    let report = try JSONParser.parse(r.out)
    guard case .array(let tests)? = report["segmentTests"]?.kind, case .array(let segments)? = report["segments"]?.kind else {
      Issue.record("no segment keys")
      return
    }
    #expect(segments.count >= 2)
    let differ = tests.filter { $0["differ"]?.kind == .bool(true) }
    #expect(!differ.isEmpty, "Klick's segments quit at different rates")
    #expect(funnellab("validate", spec).code == 0)
    let document = try JSONParser.parse(try String(contentsOfFile: spec, encoding: .utf8))
    guard case .array(let written)? = document["population"]?["segments"]?.kind else {
      Issue.record("no population in the spec")
      return
    }
    #expect(written.count == segments.count)
    let weights = written.compactMap { Self.number($0, "weight") }.reduce(0, +)
    #expect(abs(weights - 1) < 1e-9)
    let truth = try #require(Self.number(try Self.exact("experiments/klick-onboarding.json"), "completionRate"))
    let predicted = try #require(Self.number(try Self.exact(spec), "completionRate"))
    #expect(abs(predicted - truth) <= 3 * (truth * (1 - truth) / Double(users)).squareRoot(), "\(predicted) against \(truth)")
  }

  /// `--variants-from` adds a written spec's variants to the inferred flow: Klick's upsell
  /// moved after slide 3 applies to the log's baseline (the inferred actions lead where their
  /// kind leads by default, so a moved screen moves its links); variants whose screens the log
  /// lacks are refused with 65.
  @Test func variantsFromAWrittenSpecApplyToTheLogsFlow() throws {
    let log = try temporaryFile("k.ndjson")
    try #require(funnellab("trace", "experiments/klick-onboarding.json", "--users", "5000", "-q", "-o", log).code == 0)
    let spec = try temporaryFile("inferred.json")
    let r = funnellab("infer", log, "--variants-from", "experiments/klick-onboarding.json", "-o", spec)
    try #require(r.code == 0, "\(r.err)")
    #expect(r.err.contains("Note: the inferred spec's behavior model is neutral"))
    let exact = funnellab("exact", spec, "--format", "json")
    try #require(exact.code == 0, "\(exact.err)")
    guard case .array(let variants)? = try JSONParser.parse(exact.out)["variants"]?.kind else {
      Issue.record("no variants")
      return
    }
    #expect(variants.count == 5)
    let completion = variants.map { Self.number($0["metrics"], "completionRate") ?? -1 }
    #expect(abs(completion[1] - completion[0]) > 1e-3, "the moved upsell changes the funnel: \(completion)")
    let other = try temporaryFile("u.ndjson")
    try #require(funnellab("trace", "experiments/urbannest-onboarding.json", "--users", "2000", "-q", "-o", other).code == 0)
    let refused = funnellab("infer", other, "--variants-from", "experiments/klick-onboarding.json", "-o", try temporaryFile("x.json"))
    #expect(refused.code == 65 && refused.err.contains("do not apply to the flow inferred from"), "\(refused.err)")
  }

  /// A log of two variants, read one variant at a time (`--variant-property` with `--variant`).
  @Test func oneVariantOfALogOfSeveral() throws {
    let log = try temporaryFile("two.ndjson")
    let users = TestStage.size(fast: 3_000, long: 8_000)
    let trace = funnellab(
      "trace", "experiments/urbannest-onboarding.json", "--users", String(users), "--variant", "control", "--variant", "twoSlides",
      "--variant-property", "variant", "-q", "-o", log)
    try #require(trace.code == 0, "\(trace.err)")
    let inferred = try temporaryFile("two-slides.json")
    let r = funnellab("infer", log, "--variant-property", "variant", "--variant", "twoSlides", "-o", inferred, "--format", "json")
    try #require(r.code == 0, "\(r.err)")
    #expect(Self.number(try JSONParser.parse(r.out), "users") == Double(users))
    let exact = funnellab("exact", "experiments/urbannest-onboarding.json", "--variant", "twoSlides", "--format", "json")
    guard case .array(let variants)? = try JSONParser.parse(exact.out)["variants"]?.kind, let b = variants.last else {
      Issue.record("no exact variants")
      return
    }
    let truth = try #require(Self.number(b["metrics"], "completionRate"))
    let predicted = try #require(Self.number(try Self.exact(inferred), "completionRate"))
    #expect(abs(predicted - truth) <= 3 * (truth * (1 - truth) / Double(users)).squareRoot(), "\(predicted) against \(truth)")
    #expect(funnellab("infer", log, "--variant", "b").err.contains("--variant needs --variant-property"))
  }

  /// A spec whose behavior model is neutral walks its explicit probabilities; inferred from
  /// its trace, every action's probability lies within its band of the seed's.
  @Test func probabilitiesRecoverANeutralSpecs() throws {
    let seed = """
      {"name": "neutral", "seed": 5, "users": 1000,
       "behavior": {"fatiguePerScreen": 0, "requiredInputFriction": 0, "optionalSkipShare": 0, "intentOnQuit": 0,
         "intentOnPurchase": 0, "investmentPerScreen": 0, "personalizationBoost": 0, "defaultPlanBias": 0, "badgeBoost": 0,
         "priceSensitivity": 0, "featureUtility": 0},
       "flow": {"screens": [
         {"id": "a", "kind": "info", "actions": {"continue": 0.8, "skip": {"to": "c", "probability": 0.1}, "quit": 0.1}},
         {"id": "b", "kind": "info", "actions": {"continue": 0.7, "back": 0.2, "quit": 0.1}},
         {"id": "c", "kind": "input", "validationFailureProbability": 0.2, "actions": {"type": 0.85, "quit": 0.15}}
       ]},
       "variants": [{"id": "control"}]}
      """
    let truth: [String: Double] = [
      "a/continue": 0.8, "a/skip": 0.1, "a/quit": 0.1, "b/continue": 0.7, "b/back": 0.2, "b/quit": 0.1, "c/type": 0.85, "c/quit": 0.15,
    ]
    let specPath = try temporaryFile("neutral.json", contents: seed)
    let log = try temporaryFile("neutral.ndjson")
    let inferred = try temporaryFile("inferred.json")
    try #require(funnellab("trace", specPath, "--users", "20000", "-q", "-o", log).code == 0)
    let r = funnellab("infer", log, "-o", inferred, "--format", "json")
    try #require(r.code == 0, "\(r.err)")
    guard case .array(let actions)? = try JSONParser.parse(r.out)["actions"]?.kind else {
      Issue.record("no actions")
      return
    }
    let band = StatisticalBand(checks: truth.count + 1)
    var seen = 0
    for a in actions {
      guard case .string(let screen)? = a["screen"]?.kind, case .string(let id)? = a["id"]?.kind,
        let p = truth["\(screen)/\(id)"], let count = Self.number(a, "count"), let share = Self.number(a, "probability")
      else { continue }
      seen += 1
      let n = count / share
      band.expect(share, exact: p, standardError: (p * (1 - p) / n).squareRoot(), "\(screen)/\(id)")
    }
    #expect(seen == truth.count)
    // The input's failures: 20 % of its attempts.
    let spec = try JSONParser.parse(try String(contentsOfFile: inferred, encoding: .utf8))
    guard case .array(let screens)? = spec["flow"]?["screens"]?.kind, let c = screens.last else { return }
    let v = try #require(Self.number(c, "validationFailureProbability"))
    band.expect(v, exact: 0.2, standardError: 0.005, "validation failures")
  }

  /// Users who act differently when they return to a screen, and users who come back after
  /// quitting, are named; the first-order model is kept but flagged.
  @Test func historyDependenceAndReturnsAreNamed() throws {
    var lines: [String] = []
    func event(_ user: Int, _ t: Int, _ name: String, _ properties: String) {
      lines.append("{\"user_id\":\(user),\"timestamp_ms\":\(t),\"event\":\"\(name)\",\"properties\":{\(properties)}}")
    }
    for u in 0..<600 {
      var t = 0
      func view(_ s: String) {
        event(u, t, "onboarding_screen_viewed", "\"screen_name\":\"\(s)\"")
        t += 1000
      }
      view("a")
      event(u, t, "onboarding_continued", "\"screen_name\":\"a\",\"action\":\"continue\"")
      view("b")
      event(u, t, "onboarding_back_pressed", "\"from_screen\":\"b\",\"action\":\"back\"")
      view("a")
      // On the first visit everyone went on; back on a, most quit.
      if u % 4 == 0 {
        event(u, t, "onboarding_continued", "\"screen_name\":\"a\",\"action\":\"continue\"")
        view("b")
        event(u, t, "onboarding_continued", "\"screen_name\":\"b\",\"action\":\"continue\"")
        event(u, t, "onboarding_completed", "")
      } else {
        event(u, t, "onboarding_abandoned", "\"last_screen\":\"a\",\"reason\":\"quit\",\"action\":\"quit\"")
      }
      if u < 5 {
        // Back after quitting.
        view("a")
        event(u, t, "onboarding_abandoned", "\"last_screen\":\"a\",\"reason\":\"quit\",\"action\":\"quit\"")
      }
    }
    let log = try temporaryFile("history.ndjson", contents: lines.joined(separator: "\n") + "\n")
    let out = try temporaryFile("inferred.json")
    let r = funnellab("infer", log, "-o", out, "--format", "json")
    try #require(r.code == 0, "\(r.err)")
    let doc = try JSONParser.parse(r.out)
    // On a, the first visit goes on and a return mostly quits; on b, the first visit goes back and a return goes on.
    guard case .array(let failures)? = doc["markovFailures"]?.kind else {
      Issue.record("no markovFailures")
      return
    }
    #expect(failures.map(\.kind) == [.string("a"), .string("b")])
    #expect(Self.number(doc, "returns") == 5)
    let table = funnellab("infer", log, "-o", out)
    #expect(table.out.contains("The first-order (Markov) model fails on a and b"), "\(table.out)")
    #expect(table.out.contains("5 users came back after their walk ended"))
  }

  /// Every problem of a log names its line and what to do, exits 65, and writes no spec.
  @Test(arguments: [
    ("", "no user's walk"),
    ("{\"event\":\"onboarding_screen_viewed\",\"timestamp_ms\":0,\"properties\":{\"screen_name\":\"a\"}}\n", ":1: no \"user_id\""),
    ("{\"user_id\":1,\"event\":\"onboarding_screen_viewed\",\"properties\":{\"screen_name\":\"a\"}}\n", ":1: no \"timestamp_ms\""),
    ("not json\n", ":1: not JSON"),
    (
      "{\"user_id\":1,\"timestamp_ms\":5,\"event\":\"onboarding_screen_viewed\",\"properties\":{\"screen_name\":\"a\"}}\n"
        + "{\"user_id\":1,\"timestamp_ms\":2,\"event\":\"onboarding_continued\",\"properties\":{\"screen_name\":\"a\"}}\n",
      ":2: time goes back for user 1"
    ),
    (
      "{\"user_id\":1,\"timestamp_ms\":5,\"event\":\"onboarding_screen_viewed\",\"properties\":{\"screen_name\":\"a\"}}\n"
        + "{\"user_id\":1,\"timestamp_ms\":6,\"event\":\"onboarding_continued\",\"properties\":{\"screen_name\":\"z\"}}\n",
      ":2: an action on 'z' while the user is on 'a'"
    ),
  ])
  func refusesABadLog(contents: String, message: String) throws {
    let log = try temporaryFile("bad.ndjson", contents: contents)
    let out = try temporaryFile("out.json", contents: "kept")
    let r = funnellab("infer", log, "-o", out)
    #expect(r.code == 65, "\(r.err)")
    #expect(r.err.contains(message), "\(r.err)")
    #expect(try String(contentsOfFile: out, encoding: .utf8) == "kept")
  }

  /// Bad lines stop `infer` as they stop `ingest` (the same reading and message), unless
  /// `--max-bad-lines` allows them; then they are skipped and counted.
  @Test func badLinesAreRefusedOrSkippedAsInIngest() throws {
    let log = try temporaryFile("u.ndjson")
    try #require(funnellab("trace", "experiments/urbannest-onboarding.json", "--users", "300", "-q", "-o", log).code == 0)
    var lines = try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
    lines.insert("not json", at: 2)
    try lines.joined(separator: "\n").write(toFile: log, atomically: true, encoding: .utf8)
    let spec = try temporaryFile("s.json", contents: "kept")
    let strict = funnellab("infer", log, "-o", spec)
    #expect(strict.code == 65, "\(strict.err)")
    #expect(strict.err.contains(":3: "), "\(strict.err)")
    #expect(
      strict.err.contains("; fix the line, or skip such lines with --max-bad-lines N (each is counted and reported)."), "\(strict.err)")
    #expect(try String(contentsOfFile: spec, encoding: .utf8) == "kept")
    let lenient = funnellab("infer", log, "-o", spec, "--max-bad-lines", "1")
    #expect(lenient.code == 0, "\(lenient.err)")
    #expect(lenient.err.contains("Skipped 1 bad line (--max-bad-lines 1)."), "\(lenient.err)")
    let ingest = funnellab("ingest", log)
    #expect(ingest.code == 65 && ingest.err.contains(":3: "), "\(ingest.err)")
  }

  @Test func reportFormatsAreWellFormed() throws {
    let log = try temporaryFile("u.ndjson")
    try #require(funnellab("trace", "experiments/urbannest-onboarding.json", "--users", "2000", "-q", "-o", log).code == 0)
    let spec = try temporaryFile("s.json")
    let html = funnellab("infer", log, "-o", spec, "--format", "html").out
    let s = ReportStructure(html)
    #expect(s.error == nil, "\(String(describing: s.error))")
    #expect(html.contains("data-role=\"decision\""))
    // The flow drawn as a graph, wide and narrow, every screen named in it.
    #expect(s.svgClasses.filter { $0.contains("flow-graph") }.count == 2)
    for screen in ["slide1", "slide2", "slide3", "registration", "completed"] { #expect(html.contains(">\(screen)</text>")) }
    let markdown = funnellab("infer", log, "-o", spec, "--format", "markdown").out
    #expect(markdown.hasPrefix("## Inferred flow"))
    // Without -o the spec goes to standard output and the report to standard error.
    let piped = funnellab("infer", log)
    #expect(piped.out.hasPrefix("{") && piped.err.contains("Inferred 4 screens"))
  }
  /// A log from lines `user ms event key=value…` (the review's shorthand).
  static func log(_ lines: String) -> String {
    lines.split(separator: "\n").compactMap { line -> String? in
      let parts = line.split(separator: " ").map(String.init)
      guard parts.count >= 3 else { return nil }
      let properties = parts.dropFirst(3).map { kv -> String in
        let pair = kv.split(separator: "=", maxSplits: 1).map(String.init)
        return "\"\(pair[0])\":\"\(pair.count > 1 ? pair[1] : "")\""
      }
      return
        "{\"user_id\":\"\(parts[0])\",\"timestamp_ms\":\(parts[1]),\"event\":\"\(parts[2])\",\"properties\":{\(properties.joined(separator: ","))}}"
    }.joined(separator: "\n") + "\n"
  }

  /// Logs a review found to break the inferred spec (each made `infer` exit 70, "does not
  /// validate") or its numbers: each now gives a valid spec whose prediction is the log's.
  @Test(arguments: [
    // Store outcomes without purchase_started: probabilities stay within 1.
    """
    a 0 onboarding_started
    a 0 onboarding_screen_viewed screen_name=pw
    a 10 pro_upgrade_tapped screen_name=pw plan=y
    a 20 purchase_cancelled plan=y
    a 20 onboarding_screen_viewed screen_name=pw
    a 30 pro_upgrade_tapped screen_name=pw plan=y
    a 40 purchase_failed plan=y
    a 40 onboarding_screen_viewed screen_name=pw
    a 50 pro_maybe_later_tapped screen_name=pw
    a 50 onboarding_completed
    """,
    // A store answer 15 minutes after the tap: the latency is capped.
    """
    a 0 onboarding_screen_viewed screen_name=pw
    a 10 pro_upgrade_tapped screen_name=pw plan=y
    a 10 purchase_started plan=y
    a 900000 purchase_succeeded plan=y
    a 900000 onboarding_completed
    """,
    // A split target whose id the log already uses.
    """
    a1 0 onboarding_screen_viewed screen_name=A
    a1 1 onboarding_continued screen_name=A action=continue
    a1 1 onboarding_screen_viewed screen_name=C
    a1 2 onboarding_continued screen_name=C action=continue
    a1 2 onboarding_completed
    b 0 onboarding_screen_viewed screen_name=A
    b 1 onboarding_continued screen_name=A action=continue
    b 1 onboarding_screen_viewed screen_name=B
    b 2 onboarding_continued screen_name=B action=continue
    b 2 onboarding_completed
    c 0 onboarding_screen_viewed screen_name=A
    c 1 onboarding_continued screen_name=A action=continue@B
    c 1 onboarding_screen_viewed screen_name=C
    c 2 onboarding_continued screen_name=C action=continue
    c 2 onboarding_completed
    """,
    // A choice whose only select led nowhere (a timeout), a paywall left by an exit.
    """
    a 0 onboarding_screen_viewed screen_name=A
    a 1 onboarding_continued screen_name=A action=continue
    a 1 onboarding_screen_viewed screen_name=C
    a 2 goal_selected screen_name=C goal=x action=pick
    a 3 onboarding_abandoned reason=timeout last_screen=C
    b 0 onboarding_screen_viewed screen_name=A
    b 1 onboarding_continued screen_name=A action=continue
    b 1 onboarding_screen_viewed screen_name=C
    b 2 onboarding_continued screen_name=C action=continue
    b 2 onboarding_completed
    c 0 onboarding_screen_viewed screen_name=A
    c 1 onboarding_continued screen_name=A action=toPaywall
    c 1 onboarding_screen_viewed screen_name=pw
    c 1 pro_upsell_viewed screen_name=pw
    c 5 onboarding_abandoned reason=exit last_screen=pw
    """,
  ])
  func aReviewedLogGivesAValidSpec(lines: String) throws {
    let log = try temporaryFile("review.ndjson", contents: Self.log(lines))
    let spec = try temporaryFile("inferred.json")
    let r = funnellab("infer", log, "-o", spec, "--format", "json")
    try #require(r.code == 0, "\(r.err)")
    #expect(funnellab("validate", spec).code == 0)
    let report = try JSONParser.parse(r.out)
    let observed = try #require(Self.number(report, "completionRate"))
    let predicted = try #require(Self.number(report, "predictedCompletionRate"))
    #expect(abs(observed - predicted) < 1e-9, "predicted \(predicted), observed \(observed)")
    guard case .array(let screens)? = report["screens"]?.kind else { return }
    for s in screens { #expect((Self.number(s, "reach") ?? 2) <= 1) }
  }

  /// An exit without an action (and a new walk over an open one) is an abandonment where the
  /// user stood: 10 of 20 users complete, and the spec predicts 50 %, not 100 %.
  @Test func exitsAndRestartsAbandonWhereTheUserStood() throws {
    var lines = ""
    for u in 0..<10 {
      lines += "c\(u) 0 onboarding_screen_viewed screen_name=A\nc\(u) 1 onboarding_continued screen_name=A action=continue\n"
      lines += "c\(u) 1 onboarding_completed\n"
      lines +=
        u % 2 == 0
        ? "x\(u) 0 onboarding_screen_viewed screen_name=A\nx\(u) 1 onboarding_abandoned reason=exit last_screen=A\n"
        : "x\(u) 0 onboarding_screen_viewed screen_name=A\nx\(u) 1 onboarding_started\nx\(u) 2 onboarding_screen_viewed screen_name=A\n"
          + "x\(u) 3 onboarding_abandoned reason=quit last_screen=A action=quit\n"
    }
    let log = try temporaryFile("exits.ndjson", contents: Self.log(lines))
    let spec = try temporaryFile("inferred.json")
    let r = funnellab("infer", log, "-o", spec, "--format", "json")
    try #require(r.code == 0, "\(r.err)")
    let report = try JSONParser.parse(r.out)
    #expect(Self.number(report, "users") == 25)
    #expect(abs((Self.number(report, "predictedCompletionRate") ?? 0) - 10.0 / 25) < 1e-9)
  }

  /// The log's size is bounded where it enters: actions per screen, plans, options, users on
  /// the way; and --name must name.
  @Test func limitsAndNames() throws {
    var lines = "a 0 onboarding_screen_viewed screen_name=A\n"
    for k in 0..<70 { lines += "u\(k) 0 onboarding_screen_viewed screen_name=A\nu\(k) 1 onboarding_continued screen_name=A action=a\(k)\n" }
    let log = try temporaryFile("actions.ndjson", contents: Self.log(lines))
    let r = funnellab("infer", log, "-o", try temporaryFile("s.json"))
    #expect(r.code == 65 && r.err.contains("actions on 'A'"), "\(r.err)")
    // The report's intervals are 1 − α, labelled from it.
    let log90 = funnellab(
      "infer", "experiments/data/klick-events.ndjson", "--events-map", "experiments/data/klick-events-map.json", "--variant-property",
      "variant", "--variant", "control", "--alpha", "0.1", "-o", try temporaryFile("a.json"))
    #expect(log90.code == 0 && log90.out.contains("reach [90% CI]") && log90.out.contains("p [90% CI]"), "\(log90.err)")
    let named = funnellab("infer", "experiments/data/klick-events.ndjson", "--name", " ", "-o", try temporaryFile("n.json"))
    #expect(named.code == 64 && named.err.contains("--name"), "\(named.err)")
  }

  /// A walk to completion by user `user`, its events carrying `extra` (`key=value` pairs).
  static func completedWalk(_ user: String, _ extra: String = "") -> String {
    "\(user) 0 onboarding_screen_viewed screen_name=A \(extra)\n\(user) 1 onboarding_continued screen_name=A action=continue \(extra)\n"
      + "\(user) 1 onboarding_completed \(extra)\n"
  }

  /// `--segment-property` that names no user's segment is refused, not ignored: 65 naming the
  /// option, its value and the log, whether no event has the property or its values are empty
  /// or objects; the user id is refused before the log is read (64).
  @Test func aSegmentPropertyThatNamesNoSegmentIsRefused() throws {
    let absent = try temporaryFile("plain.ndjson", contents: Self.log(Self.completedWalk("a") + Self.completedWalk("b")))
    let spec = try temporaryFile("s.json", contents: "kept")
    let r = funnellab("infer", absent, "--segment-property", "segment", "-o", spec)
    #expect(r.code == 65, "\(r.err)")
    #expect(r.err.contains("Error: \(absent): --segment-property segment names no segment: no event has it;"), "\(r.err)")
    #expect(r.err.contains("or leave --segment-property out."), "\(r.err)")
    #expect(try String(contentsOfFile: spec, encoding: .utf8) == "kept")
    let object = Self.log(Self.completedWalk("a", "segment=")).replacingOccurrences(of: "\"segment\":\"\"", with: "\"segment\":{\"x\":1}")
    let objects = try temporaryFile("objects.ndjson", contents: object + Self.log(Self.completedWalk("b", "segment=")))
    let o = funnellab("infer", objects, "--segment-property", "segment", "-o", spec)
    #expect(o.code == 65, "\(o.err)")
    #expect(o.err.contains("no event holds it as text (events hold it 3 as an object, 3 empty)"), "\(o.err)")
    let user = funnellab("infer", absent, "--segment-property", "user_id", "-o", spec)
    #expect(user.code == 64 && user.err.contains("--segment-property user_id: user_id is not a segment"), "\(user.err)")
  }

  /// A `timestamp_ms` out of range (before the epoch, past year 9999, 1e30) is said to be so,
  /// with the bound and the line, not called missing.
  @Test(arguments: ["-5", "1e30", "253402300800000"])
  func anOutOfRangeTimeNamesItsBound(stamp: String) throws {
    let log = try temporaryFile("time.ndjson", contents: Self.log("a \(stamp) onboarding_screen_viewed screen_name=A\n"))
    let r = funnellab("infer", log, "-o", try temporaryFile("s.json"))
    #expect(r.code == 65, "\(r.err)")
    #expect(
      r.err.contains(
        "\(log):1: \"timestamp_ms\" \(stamp) is out of range (0 to 253402300799999, the last millisecond of year 9999)"),
      "\(r.err)")
    let line =
      "{\"user_id\":\"a\",\"timestamp_ms\":\"soon\",\"event\":\"onboarding_screen_viewed\","
      + "\"properties\":{\"screen_name\":\"A\"}}\n"
    let word = funnellab("infer", try temporaryFile("w.ndjson", contents: line), "-o", try temporaryFile("s.json"))
    #expect(word.code == 65 && word.err.contains(":1: \"timestamp_ms\" 'soon' is not a number of milliseconds"), "\(word.err)")
  }

  /// `--variant` that no event names is a usage error naming it and the log's variants,
  /// closest first; a `--variant-property` no event has is named instead.
  @Test func aVariantNotInTheLogListsThoseThatAre() throws {
    let log = try temporaryFile(
      "two.ndjson",
      contents: Self.log(Self.completedWalk("a", "variant=control") + Self.completedWalk("b", "variant=twoSlides")))
    let r = funnellab("infer", log, "--variant-property", "variant", "--variant", "twoSlide", "-o", try temporaryFile("s.json"))
    #expect(r.code == 64, "\(r.err)")
    #expect(
      r.err.hasPrefix(
        "Error: --variant twoSlide: no event of \(log) has \"variant\": \"twoSlide\"; the log's variants (closest first): 'twoSlides', 'control'"
      ), "\(r.err)")
    let property = funnellab("infer", log, "--variant-property", "arm", "--variant", "control", "-o", try temporaryFile("s.json"))
    #expect(property.code == 64, "\(property.err)")
    #expect(property.err.hasPrefix("Error: --variant-property arm: no event of \(log) has the property \"arm\""), "\(property.err)")
  }

  /// An empty `--events-map` is refused as the map's problem (65, naming the map), before
  /// any log line is read, in every command that takes one.
  @Test(arguments: ["infer", "ingest", "trace"])
  func anEmptyEventsMapIsRefused(command: String) throws {
    let map = try temporaryFile("map.json", contents: "{}")
    let log = try temporaryFile("plain.ndjson", contents: Self.log(Self.completedWalk("a")))
    let r = funnellab(command == "trace" ? ["trace", "--users", "10", "--events-map", map] : [command, log, "--events-map", map])
    #expect(r.code == 65, "\(r.err)")
    #expect(r.err.contains("\(map): (document) (line 1): maps no event;"), "\(r.err)")
    #expect(r.out.isEmpty)
  }
}
