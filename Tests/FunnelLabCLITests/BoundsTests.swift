import Foundation
import FunnelTestSupport
import Testing

@testable import FunnelLab
@testable import FunnelLabCLI

/// Issue 14, "every number from a user is bounded": each hostile case of the issue,
/// reproduced, gives its documented exit code and a message naming the field and the
/// limit — never a trap, a hang or a silent result.
@Suite struct BoundsTests {
  /// `tinySpec` of the library tests, as a JSON object to break one field at a time.
  static func tiny() throws -> [String: Any] {
    let text = """
      {"name": "tiny", "seed": 1, "users": 1000,
       "flow": {"screens": [
         {"id": "intro", "kind": "info", "actions": {"continue": 0.8, "skip": {"to": "goal", "probability": 0.1}, "quit": 0.1}},
         {"id": "goal", "kind": "choice", "options": ["a", "b"], "actions": {"select": 0.9, "back": 0.05, "quit": 0.05}},
         {"id": "paywall", "kind": "paywall",
          "plans": [{"id": "monthly", "price": 9.99, "period": "month"}, {"id": "yearly", "price": 59.99, "period": "year"}],
          "defaultPlan": "yearly", "actions": {"purchase": 0.1, "dismiss": 0.85, "quit": 0.05}}]},
       "variants": [{"id": "control"}, {"id": "optional", "patches": [{"op": "setRequired", "screen": "goal", "required": false}]}]}
      """
    return try #require(JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
  }

  static func write(_ spec: [String: Any], _ name: String) throws -> String {
    let data = try JSONSerialization.data(withJSONObject: spec, options: [.sortedKeys])
    return try temporaryFile(name, contents: String(decoding: data, as: UTF8.self))
  }

  struct SpecCase: CustomTestStringConvertible, Sendable {
    var name: String
    var path: String
    var message: String
    var testDescription: String { name }
  }

  static let specCases: [SpecCase] = [
    SpecCase(name: "two segment weights of 1e308", path: "population.segments[0].weight", message: "at most 1000000000000"),
    SpecCase(name: "users 2^62", path: "users", message: "at most 10000000000, got 4611686018427387904"),
    SpecCase(name: "users 1e12", path: "users", message: "at most 10000000000, got 1000000000000"),
    SpecCase(name: "stepLimit 2^63-1 on a near-absorbing loop", path: "simulation.stepLimit", message: "from 1 to 10000"),
    SpecCase(name: "10000 segments", path: "population.segments", message: "10000 segments; at most 100"),
    SpecCase(
      name: "traitBins 4096 x screensSeenCap 64 x 60 plans", path: "simulation.traitBins", message: "more than the limit of 1024 MiB"),
    SpecCase(name: "a grid of 10^7 cells", path: "grid", message: "10000000 cells; at most 10000"),
    SpecCase(name: "a grid of 2^70 cells", path: "grid", message: "more than 2^63 cells; at most 10000"),
    SpecCase(name: "allocation all zero", path: "design.allocation", message: "every arm has allocation weight 0"),
    SpecCase(name: "duplicate expectation ids", path: "expectations[1].id", message: "duplicate expectation id 'x'"),
    SpecCase(name: "65 plans", path: "flow.screens", message: "65 plans; at most 64"),
  ]

