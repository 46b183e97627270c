import Foundation
import FunnelStats
import FunnelTestSupport
import Testing

@testable import FunnelLab

/// The bounds of ``Limits`` and the checks built on them.
@Suite struct LimitsTests {
  @Test(.longStage) func theTableSizeFormulaIsTheCompiledTablesSize() throws {
    for name in seedExperiments {
      let e = try ExperimentLoader.load(contentsOf: experimentPath(name))
      let expanded = e.grid == nil ? e : try #require(e.gridExperiment())
      for i in expanded.variants.indices {
        let flow = try FlowCompiler.compile(expanded, variant: i)
        let patched = try expanded.experiment(forVariant: i)
        #expect(patched.compiledTableBytes == flow.thresholds.count * 8, "\(name) variant \(i)")
      }
    }
  }

  @Test func productsThatOverflowAreNil() {
    #expect(Limits.product([10, 10, 10]) == 1000)
    #expect(Limits.product(Array(repeating: 2, count: 63)) == nil)
    #expect(Limits.product([Int.max, 2]) == nil)
    #expect(Limits.product([-1, 2]) == nil)
    #expect(
      Grid(factors: (0..<70).map { GridFactor(id: "f\($0)", levels: [GridLevel(id: "a"), GridLevel(id: "b")]) }).cellCount == Int.max)
  }

  @Test(
    arguments: [
      (0.0, 0.2, 0.02, 11), (0.0, 1.0, 1e-300, nil), (0.0, Double.infinity, 1.0, nil), (-1e308, 1e308, 1e307, nil),
      (0.0, 1e9, 1e-3, nil), (0.0, 4999.0, 1.0, 5000), (0.0, 5000.0, 1.0, nil), (1.0, 0.0, 0.1, nil), (0.0, 1.0, 0.0, nil),
      (0.0, Double.nan, 1.0, nil),
    ] as [(Double, Double, Double, Int?)])
  func sensitivityAxesAreCountedWithoutBuildingThem(from: Double, to: Double, step: Double, count: Int?) {
    #expect(Sensitivity.Axis.valueCount(from: from, to: to, step: step) == count)
    #expect(Sensitivity.Axis(parameter: .fatiguePerScreen, from: from, to: to, step: step)?.values.count == count)
  }

  @Test func fiveAxesOfAHundredValuesAreTooManyPoints() throws {
    let axis = try #require(Sensitivity.Axis(parameter: .fatiguePerScreen, from: 0, to: 0.99, step: 0.01))
    #expect(Sensitivity.pointCount([axis]) == 100)
    #expect(Sensitivity.pointCount(Array(repeating: axis, count: 5)) == nil)
    let e = try load(tinySpec)
    #expect(throws: SpecErrors.self) { try Sensitivity.run(e, axes: Array(repeating: axis, count: 5)) }
  }

  @Test func aSumOfAggregatesThatWouldWrapIsRefused() throws {
    var a = FunnelAggregate(screens: 1, actions: 1, plans: 0, options: 0, segments: 1)
    a.screenMillis[0] = UInt64.max - 1
    var b = a
    b.screenMillis[0] = 1
    #expect(FunnelAggregate.checkedSum(a, b)?.screenMillis == [UInt64.max])
    b.screenMillis[0] = 2
    #expect(FunnelAggregate.checkedSum(a, b) == nil)
    #expect((a + b).screenMillis == [0], "+ wraps like the engine's counters")
    b = a
    b.screenMillis[0] = 0
    b.completionTime.sumSquaredMillis = UInt128.max
    a.completionTime.sumSquaredMillis = 1
    #expect(FunnelAggregate.checkedSum(a, b) == nil)
    var r = RevenueDistribution()
    r.counts[100] = UInt64.max
    a.completionTime.sumSquaredMillis = 0
    b.completionTime.sumSquaredMillis = 0
    a.revenue = r
    b.revenue = r
    #expect(FunnelAggregate.checkedSum(a, b) == nil)
  }

  /// One overflow policy for every counter, scalar or per screen: `+` wraps (as the
  /// engines' `&+=`, which the limits keep far from 2⁶⁴), `checkedSum` refuses.
  @Test(arguments: FunnelCounter.allCases) func everyScalarCounterWrapsAndIsCheckedAlike(_ counter: FunnelCounter) throws {
    var a = FunnelAggregate(screens: 1, actions: 1, plans: 0, options: 0, segments: 1)
    a[counter] = UInt64.max - 1
    var b = FunnelAggregate(screens: 1, actions: 1, plans: 0, options: 0, segments: 1)
    b[counter] = 1
    #expect(FunnelAggregate.checkedSum(a, b)?[counter] == UInt64.max)
    b[counter] = 2
    #expect(FunnelAggregate.checkedSum(a, b) == nil)
    #expect((a + b)[counter] == 0)
    #expect(FunnelCounter.allCases.filter { $0 != counter }.allSatisfy { (a + b)[$0] == 0 }, "one counter moves alone")
  }

  /// The counter list is the shard file's list: every counter is written and read back.
  @Test func everyCounterRoundTripsThroughTheShardJSON() throws {
    let e = try load(tinySpec)
    let result = try ExperimentRunner.run(e, options: RunOptions(users: 50))
    let run = try #require(result.variants.first)
    var a = run.aggregate
    for counter in FunnelCounter.allCases { a[counter] = UInt64(1000 + counter.rawValue) }
    let back = try FunnelAggregate(json: a.json, for: run.flow, at: .root)
    #expect(back == a)
    guard case .object(let members) = a.json.kind else {
      Issue.record("the aggregate's JSON is not an object")
      return
    }
    let keys = members.map(\.key)
    #expect(Array(keys.prefix(FunnelCounter.allCases.count)) == FunnelCounter.allCases.map(\.name))
  }

  @Test func theConsistencyOfAnHonestRunHolds() throws {
    let e = try load(tinySpec)
    let result = try ExperimentRunner.run(e, options: RunOptions(users: 3000))
    for run in result.variants { #expect(run.aggregate.consistencyErrors(at: .root).isEmpty) }
    var broken = try #require(result.variants.first).aggregate
    broken[.completed] += 1
    broken[.trialConversions] = broken[.trialStarts] + 1
    let paths = broken.consistencyErrors(at: .root).map(\.path.description)
    #expect(paths.contains("users"))
    #expect(paths.contains("completionCount"))
    #expect(paths.contains("trialConversions"))
  }

  @Test func checksumsSealAndVerify() throws {
    let doc = JSONValue.object([("a", .integer(1)), ("b", .string("x"))])
    let sealed = ContentChecksum.sealing(doc)
    #expect(ContentChecksum.error(in: sealed) == nil)
    #expect(ContentChecksum.sealing(sealed) == sealed, "sealing again replaces the checksum")
    #expect(ContentChecksum.error(in: doc)?.message == "the file has no checksum")
    let reparsed = try JSONParser.parse(JSONWriter.write(sealed, pretty: true))
    #expect(ContentChecksum.error(in: reparsed) == nil, "whitespace does not matter")
    let edited = try JSONParser.parse(JSONWriter.write(sealed).replacingOccurrences(of: "\"a\": 1", with: "\"a\": 2"))
    #expect(ContentChecksum.error(in: edited)?.path == [.key("checksum")])
    // FNV-1a 64 of the empty string is its offset basis.
    #expect(ContentChecksum.hex(HashAssignment.fnv1a64("")) == "cbf29ce484222325")
    #expect(ContentChecksum.hex(HashAssignment.fnv1a64("a")) == "af63dc4c8601ec8c")
  }

  @Test(arguments: [
    (#"{"onboarding_started": "Start", "onboarding_completed": "Start"}"#, "would both be named 'Start'"),
    (#"{"onboarding_started": "onboarding_completed"}"#, "would both be named 'onboarding_completed'"),
  ])
  func eventRenamesThatCollideAreRefused(text: String, message: String) {
    #expect(throws: SpecErrors.self) { try EventNameMap(parsing: text, source: "map.json") }
    do {
      _ = try EventNameMap(parsing: text, source: "map.json")
    } catch {
      #expect(error.errors.contains { $0.message.contains(message) }, "\(error.errors)")
    }
    // A swap is fine: every event keeps a name of its own.
    #expect(
      (try? EventNameMap(
        parsing: #"{"onboarding_started": "onboarding_completed", "onboarding_completed": "onboarding_started"}"#, source: "m")) != nil)
  }

  @Test func aRunOfSelectedArmsWithNoWeightIsRefused() throws {
    var e = try load(tinySpec)
    e.design.allocation = ["optional": 0, "control": 0]
    #expect(e.validationErrors().contains { $0.message == "every arm has allocation weight 0" })
    e.design.allocation = ["optional": 1, "control": 0]
    #expect(e.validationErrors().isEmpty)
    var options = RunOptions(users: 100, variants: ["control"], mode: .experiment)
    #expect(throws: SpecErrors.self) { try ExperimentRunner.run(e, options: options) }
    options.users = Limits.users.upperBound + 1
    options.mode = .truth
    #expect(throws: SpecErrors.self) { try ExperimentRunner.run(e, options: options) }
  }
}
