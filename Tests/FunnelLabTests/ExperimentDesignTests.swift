import Foundation
import FunnelStats
import FunnelTestSupport
import Testing

@testable import FunnelLab

@Suite struct ExperimentDesignTests {
  @Test func klickGridHas18NamedCells() throws {
    let e = try ExperimentLoader.defaultExperiment()
    let grid = try #require(e.grid)
    #expect(grid.cellCount == 18)
    let cells = grid.variants()
    #expect(cells.count == 18)
    #expect(Set(cells.map(\.id)).count == 18)
    #expect(cells[0].id == "upsell=after1,goal=required,default=monthly")
    #expect(cells[17].id == "upsell=after5,goal=optional,default=lifetime")
    // Every cell compiles: patches of different factors combine into valid flows.
    let gridded = try #require(e.gridExperiment())
    #expect(try FlowCompiler.compileAll(gridded).count == 19)
  }

  @Test func hashAssignmentIsDeterministicAndFollowsTheAllocation() {
    let a = HashAssignment(salt: "s1", arms: ["control", "b"], weights: ["control": 90, "b": 10])
    let again = HashAssignment(salt: "s1", arms: ["control", "b"], weights: ["control": 90, "b": 10])
    let other = HashAssignment(salt: "s2", arms: ["control", "b"], weights: ["control": 90, "b": 10])
    let n = 200_000
    var inB = 0
    var differ = 0
    for user in 0..<UInt64(n) {
      let arm = a.arm(of: user)
      #expect(arm == again.arm(of: user))
      if arm == 1 { inB += 1 }
      if arm != other.arm(of: user) { differ += 1 }
    }
    StatisticalBand(checks: 1).expectProportion(UInt64(inB), of: UInt64(n), exact: 0.1, "share of users in b")
    // A new salt reshuffles: about 2·0.9·0.1 of users change arm.
    #expect(abs(Double(differ) / Double(n) - 0.18) < 0.01)
    #expect(zip(a.shares, [0.9, 0.1]).allSatisfy { abs($0 - $1) < 1e-15 })
  }

  /// The SRM check catches a broken split (a bug that drops 3% of the treatment's
  /// users) and stays quiet on a correct 50/50 split.
  @Test(.longStage) func sampleRatioMismatchFlagsABrokenAllocationOnly() throws {
    var e = try ExperimentLoader.defaultExperiment()
    e.variants = Array(e.variants.prefix(2))
    let correct = try ExperimentRunner.run(e, options: RunOptions(users: 100_000, mode: .experiment))
    let report = ExperimentReport(observed: correct, spec: e.metrics)
    #expect(report.sampleRatio?.mismatch == false)

    let flows = try FlowCompiler.compileAll(e)
    let assignment = HashAssignment(salt: e.assignmentSalt, arms: ["control", "upsellAfter3"])
    let engine = MonteCarloEngine()
    let control = engine.run(flows[0], users: 0..<200_000, seed: e.seed, include: { assignment.arm(of: $0) == 0 })
    let biased = engine.run(
      flows[1], users: 0..<200_000, seed: e.seed,
      include: { user in
        assignment.arm(of: user) == 1 && user % 33 != 0  // the bug: every 33rd treatment user is lost
      })
    var broken = correct
    broken.variants[0].aggregate = control
    broken.variants[1].aggregate = biased
    let brokenReport = ExperimentReport(observed: broken, spec: e.metrics)
    #expect(brokenReport.sampleRatio?.mismatch == true)
  }

  @Test(arguments: [
    (true, 0.01, 0.02, 0.0, Verdict.correct), (true, -0.01, 0.02, 0.0, .wrongSign), (false, 0.01, 0.02, 0.0, .missed),
    (false, 0.001, 0.0, 0.0, .correctNull), (true, 0.02, 0.0, 0.0, .falsePositive),
    // With a margin of 0.005: effects inside it are negligible whatever the sign of the estimate.
    (false, 0.01, 0.004, 0.005, .correctNull), (true, -0.01, 0.004, 0.005, .negligibleDetected),
    (true, 0.01, 0.004, 0.005, .negligibleDetected), (true, 0.01, -0.005, 0.005, .negligibleDetected),
    (true, -0.01, -0.006, 0.005, .correct), (true, 0.01, -0.006, 0.005, .wrongSign), (false, 0.0, 0.006, 0.005, .missed),
    (true, 0.01, 0.0, 0.005, .falsePositive),
  ])
  func verdictsCompareTheConclusionWithTheTruth(
    significant: Bool, observed: Double, truth: Double, margin: Double, expected: Verdict
  ) {
    #expect(Verdict.judge(significant: significant, observed: observed, truth: truth, margin: margin) == expected)
  }

  /// An arm that changes nothing has a true difference of exactly zero, and the report says so.
  @Test(.longStage) func experimentModeJudgesAnAAArmAgainstAZeroTruth() throws {
    var e = try ExperimentLoader.defaultExperiment()
    e.variants = [e.variants[0], Variant(id: "aa", patches: [.setFeatures(screen: "proUpsell", count: 4)])]
    let observed = try ExperimentRunner.run(e, options: RunOptions(users: 40_000, mode: .experiment))
    let report = ExperimentReport(observed: observed, spec: e.metrics)
    let arm = try #require(report.primary.arm("aa"))
    #expect(arm.trueDifference == 0)
    #expect(arm.verdict == .correctNull || arm.verdict == .falsePositive)
    #expect(arm.verdict == (arm.significant ? .falsePositive : .correctNull))
  }