  /// The spec of a case: `tinySpec` broken in one place.
  static func spec(_ name: String) throws -> [String: Any] {
    var s = try tiny()
    func screens() -> [[String: Any]] { ((s["flow"] as? [String: Any])?["screens"] as? [[String: Any]]) ?? [] }
    func setScreens(_ list: [[String: Any]]) { s["flow"] = ["screens": list] }
    switch name {
    case "two segment weights of 1e308":
      s["population"] = ["segments": [["id": "a", "weight": 1e308], ["id": "b", "weight": 1e308]]]
    case "users 2^62": s["users"] = 1 << 62
    case "users 1e12": s["users"] = 1_000_000_000_000
    case "stepLimit 2^63-1 on a near-absorbing loop":
      s["simulation"] = ["stepLimit": Int.max]
      var list = screens()
      list[0]["actions"] = [
        "continue": 0.0000005, "loop": ["kind": "jump", "to": "intro", "probability": 0.999999], "quit": 0.0000005,
      ]
      setScreens(list)
    case "10000 segments":
      s["population"] = ["segments": (0..<10_000).map { ["id": "s\($0)"] }]
    case "traitBins 4096 x screensSeenCap 64 x 60 plans", "65 plans":
      let count = name == "65 plans" ? 65 : 60
      if name != "65 plans" {
        s["simulation"] = ["traitBins": 4096]
        s["behavior"] = ["screensSeenCap": 64]
      }
      var list = screens()
      list[2]["plans"] = (0..<count).map { ["id": "p\($0)", "price": 9.99, "period": "month"] }
      list[2]["defaultPlan"] = "p0"
      setScreens(list)
    case "a grid of 10^7 cells", "a grid of 2^70 cells":
      let (factors, levels) = name.contains("10^7") ? (7, 10) : (70, 2)
      s["grid"] = ["factors": (0..<factors).map { f in ["id": "f\(f)", "levels": (0..<levels).map { ["id": "l\($0)"] }] }]
    case "allocation all zero":
      s["design"] = ["allocation": ["control": 0, "optional": 0]]
    case "duplicate expectation ids":
      s["expectations"] = [
        ["id": "x", "kind": "range", "variant": "control", "metric": "completionRate", "min": 0.1],
        ["id": "x", "kind": "range", "variant": "control", "metric": "completionRate", "max": 0.9],
      ]
    default: Issue.record("no spec for \(name)")
    }
    return s
  }

  /// `validate` refuses each case before anything is built; `run` and `exact` refuse it
  /// the same way and write nothing.
  @Test(arguments: specCases)
  func hostileSpecsAreRefusedByValidateRunAndExact(c: SpecCase) throws {
    let path = try Self.write(try Self.spec(c.name), "hostile.json")
    let output = try temporaryFile("out.json")
    for command in [["validate", path], ["run", path, "--users", "100", "-o", output], ["exact", path, "-o", output]] {
      let r = funnellab(command)
      #expect(r.code == 65, "\(command[0]): \(r.err)")
      #expect(r.err.contains("\(c.path) (line"), "\(command[0]): \(r.err)")
      #expect(r.err.contains(c.message), "\(command[0]): \(r.err)")
      #expect(r.out.isEmpty)
      #expect(!FileManager.default.fileExists(atPath: output))
    }
  }

  @Test(arguments: [
    ["--baseline", "0.1", "--mde", "1e-10"],
    ["--baseline", "0.1", "--mde", "1e-10", "--format", "json"],
    ["--baseline", "1e-300", "--mde", "1e-300"],
    ["--baseline", "0.5", "--mde", "1e-9", "--format", "html"],
  ])
  func aSampleSizeBeyondTheLimitIsAnErrorNotATrapOrIntMax(arguments: [String]) {
    let r = funnellab(["power"] + arguments)
    #expect(r.code == 64, "a command-line value: \(r.err)")
    #expect(r.err.hasPrefix("Error: --users-per-arm: the design needs"), "\(r.err)")
    #expect(r.err.contains("more than the limit of 1000000000000"))
    #expect(r.out.isEmpty, "no JSON with totalUsers \(Int.max)")
  }

  @Test(arguments: [
    (["a=10:5:1e300:1e300", "b=10:5:1:1"], "--arm 'a=10:5:1e300:1e300' (revenue): |sum| must be at most 1e30"),
    (
      ["c=1:1", "t=9223372036854775807:1"],
      "--arm 't=9223372036854775807:1' (users): 9223372036854775807 is above the limit of 1000000000000000"
    ),
    (["c=10:2:50:10", "t=10:2"], "--arm 'c=10:2:50:10' (revenue.sumOfSquares): 10.0 is below sum²/n = 250.0"),
    (["c=10:-2", "t=10:2"], "--arm 'c=10:-2' (conversions): is negative (-2)"),
    (["c=-10:2", "t=10:2"], "--arm 'c=-10:2' (users): is negative (-10)"),
    (["c=10:11", "t=10:2"], "--arm 'c=10:11' (conversions): 11 conversions exceed 10 users"),
  ])
  func infeasibleOrHugeArmsAreRefused(arms: [String], message: String) {
    let r = funnellab(["analyze"] + arms.flatMap { ["--arm", $0] })
    #expect(r.code == 64, "a command-line value: \(r.err)")
    #expect(r.err.contains(message), "\(r.err)")
    #expect(!r.err.contains("the control has no users"), "no spurious follow-up error")
    #expect(r.out.isEmpty)
  }

