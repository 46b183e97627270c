import FunnelStats
import FunnelTestSupport
import Testing

@testable import FunnelLab

/// Every "true" value is the exact engine's, and verdicts are graded against it.
@Suite struct ExactTruthTests {
  /// A flow written for this test (not one of `experiments/`): two info screens and a
  /// form; the variant moves 0.0001 of the first screen's quit share to continue,
  /// an exact effect on completion of about +0.008 pp.
  static let nearZeroSpec = """
    {
      "name": "tiny-effect", "seed": 7, "users": 20000,
      "population": { "segments": [ { "id": "all", "weight": 1, "intent": { "mean": 0, "sd": 1 } } ] },
      "flow": { "screens": [
        { "id": "hello", "kind": "info", "actions": { "continue": 0.9, "quit": 0.1 } },
        { "id": "why", "kind": "info", "actions": { "continue": 0.85, "quit": 0.15 } },
        { "id": "form", "kind": "input", "required": true, "actions": { "type": 0.8, "quit": 0.2 } }
      ] },
      "variants": [
        { "id": "control" },
        { "id": "nudge", "patches": [ { "op": "setAction", "screen": "hello", "action": "continue", "probability": 0.9001 },
                                      { "op": "setAction", "screen": "hello", "action": "quit", "probability": 0.0999 } ] }
      ],
      "metrics": { "primary": "completionRate", "equivalenceMargin": 0 }
    }
    """

  /// Over 100 seeds, a result whose estimate has the exact difference's sign is never
  /// called "wrong sign", and one with the opposite sign never "correct": the grading
  /// uses the exact difference, not a sample of it.
  @Test(.longStage) func nearZeroEffectIsGradedAgainstTheExactSign() throws {
    let e = try load(Self.nearZeroSpec)
    let exact = try FlowCompiler.compileAll(e).map { ExactEngine.solve($0).value(of: .completionRate) ?? .nan }
    let truth = exact[1] - exact[0]
    #expect(truth > 0 && truth < 2e-4)
    var signs = Set<Bool>()
    var significant = 0
    for seed in UInt64(1)...100 {
      let run = try ExperimentRunner.run(e, options: RunOptions(seed: seed, mode: .experiment))
      let arm = try #require(ExperimentReport(observed: run, spec: e.metrics).primary.arm("nudge"))
      #expect(arm.trueDifference == truth, "seed \(seed): the truth is the exact difference")
      let estimate = try #require(arm.comparison?.difference?.estimate)
      signs.insert(estimate > 0)
      if arm.significant { significant += 1 }
      let verdict = try #require(arm.verdict)
      if (estimate > 0) == (truth > 0) {
        #expect(verdict != .wrongSign, "seed \(seed): estimate \(estimate) has the exact sign")
      } else {
        #expect(verdict != .correct, "seed \(seed): estimate \(estimate) has the wrong sign")
      }
      #expect(verdict == (arm.significant ? ((estimate > 0) == (truth > 0) ? .correct : .wrongSign) : .missed))
    }
    // The sample differences scatter around the tiny truth: both signs occur, so the check above bites.
    #expect(signs.count == 2)
    #expect(significant > 0)
  }

  /// With the default margin (1 % of the control's value) the same effect is negligible:
  /// a non-significant result is a correct null, a significant one a negligible detection.
  @Test func defaultMarginCallsANearZeroEffectNegligible() throws {
    var e = try load(Self.nearZeroSpec)
    e.metrics.equivalenceMargin = MetricsSpec.defaultEquivalenceMargin
    for seed in UInt64(1)...20 {
      let run = try ExperimentRunner.run(e, options: RunOptions(seed: seed, mode: .experiment))
      let arm = try #require(ExperimentReport(observed: run, spec: e.metrics).primary.arm("nudge"))
      let margin = try #require(arm.equivalenceMargin)
      let control = try #require(run.control?.exact?.completion)
      #expect(margin == 0.01 * control)
      #expect(arm.verdict == (arm.significant ? .negligibleDetected : .correctNull))
    }
  }

  /// Runs carry the exact solution of every variant, equal to a direct solve.
  @Test func runsCarryTheExactSolution() throws {
    let e = try load(Self.nearZeroSpec)
    let run = try ExperimentRunner.run(e, options: RunOptions(users: 1000))
    let flows = try FlowCompiler.compileAll(e)
    for (v, flow) in zip(run.variants, flows) {
      #expect(v.exact == ExactEngine.solve(flow))
    }
    #expect(run.exactDifference(.completionRate, variant: "control") == 0)
    var sharded = RunOptions(users: 1000)
    sharded.shard = Shard(index: 0, count: 2)
    #expect(sharded.shard != nil)
    #expect(try ExperimentRunner.run(e, options: sharded).variants.allSatisfy { $0.exact == nil })
  }

  /// An arm of a run that did not solve the flow solves it on the first ``exact`` and
  /// the result keeps it for every arm read later; the value equals a direct solve.
  @Test func armsSolveTheExactFunnelOnce() throws {
    let e = try load(Self.nearZeroSpec)
    var options = RunOptions(users: 1000)
    options.solveExact = false
    let result = SimulationResult(experiment: e, run: try ExperimentRunner.run(e, options: options))
    let arm = try result.control()
    let copy = arm
    #expect(!arm.solution.isSolved)
    let direct = ExactEngine.solve(arm.flow)
    #expect(arm.exact(.completionRate) == direct.value(of: .completionRate))
    #expect(copy.solution.isSolved)
    #expect(copy.exact(.purchaseConversion) == direct.value(of: .purchaseConversion))
    #expect(try result.control().solution.isSolved)
    #expect(try !result.variant(result.variantIDs[1]).solution.isSolved)
    #expect(try Simulation.run(e, users: 1000).control().solution.isSolved)
  }

  /// A margin outside [0, 1) or for an unknown metric is refused with its path.
  @Test func equivalenceMarginsAreValidated() {
    let bad = Self.nearZeroSpec.replacingOccurrences(
      of: "\"equivalenceMargin\": 0",
      with: "\"equivalenceMargin\": 1.5, \"equivalenceMargins\": { \"timeToFinish\": -1, \"completionRat\": 0.1 }")
    let paths = problems(bad).map(\.path.description)
    #expect(paths.contains("metrics.equivalenceMargin"))
    #expect(paths.contains("metrics.equivalenceMargins.timeToFinish"))
    #expect(paths.contains { $0.hasPrefix("metrics.equivalenceMargins") && $0.contains("completionRat") })
  }
}
