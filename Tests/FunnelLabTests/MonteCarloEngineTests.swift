import Foundation
import FunnelTestSupport
import Testing

@testable import FunnelLab

@Suite struct MonteCarloEngineTests {
  /// A linear flow with no effects: completion is the product of the continue probabilities
  /// (4 checks in a ``StatisticalBand``: z ≈ 3.66).
  @Test func linearFlowMatchesTheProductOfProbabilities() throws {
    var e = try neutralTinyExperiment()
    e.flow.screens[1].actions = [Action(id: "select", kind: .select, probability: 0.6), Action(id: "quit", kind: .quit, probability: 0.4)]
    e.flow.screens[2].actions = [
      Action(id: "purchase", kind: .purchase, probability: 0.25), Action(id: "dismiss", kind: .dismiss, probability: 0.75),
    ]
    let flow = try FlowCompiler.compile(e, variant: 0)
    let n = 200_000
    let a = MonteCarloEngine(threads: 2).run(flow, users: n, seed: 11)
    let band = StatisticalBand(checks: 4)
    band.expectProportion(a[.completed], of: a[.users], exact: 0.7 * 0.6, "completion")
    band.expectProportion(a[.purchasers], of: a[.users], exact: 0.7 * 0.6 * 0.25, "purchase")
    band.expectProportion(a.reach[1], of: a[.users], exact: 0.7, "reach of goal")
    #expect(a[.completed] + a.abandoned == a[.users])
    // J plans share the purchase probability; with no price, default or badge effect they split it evenly.
    band.expectProportion(a.planPurchases[0], of: a[.purchasers], exact: 0.5, "plan split")
  }

  /// With back navigation a walk can loop; the closed form for the two-screen loop
  /// A ⇄ B (A: continue c, quit 1−c; B: finish f, back b, quit 1−f−b) is
  /// P(complete) = c·f / (1 − c·b) (2 checks in a ``StatisticalBand``: z ≈ 3.48).
  @Test func backLoopMatchesTheClosedForm() throws {
    let c = 0.8, f = 0.5, b = 0.3
    var e = try load(tinySpec)
    e.behavior = neutralBehavior()
    e.flow.screens = [
      Screen(
        id: "a", content: .info,
        actions: [Action(id: "continue", kind: .continue, probability: c), Action(id: "quit", kind: .quit, probability: 1 - c)]),
      Screen(
        id: "b", content: .info,
        actions: [
          Action(id: "continue", kind: .continue, probability: f), Action(id: "back", kind: .back, probability: b),
          Action(id: "quit", kind: .quit, probability: 1 - f - b),
        ]),
    ]
    e.variants = [Variant(id: "control")]
    let flow = try FlowCompiler.compile(e, variant: 0)
    let a = MonteCarloEngine().run(flow, users: 200_000, seed: 3)
    let band = StatisticalBand(checks: 2)
    band.expectProportion(a[.completed], of: a[.users], exact: c * f / (1 - c * b), "completion with back loop")
    band.expectProportion(a[.usersWhoWentBack], of: a[.users], exact: c * b, "users who went back at least once")
  }

  /// With every effect on (intent, fatigue, friction, investment, personalization,
  /// default bias, badges, features) and the spec's store, Monte Carlo agrees with
  /// the exact chain: 2 checks per experiment, 8 over the four (one family, a
  /// ``StatisticalBand``: z ≈ 3.84).
  @Test(arguments: seedExperiments)
  func fullModelMatchesTheExactChain(name: String) throws {
    let e = try ExperimentLoader.load(contentsOf: experimentPath(name))
    let flow = try FlowCompiler.compile(e, variant: 0)
    let exact = ExactEngine.solve(flow)
    let a = MonteCarloEngine().run(flow, users: 100_000, seed: 17)
    let band = StatisticalBand(checks: 2 * seedExperiments.count)
    band.expectProportion(a[.completed], of: a[.users], exact: exact.completion, "\(name) completion")
    band.expectProportion(a[.purchasers], of: a[.users], exact: exact.purchase, "\(name) purchase")
  }