  @Test func aCSVWithCountsNearInt64MaxIsRefusedInEveryFormat() throws {
    let csv = try temporaryFile(
      "arms.csv", contents: "arm,users,conversions\ncontrol,9223372036854775807,9223372036854775806\nb,9223372036854775000,1\n")
    for format in ["table", "json", "csv", "markdown", "html"] {
      let r = funnellab("analyze", "--data", csv, "--format", format)
      #expect(r.code == 65, "\(r.err)")
      #expect(r.err.contains("arms.csv:2 (users): 9223372036854775807 is above the limit of 1000000000000000"), "\(r.err)")
      #expect(r.out.isEmpty)
    }
    // At the limit, the report is written.
    let atLimit = try temporaryFile("arms.csv", contents: "arm,users,conversions\ncontrol,1000000000000000,1000\nb,1000000000000000,1100\n")
    #expect(funnellab("analyze", "--data", atLimit).code == 0)
  }

  @Test(arguments: [
    (["fatiguePerScreen=0:1:1e-300"], "--vary 'fatiguePerScreen=0:1:1e-300': more than 5000 values"),
    (["fatiguePerScreen=0:inf:1"], "expected from:to:step, finite numbers"),
    (["fatiguePerScreen=-1e308:1e308:1e307"], "fatiguePerScreen goes from -20 to 20"),
    (["fatiguePerScreen=-20:20:1e-9"], "more than 5000 values"),
    (["fatiguePerScreen=0:20:1e-6"], "more than 5000 values"),
    (["fatiguePerScreen=0:nan:1"], "expected from:to:step, finite numbers"),
    (["fatiguePerScreen=0:1e9:1e-3"], "--vary 'fatiguePerScreen=0:1e9:1e-3': fatiguePerScreen goes from -20 to 20"),
    (
      [
        "fatiguePerScreen=0:0.99:0.01", "intentOnQuit=0:0.99:0.01", "intentOnPurchase=0:0.99:0.01", "badgeBoost=0:0.99:0.01",
        "defaultPlanBias=0:0.99:0.01",
      ], "the --vary axes give more than 5000 points (100 × 100 × 100 × 100 × 100)"
    ),
  ])
  func sensitivityAxesAreCountedBeforeTheyAreBuilt(varies: [String], message: String) {
    let r = funnellab(["sensitivity"] + varies.flatMap { ["--vary", $0] })
    #expect(r.code == 64, "\(r.err)")
    #expect(r.err.contains(message), "\(r.err)")
    #expect(r.out.isEmpty)
  }

  @Test func fiveAxesOfTenThousandValuesAreRefusedAtTheFirstAxis() {
    let params = ["fatiguePerScreen", "intentOnQuit", "intentOnPurchase", "badgeBoost", "defaultPlanBias"]
    let r = funnellab(["sensitivity"] + params.flatMap { ["--vary", "\($0)=0:0.9999:0.0001"] })
    #expect(r.code == 64, "\(r.err)")
    #expect(r.err.contains("--vary 'fatiguePerScreen=0:0.9999:0.0001': more than 5000 values"), "\(r.err)")
  }
}

/// Issue 14, "integrity of everything read back": shard files carry a checksum and
/// consistent counts; calibrated specs are valid before they are written.
@Suite struct IntegrityTests {
  /// The texts of the two shards of `run --users 2000`, made once for every test that edits a
  /// copy of them (each run costs seconds in a debug build); exit codes and errors beside them.
  static let runShardTexts: [(text: String, code: Int32, err: String)] = (0..<2).map { i in
    let r = funnellab(["run", "--users", "2000", "--shard", "\(i)/2"])
    return (r.out, r.code, r.err)
  }

  /// The shards of a small run, as parsed documents, each in a file of its own.
  func shards(_ base: [String], count: Int) throws -> [(path: String, document: JSONValue)] {
    let texts: [(text: String, code: Int32, err: String)]
    if base == ["run", "--users", "2000"], count == 2 {
      texts = Self.runShardTexts
    } else {
      texts = (0..<count).map { i in
        let r = funnellab(base + ["--shard", "\(i)/\(count)"])
        return (r.out, r.code, r.err)
      }
    }
    return try texts.enumerated().map { i, shard in
      #expect(shard.code == 0, "\(shard.err)")
      let path = try temporaryFile("part-\(i).json", contents: shard.text)
      return (path, try JSONParser.parse(shard.text))
    }
  }

