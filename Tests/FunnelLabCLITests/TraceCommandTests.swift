import Foundation
import FunnelLab
import Testing

@testable import FunnelLabCLI

/// `funnellab trace`: the events, summed over users, are the counts of `run`.
@Suite struct TraceCommandTests {
  static let experiment = "experiments/klick-onboarding.json"

  @Test(arguments: [
    ("experiments/klick-onboarding.json", "control"), ("experiments/klick-onboarding.json", "upsellAfter3"),
    ("experiments/klick-onboarding.json", "goalOptional"), ("experiments/betfree-onboarding.json", ""),
    ("experiments/urbannest-onboarding.json", ""), ("experiments/ncdb-first-launch.json", ""),
  ])
  func eventCountsEqualTheRunAggregates(path: String, variantID: String) throws {
    let experiment = try ExperimentLoader.load(contentsOf: path)
    let variant = variantID.isEmpty ? experiment.variants.last?.id ?? "" : variantID
    guard experiment.variants.contains(where: { $0.id == variant }) else {
      Issue.record("no variant \(variant) in \(experiment.variants.map(\.id))")
      return
    }
    let users = 4000
    let seed: UInt64 = 99
    let trace = try UserTrace.trace(experiment, variant: variant, users: users, seed: seed)
    let result = try ExperimentRunner.run(experiment, options: RunOptions(users: users, seed: seed, threads: 2, variants: [variant]))
    let run = try #require(result.variant(variant))
    let a = run.aggregate
    let f = run.flow
    #expect(trace.aggregate == a, "the trace walks are the run's walks")
    #expect(trace.count("onboarding_started") == users)
    #expect(UInt64(trace.count("onboarding_screen_viewed")) == a.views.reduce(0, +))
    let paywallViews = f.screenKinds.indices.filter { f.screenKinds[$0] == .paywall }.map { a.views[$0] }.reduce(0, +)
    #expect(UInt64(trace.count("pro_upsell_viewed")) == paywallViews)
    #expect(UInt64(trace.count("onboarding_completed")) == a[.completed])
    #expect(UInt64(trace.count("onboarding_abandoned")) == a.abandoned)
    let skips = f.actions.indices.filter { f.actions[$0].kind == .skip }.map { a.actionCounts[$0] }.reduce(0, +)
    #expect(UInt64(trace.count("onboarding_skipped")) == skips)
    let skippers = Set(trace.events.filter { $0.name == "onboarding_skipped" }.map(\.user))
    #expect(UInt64(skippers.count) == a[.usersWhoSkipped])
    let backs = f.actions.indices.filter { f.actions[$0].kind == .back }.map { a.actionCounts[$0] }.reduce(0, +)
    #expect(UInt64(trace.count("onboarding_back_pressed")) == backs)
    #expect(UInt64(trace.count("purchase_started")) == a[.purchaseTaps])
    #expect(UInt64(trace.count("purchase_succeeded")) == a[.purchasers])
    #expect(UInt64(trace.count("purchase_cancelled")) == a[.purchaseCancels])
    #expect(UInt64(trace.count("purchase_failed")) == a[.purchaseFailures])
    #expect(UInt64(trace.count("purchase_pending")) == a[.purchasePendings])
    #expect(UInt64(trace.count("purchase_restored")) == a[.restores])
    #expect(UInt64(trace.count("goal_selected")) <= a.optionCounts.reduce(0, +))
    let goalUsers = Set(trace.events.filter { $0.name == "goal_selected" }.map(\.user))
    #expect(UInt64(goalUsers.count) == a[.usersPersonalized])
    // Timestamps never go backwards within a user.
    var last: [UInt64: UInt64] = [:]
    for e in trace.events {
      #expect(e.millis >= last[e.user, default: 0])
      last[e.user] = e.millis
    }
  }

  /// `--first-user k` gives users k..<k+n of a longer trace, line for line, in every shape.
  @Test(arguments: ["funnellab", "clickstream"])
  func aTraceInPartsIsTheLongerTrace(shape: String) {
    let whole = funnellab("trace", "--users", "30", "--log-format", shape)
    let part = funnellab("trace", "--first-user", "20", "--users", "10", "--log-format", shape)
    #expect(whole.code == 0 && part.code == 0, "\(part.err)")
    let lines = whole.out.split(whereSeparator: \.isNewline)
    let tail = part.out.split(whereSeparator: \.isNewline)
    let header = shape == "clickstream" ? 1 : 0
    let first = lines.firstIndex { $0.hasPrefix("{\"user_id\":20,") || $0.hasPrefix("u20,") } ?? lines.count
    #expect(Array(lines[first...]) == Array(tail.dropFirst(header)))
    #expect(tail.count > header + 10, "\(part.out.prefix(300))")
    #expect(funnellab("trace", "--first-user", "-1").code == 64)
  }