  @Test func guardrailsAndTheDecisionRule() {
    func arm(_ d: Double, _ lower: Double, _ upper: Double, significant: Bool = false) -> ArmMetricResult {
      let interval = ConfidenceInterval(lower: lower, upper: upper, confidenceLevel: 0.95, method: "test")
      var result = ArmMetricResult(arm: "b", estimate: MetricEstimate(metric: .completionRate, estimate: 0.5, interval: nil, n: 1))
      result.comparison = MetricComparison(
        metric: .completionRate, difference: IntervalEstimate(estimate: d, interval: interval), test: nil)
      result.significant = significant
      return result
    }
    let completion = Guardrail(metric: .completionRate, margin: 0.02)
    #expect(ExperimentReport.status(of: arm(-0.005, -0.015, 0.005), guardrail: completion) == .ok)
    #expect(ExperimentReport.status(of: arm(-0.03, -0.04, -0.025), guardrail: completion) == .violated)
    #expect(ExperimentReport.status(of: arm(-0.01, -0.03, 0.01), guardrail: completion) == .inconclusive)
    // Time: lower is better, so an increase is the worsening.
    let time = Guardrail(metric: .timeToFinish, margin: 10)
    #expect(ExperimentReport.status(of: arm(12, 11, 13), guardrail: time) == .violated)
    #expect(ExperimentReport.status(of: arm(-3, -5, -1), guardrail: time) == .ok)

    let spec = MetricsSpec(primary: .completionRate)
    let winner = arm(0.01, 0.005, 0.015, significant: true)
    #expect(ExperimentReport.decide(winner, metric: .completionRate, spec: spec, guardrails: [.ok]) == .ship)
    #expect(ExperimentReport.decide(winner, metric: .completionRate, spec: spec, guardrails: [.inconclusive]) == .noDecision)
    #expect(ExperimentReport.decide(winner, metric: .completionRate, spec: spec, guardrails: [.violated]) == .doNotShip)
    #expect(
      ExperimentReport.decide(arm(-0.01, -0.015, -0.005, significant: true), metric: .completionRate, spec: spec, guardrails: [])
        == .doNotShip)
    #expect(ExperimentReport.decide(arm(0.01, -0.005, 0.025), metric: .completionRate, spec: spec, guardrails: []) == .noDecision)
    // Significant but inside the ±1 % margin: negligible, so no decision either way.
    var negligible = arm(0.004, 0.001, 0.007, significant: true)
    negligible.relativeLift = IntervalEstimate(estimate: 0.008, interval: nil)
    #expect(ExperimentReport.decide(negligible, metric: .completionRate, spec: spec, guardrails: [.ok]) == .noDecision)
    negligible.relativeLift = IntervalEstimate(estimate: -0.008, interval: nil)
    negligible.comparison?.difference = IntervalEstimate(estimate: -0.004, interval: nil)
    #expect(ExperimentReport.decide(negligible, metric: .completionRate, spec: spec, guardrails: [.ok]) == .noDecision)
  }

  /// Without `design.salt` the salt is the experiment's name, as platforms hash with the
  /// experiment's key: UrbanNest and NCDB once split 20,000 users identically (19,899 / 20,057 /
  /// 20,044 of 60,000 in three arms), whatever their seeds.
  @Test func experimentsWithoutASaltSplitTheirUsersDifferently() throws {
    func split(_ name: String) throws -> [UInt64] {
      let e = try ExperimentLoader.load(contentsOf: experimentPath(name))
      #expect(e.design.salt.isEmpty && e.assignmentSalt == name)
      let run = try ExperimentRunner.run(e, options: RunOptions(users: 20_000, mode: .experiment))
      return run.variants.map { $0.aggregate[.users] }
    }
    let urbannest = try split("urbannest-onboarding")
    let ncdb = try split("ncdb-first-launch")
    #expect(urbannest.reduce(UInt64(0), +) == ncdb.reduce(UInt64(0), +))
    #expect(urbannest != ncdb, "\(urbannest) \(ncdb)")
    // A salt the spec names is used as written.
    var klick = try ExperimentLoader.defaultExperiment()
    #expect(klick.assignmentSalt == "klick-onboarding-2026")
    klick.design.salt = ""
    #expect(klick.assignmentSalt == klick.name)
  }

  @Test func usersKeepTheirStreamInExperimentMode() throws {
    // A user assigned to an arm walks it exactly as in truth mode.
    var e = try ExperimentLoader.defaultExperiment()
    e.variants = Array(e.variants.prefix(2))
    let flows = try FlowCompiler.compileAll(e)
    let assignment = HashAssignment(salt: e.assignmentSalt, arms: ["control", "upsellAfter3"])
    let engine = MonteCarloEngine(threads: 1)
    let observed = try ExperimentRunner.run(e, options: RunOptions(users: 5_000, threads: 1, mode: .experiment))
    let byHand = engine.run(flows[1], users: 0..<10_000, seed: e.seed, include: { assignment.arm(of: $0) == 1 })
    #expect(observed.variants[1].aggregate == byHand)
  }
}