  /// `document` with the number at `path` replaced by `literal`.
  func setting(_ document: JSONValue, _ path: [SpecPathComponent], _ literal: String) -> JSONValue {
    guard let first = path.first else { return JSONValue(.number(Double(literal) ?? 0, literal: literal)) }
    let rest = Array(path.dropFirst())
    switch (first, document.kind) {
    case (.key(let key), .object(var members)):
      if let i = members.firstIndex(where: { $0.key == key }) { members[i].value = setting(members[i].value, rest, literal) }
      return JSONValue(.object(members))
    case (.index(let i), .array(var elements)):
      if elements.indices.contains(i) { elements[i] = setting(elements[i], rest, literal) }
      return JSONValue(.array(elements))
    default:
      return document
    }
  }

  func save(_ document: JSONValue, to path: String, reseal: Bool) throws {
    try JSONWriter.write(reseal ? ContentChecksum.sealing(document) : document).write(toFile: path, atomically: true, encoding: .utf8)
  }

  func mergeRefuses(_ paths: [String], _ message: String, sourceLocation: SourceLocation = #_sourceLocation) {
    let r = funnellab(["merge"] + paths)
    #expect(r.code == 65, "\(r.err)", sourceLocation: sourceLocation)
    #expect(r.err.contains(message), "\(r.err)", sourceLocation: sourceLocation)
    #expect(r.out.isEmpty, sourceLocation: sourceLocation)
  }

  @Test func anEditedShardFailsItsChecksum() throws {
    let parts = try shards(["run", "--users", "2000"], count: 2)
    #expect(funnellab(["merge"] + parts.map(\.path)).code == 0)
    let edited = setting(parts[0].document, [.key("aggregates"), .index(0), .key("completed")], "999")
    try save(edited, to: parts[0].path, reseal: false)
    mergeRefuses(parts.map(\.path), "checksum: the checksum")
  }

  /// With the checksum recomputed (a forgery the checksum cannot catch), the counts
  /// themselves are checked: no count above its parent, users exactly the shard's.
  @Test(arguments: [
    ("completed", "1000000", "aggregates[0].users"),
    ("users", "0", "aggregates[0]"),
    ("users", "18446744073709551615", "aggregates[0]"),
    ("purchasers", "999999", "aggregates[0].purchasers"),
    ("trialConversions", "18446744073709551615", "aggregates[0].trialConversions"),
  ])
  func countsAboveTheirParentAreRefused(field: String, value: String, path: String) throws {
    let parts = try shards(["run", "--users", "2000"], count: 2)
    let edited = setting(parts[0].document, [.key("aggregates"), .index(0), .key(field)], value)
    try save(edited, to: parts[0].path, reseal: true)
    mergeRefuses(parts.map(\.path), "\(path)")
  }

  /// A reach of 2⁶⁴ − 1 in two shards is above its users; screenMillis has no parent
  /// count, so two halves of 2⁶⁴ are caught when they are added.
  @Test(arguments: [("reach", "aggregates[0].reach"), ("screenMillis", "aggregates[0]: adding")])
  func countsNearTwoToTheSixtyFourInTwoShardsAreRefusedNotWrapped(field: String, message: String) throws {
    let parts = try shards(["run", "--users", "2000"], count: 2)
    for part in parts {
      let edited = setting(part.document, [.key("aggregates"), .index(0), .key(field), .index(0)], "18446744073709551615")
      try save(edited, to: part.path, reseal: true)
    }
    mergeRefuses(parts.map(\.path), message)
  }