  @Test func ndjsonLinesAreWellFormedAndDeterministic() throws {
    let r = funnellab("trace", Self.experiment, "--users", "50", "--variant", "control", "--format", "ndjson")
    #expect(r.code == 0, "\(r.err)")
    let lines = r.out.split(separator: "\n")
    #expect(!lines.isEmpty)
    for line in lines {
      let event = try JSONParser.parse(String(line))
      #expect(event["user_id"] != nil && event["timestamp_ms"] != nil && event["properties"] != nil)
      if case .string(let name)? = event["event"]?.kind { #expect(TraceEvent.names.contains(name)) } else { Issue.record("no event name") }
    }
    #expect(r.out == funnellab("trace", Self.experiment, "--users", "50", "--variant", "control").out)
    let first = try JSONParser.parse(String(lines[0]))
    #expect(first["event"]?.kind == .string("onboarding_started"))
    #expect(r.out.contains("\"event\":\"onboarding_screen_viewed\",\"properties\":{\"screen_number\":1,\"screen_name\":\"welcome\"}"))
  }

  @Test func theMappingFileRenamesEvents() throws {
    let map = try temporaryFile(
      "events.json", contents: #"{"onboarding_started": "Onboarding Started", "purchase_succeeded": "subscription_purchased"}"#)
    let r = funnellab("trace", "--users", "300", "--events-map", map)
    #expect(r.code == 0, "\(r.err)")
    #expect(r.out.contains("\"event\":\"Onboarding Started\""))
    #expect(!r.out.contains("\"event\":\"onboarding_started\""))
    #expect(r.out.contains("\"event\":\"onboarding_screen_viewed\""), "unmapped names are kept")
  }

  @Test func aBadMappingFileExits65WithEveryProblem() throws {
    let map = try temporaryFile("events.json", contents: "{\n  \"onboarding_strted\": \"x\",\n  \"goal_selected\": 3\n}\n")
    let r = funnellab("trace", "--users", "10", "--events-map", map)
    #expect(r.code == 65)
    #expect(r.err.contains("unknown event 'onboarding_strted'"))
    #expect(r.err.contains("did you mean 'onboarding_started'?"))
    #expect(r.err.contains("goal_selected"))
    #expect(r.err.contains("2 problems"))
    #expect(r.out.isEmpty)
    let broken = try temporaryFile("broken.json", contents: "{\"onboarding_started\": ")
    #expect(funnellab("trace", "--events-map", broken).code == 65)
    let notAnObject = try temporaryFile("list.json", contents: "[]")
    #expect(funnellab("trace", "--events-map", notAnObject).code == 65)
    #expect(funnellab("trace", "--events-map", "/nonexistent/map.json").code == 66)
  }

  /// Two events renamed to one name (or one renamed to another event's name) would merge
  /// two events in the trace: refused, naming both.
  @Test(arguments: [
    ("{\"onboarding_started\": \"Start\", \"onboarding_completed\": \"Start\"}", "would both be named 'Start'"),
    ("{\"onboarding_started\": \"onboarding_completed\"}", "would both be named 'onboarding_completed'"),
  ])
  func renamesThatCollideAreRefused(map: String, message: String) throws {
    let path = try temporaryFile("collide.json", contents: map + "\n")
    let r = funnellab("trace", "--users", "10", "--events-map", path)
    #expect(r.code == 65, "\(r.err)")
    #expect(r.err.hasPrefix("\(path): onboarding_"), "\(r.err)")
    #expect(r.err.contains(message), "\(r.err)")
    #expect(r.out.isEmpty)
  }

  /// Several --variant: each variant's trace, one after the other, every event naming its variant.
  @Test func severalVariantsFollowOneAnother() {
    let both = funnellab("trace", "--users", "40", "--variant", "control", "--variant", "features3", "--variant-property", "arm")
    #expect(both.code == 0, "\(both.err)")
    let control = funnellab("trace", "--users", "40", "--variant", "control", "--variant-property", "arm")
    let features3 = funnellab("trace", "--users", "40", "--variant", "features3", "--variant-property", "arm")
    #expect(!control.out.isEmpty && both.out == control.out + features3.out)
    let unnamed = funnellab("trace", "--users", "40", "--variant", "control", "--variant", "features3")
    #expect(unnamed.code == 64 && unnamed.out.isEmpty)
    #expect(unnamed.err.contains("add --variant-property variant"), "\(unnamed.err)")
    let twice = funnellab("trace", "--variant", "control", "--variant", "control", "--variant-property", "arm")
    #expect(twice.code == 64 && twice.err.contains("a variant is named twice"), "\(twice.err)")
  }

  @Test func unknownVariantAndBadArguments() {
    let r = funnellab("trace", "--variant", "contrl")
    #expect(r.code == 64)
    #expect(r.err.hasPrefix("Error: --variant 'contrl': klick-onboarding has no such variant; did you mean 'control'?"))
    #expect(funnellab("trace", "--format", "csv").code == 64)
    #expect(funnellab("trace", "--users", "0").code == 64)
  }

  /// A trace estimated (from its first 1,000 users) to pass --max-output-mb is refused before
  /// anything is written; under the limit it runs. Klick writes about 1.8 KB per user.
  @Test func anOversizedTraceIsRefusedBeforeWriting() throws {
    let out = try temporaryFile("trace.ndjson")
    let big = funnellab("trace", "--users", "20000", "--max-output-mb", "10", "-o", out)
    #expect(big.code == 64)
    #expect(big.err.hasPrefix("Error: the trace would be about 35 MB (1,782 bytes per user over the first 1,000 users)"), "\(big.err)")
    #expect(big.err.contains("raise the limit with --max-output-mb 36"), "\(big.err)")
    #expect(!FileManager.default.fileExists(atPath: out))
    let small = funnellab("trace", "--users", "2000", "--max-output-mb", "10")
    #expect(small.code == 0 && small.out.utf8.count > 3_000_000)
  }
}