  /// Every user completes or abandons: the metric's definition of abandonment (users
  /// who did not complete) equals the aggregate's count of quits and step-limit cuts,
  /// and every proportion metric's data are its definition's counters.
  @Test(arguments: seedExperiments)
  func metricDefinitionsMatchTheCounters(name: String) throws {
    let e = try ExperimentLoader.load(contentsOf: experimentPath(name))
    for flow in try FlowCompiler.compileAll(e) {
      let a = MonteCarloEngine().run(flow, users: 5_000, seed: 11)
      #expect(FunnelMetric.abandonmentRate.counts(in: a)?.successes == a.abandoned)
      #expect(a[.completed] + a.abandoned == a[.users])
      for metric in FunnelMetric.allCases {
        guard case .proportion(.count(let successes, let trials)) = metric.definition else { continue }
        let counts = try #require(metric.counts(in: a))
        #expect(counts == (a[successes], a[trials]), "\(metric)")
      }
    }
  }

  @Test func resultsDoNotDependOnThreadCount() throws {
    let flow = try FlowCompiler.compile(try ExperimentLoader.defaultExperiment(), variant: 0)
    let users = 3 * MonteCarloEngine.chunkSize + 123
    let one = MonteCarloEngine(threads: 1).run(flow, users: users, seed: 5)
    let two = MonteCarloEngine(threads: 2).run(flow, users: users, seed: 5)
    let four = MonteCarloEngine(threads: 4).run(flow, users: users, seed: 5)
    #expect(one == two)
    #expect(one == four)
    #expect(one[.users] == UInt64(users))
  }

  @Test func splittingTheUsersAndAddingGivesTheWholeRun() throws {
    let flow = try FlowCompiler.compile(try ExperimentLoader.defaultExperiment(), variant: 0)
    let engine = MonteCarloEngine(threads: 2)
    let whole = engine.run(flow, users: 0..<50_000, seed: 9)
    let parts = engine.run(flow, users: 0..<20_000, seed: 9) + engine.run(flow, users: 20_000..<50_000, seed: 9)
    #expect(whole == parts)
  }

  /// A variant whose patch changes nothing walks exactly the control's users.
  @Test func aaVariantGivesIdenticalCountsWithCommonRandomNumbers() throws {
    var e = try ExperimentLoader.defaultExperiment()
    e.variants = [Variant(id: "control"), Variant(id: "aa", patches: [.setRequired(screen: "personalization", required: true)])]
    let result = try ExperimentRunner.run(e, options: RunOptions(users: 30_000))
    #expect(result.variants[0].aggregate == result.variants[1].aggregate)
  }

  /// A back loop that would never end is cut at the step limit; completion
  /// matches the exact probability (1 check in a ``StatisticalBand``: z ≈ 3.29).
  @Test func stepLimitEndsEndlessLoops() throws {
    var e = try load(tinySpec)
    e.behavior = neutralBehavior()
    e.simulation.stepLimit = 10
    e.flow.screens = [
      Screen(id: "a", content: .info, actions: [Action(id: "continue", kind: .continue, probability: 1)]),
      Screen(
        id: "b", content: .info,
        actions: [Action(id: "back", kind: .back, probability: 0.99), Action(id: "continue", kind: .continue, probability: 0.01)]),
    ]
    e.variants = [Variant(id: "control")]
    let a = MonteCarloEngine().run(try FlowCompiler.compile(e, variant: 0), users: 10_000, seed: 1)
    // Completing needs "continue" on one of the 5 visits to b within 10 steps.
    let band = StatisticalBand(checks: 1)
    band.expectProportion(a[.completed], of: a[.users], exact: 1 - pow(0.99, 5), "completion within the step limit")
    #expect(a[.stepLimitReached] == a[.users] - a[.completed])
  }

  @Test func dwellTimeAddsUpToTimeToFinish() throws {
    var e = try load(tinySpec)
    e.behavior = neutralBehavior()
    e.flow.screens = twoScreensWithDwell()
    e.variants = [Variant(id: "control")]
    let a = MonteCarloEngine().run(try FlowCompiler.compile(e, variant: 0), users: 100_000, seed: 1)
    let mean = try #require(a.completionTime.meanSeconds)
    // E[lognormal] = median · exp(σ²/2); the 1024-quantile table keeps it within 0.1 %.
    let exact = 10 + 5 * exp(0.125)
    #expect(abs(mean - exact) / exact < 0.003, "mean \(mean) vs \(exact)")
  }