  @Test func planningShardsWithAnEditedSeedOrTalliesAreRefused() throws {
    let base = ["power", experimentPath("klick-onboarding"), "--variant", "features5", "--replicates", "200"]
    let parts = try shards(base, count: 2)
    #expect(funnellab(["merge"] + parts.map(\.path)).code == 0)
    let seed = setting(parts[0].document, [.key("settings"), .key("seed")], "7")
    try save(seed, to: parts[0].path, reseal: false)
    mergeRefuses(parts.map(\.path), "checksum")
    for reseal in [false, true] {
      let tallies = setting(parts[0].document, [.key("variants"), .index(0), .key("diagnosis"), .index(1)], "100000")
      try save(tallies, to: parts[0].path, reseal: reseal)
      mergeRefuses(parts.map(\.path), reseal ? "variants[0].diagnosis" : "checksum")
    }
  }

  @Test func calibrateRefusesFilesWithNothingToFit() throws {
    let spec = experimentPath("urbannest-onboarding")
    let cases: [(String, String)] = [
      ("screen,action,count\n", "the file has no counts after its header"),
      ("screen,action,count\nslide1,,0\nslide1,continue,0\n", "every count is 0"),
      ("variant,screen,action,count\nb,slide1,,10\nb,slide1,continue,8\n", "no rows of variant 'control'"),
      ("screen,action,count\nslide1,,18446744073709551615\n", "passes the limit of 1000000000000000"),
      ("screen,action,count\nslide1,,600000000000000\nslide1,,600000000000000\n", ":3: the count of slide1 views passes the limit"),
    ]
    for (csv, message) in cases {
      let path = try temporaryFile("observed.csv", contents: csv)
      let output = try temporaryFile("calibrated.json")
      let r = funnellab("calibrate", spec, path, "--write-spec", output)
      #expect(r.code == 65, "\(r.err)")
      #expect(r.err.contains(message), "\(r.err)")
      #expect(!FileManager.default.fileExists(atPath: output))
    }
    let observed = repositoryRoot.appendingPathComponent("experiments/urbannest-observed.csv").path
    let r = funnellab("calibrate", spec, observed, "--variant", "nosuch")
    #expect(r.code == 64)
    #expect(r.err.hasPrefix("Error: --variant: no variant 'nosuch' in the spec"), "\(r.err)")
  }

  /// The root cause: variants set absolute probabilities written for the old base
  /// (noSkipOnSlide1's continue 0.92 = 0.82 + skip's 0.1); they are rebalanced so the
  /// calibrated spec validates.
  @Test func theCalibratedCommittedExampleValidates() throws {
    let output = try temporaryFile("calibrated.json")
    let observed = repositoryRoot.appendingPathComponent("experiments/urbannest-observed.csv").path
    let r = funnellab("calibrate", experimentPath("urbannest-onboarding"), observed, "--write-spec", output)
    #expect(r.code == 0, "\(r.err)")
    #expect(r.err.contains("note: variants[1].patches[1]: slide1.continue 0.92 → 0.9176"), "\(r.err)")
    let v = funnellab("validate", output)
    #expect(v.code == 0, "\(v.err)")
  }

  @Test func aCalibratedSpecThatWouldBeInvalidIsNotWritten() throws {
    // A variant raising continue to 0.9 and lowering skip to 0.02: once quitting is
    // fitted to 0.86, no skip probability rebalances slide1 (it would be -0.78).
    let text = try String(contentsOfFile: experimentPath("urbannest-onboarding"), encoding: .utf8)
    var spec = try #require(JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    var variants = try #require(spec["variants"] as? [[String: Any]])
    variants[1]["patches"] = [
      ["op": "setAction", "screen": "slide1", "action": "continue", "probability": 0.9],
      ["op": "setAction", "screen": "slide1", "action": "skip", "probability": 0.02],
    ]
    spec["variants"] = variants
    let path = try BoundsTests.write(spec, "urbannest.json")
    #expect(funnellab("validate", path).code == 0)
    let csv = try temporaryFile(
      "observed.csv",
      contents: "screen,action,count\nslide1,,1000\nslide1,continue,100\nslide1,skip,20\nslide1,jumpTo2,10\nslide1,jumpTo3,10\n")
    let output = try temporaryFile("calibrated.json")
    let r = funnellab("calibrate", path, csv, "--write-spec", output)
    #expect(r.code == 65, "\(r.err)")
    #expect(r.err.contains("variants[1]"), "\(r.err)")
    #expect(r.err.contains("the calibrated spec would be invalid"), "\(r.err)")
    #expect(r.out.isEmpty)
    #expect(!FileManager.default.fileExists(atPath: output))
  }
}