  @Test func intentBinsKeepTheMeanAndNearlyTheVariance() {
    let means = Discretisation.normalBinMeans(32)
    let mean = means.reduce(0, +) / 32
    let variance = means.map { $0 * $0 }.reduce(0, +) / 32
    #expect(abs(mean) < 1e-12)
    #expect(variance > 0.99 && variance < 1)
  }

  /// The intent bin comes from the cell draw's low bits for a power-of-two number of
  /// bins up to 2¹¹ and from a draw of its own otherwise: both ways the simulated
  /// completion and purchase agree with the exact engine, which weighs every bin 1/bins
  /// (8 checks in a ``StatisticalBand``: z ≈ 3.84).
  @Test(.longStage) func intentBinsOfAnyCountAgreeWithTheExactEngine() throws {
    let band = StatisticalBand(checks: 8)
    for bins in [1, 3, 24, 256] {
      var e = try ExperimentLoader.defaultExperiment()
      e.simulation.traitBins = bins
      let flow = try FlowCompiler.compile(e, variant: 0)
      let tables = EngineTables(flow)
      #expect(tables.binsInCellDraw == (bins == 1 || bins == 256), "\(bins) bins")
      let exact = ExactEngine.solve(flow)
      let a = MonteCarloEngine(threads: 2).run(flow, users: 100_000, seed: 23)
      band.expectProportion(a[.completed], of: a[.users], exact: exact.completion, "completion, \(bins) bins")
      band.expectProportion(a[.purchasers], of: a[.users], exact: exact.purchase, "purchase, \(bins) bins")
    }
  }

  /// The cell draw carries the bin up to 2¹¹ bins (the low bits the segment's 53 leave).
  @Test(.longStage) func binsShareTheCellDrawUpTo2048() throws {
    for (bins, shared) in [(2, true), (2048, true), (4096, false), (2047, false), (1000, false)] {
      var e = try load(tinySpec)
      e.simulation.traitBins = bins
      let tables = EngineTables(try FlowCompiler.compile(e, variant: 0))
      #expect(tables.binsInCellDraw == shared, "\(bins) bins")
      if shared { #expect(tables.binMask == UInt64(bins - 1)) }
    }
  }

  /// A user takes one draw for the cell and one a step (plus one per option chosen):
  /// the walk's counts give the draws, and every step takes one whether or not the
  /// screen has a dwell time.
  @Test func aStepTakesOneDrawWithOrWithoutDwell() throws {
    var e = try neutralTinyExperiment()
    let withDwell = try FlowCompiler.compile(e, variant: 0)
    e.flow.screens[0].dwell = Dwell(medianSeconds: 0)
    let without = try FlowCompiler.compile(e, variant: 0)
    let a = MonteCarloEngine(threads: 1).run(withDwell, users: 20_000, seed: 4)
    let b = MonteCarloEngine(threads: 1).run(without, users: 20_000, seed: 4)
    // Same draws, so the same choices: only the times differ.
    #expect(a.views == b.views)
    #expect(a.actionCounts == b.actionCounts)
    #expect(a.optionCounts == b.optionCounts)
    #expect(a[.completed] == b[.completed])
    #expect(a.screenMillis[0] > 0 && b.screenMillis[0] == 0)
  }

  /// With no thread count given, the engine uses every processor active for this
  /// process, on Linux and macOS alike (it used 1 outside Linux).
  @Test func defaultThreadCountIsTheActiveProcessorCount() {
    let active = ProcessInfo.processInfo.activeProcessorCount
    #expect(MonteCarloEngine.defaultThreadCount == max(1, active))
    #expect(MonteCarloEngine().threads == max(1, active))
    #expect(MonteCarloEngine(threads: 3).threads == 3)
    #expect(MonteCarloEngine(threads: 0).threads == 1)
  }
}
