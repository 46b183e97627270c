import Foundation
import FunnelTestSupport
import Testing

@testable import FunnelLab

/// Expectations: a passing and a failing case of each kind, their validation, and
/// that exact-valued checks do not depend on the seed.
@Suite struct ExpectationCheckerTests {
  /// UrbanNest (3 variants, no paywall) with the given expectations instead of its own.
  func urbannest(_ expectations: [FunnelExpectation], seed: UInt64? = nil) throws -> Experiment {
    var e = try ExperimentLoader.load(contentsOf: experimentPath("urbannest-onboarding"))
    e.expectations = expectations
    if let seed { e.seed = seed }
    return e
  }

  func check(_ expectation: FunnelExpectation, seed: UInt64? = nil) throws -> ExpectationResult {
    let results = try ExpectationChecker.check(try urbannest([expectation], seed: seed))
    return try #require(results.first)
  }

  static let cases: [(FunnelExpectation, Bool)] = [
    (FunnelExpectation(kind: .range, variant: "control", metric: .completionRate, min: 0.6, max: 0.7), true),
    (FunnelExpectation(kind: .range, variant: "control", metric: .completionRate, min: 0.7), false),
    (FunnelExpectation(kind: .lift, variant: "twoSlides", metric: .completionRate, atLeast: 0.02), true),
    (FunnelExpectation(kind: .lift, variant: "twoSlides", metric: .completionRate, atLeast: 0.05), false),
    (FunnelExpectation(kind: .lift, variant: "noSkipOnSlide1", metric: .completionRate, costsAtMost: 0.02), true),
    (FunnelExpectation(kind: .lift, variant: "noSkipOnSlide1", metric: .completionRate, costsAtMost: 0.005), false),
    (FunnelExpectation(kind: .beats, variant: "twoSlides", metric: .completionRate, users: 20_000, power: 0.9), true),
    (FunnelExpectation(kind: .beats, variant: "twoSlides", metric: .completionRate, users: 1_000, power: 0.9), false),
    (FunnelExpectation(kind: .beats, variant: "noSkipOnSlide1", metric: .completionRate, users: 1_000_000), false),
    (FunnelExpectation(kind: .best, variant: "twoSlides", metric: .completionRate, probability: 0.9), true),
    (FunnelExpectation(kind: .best, variant: "control", metric: .completionRate, probability: 0.9), false),
    (FunnelExpectation(kind: .best, variant: "control", metric: .abandonmentRate, probability: 0.5), false),
    (FunnelExpectation(kind: .best, variant: "twoSlides", metric: .abandonmentRate, probability: 0.9), true),
  ]

  @Test(.longStage, arguments: cases)
  func exactKindsPassAndFailAsTheTruthSays(expectation: FunnelExpectation, passes: Bool) throws {
    let result = try check(expectation)
    #expect(result.passed == passes, "\(result.expectation.id): \(result.evidence)")
    #expect(result.basis == .exact)
    #expect(result.failures.isEmpty == passes)
  }

  /// Exact-valued checks are the same whatever the seed.
  @Test(.longStage, arguments: [1, 2, 987_654] as [UInt64])
  func exactChecksDoNotDependOnTheSeed(seed: UInt64) throws {
    for (expectation, passes) in Self.cases {
      #expect(try check(expectation, seed: seed).passed == passes)
    }
  }

  @Test func simulatedBestAndBeatsUseASeededExperiment() throws {
    let best = try check(FunnelExpectation(kind: .best, variant: "twoSlides", metric: .completionRate, users: 5_000, probability: 0.9))
    #expect(best.passed, "\(best.evidence)")
    #expect(best.basis == .experiment(usersPerArm: 5_000, seed: 20_261_123))
    #expect(best.interval != nil)
    let wrong = try check(
      FunnelExpectation(kind: .best, variant: "noSkipOnSlide1", metric: .completionRate, users: 5_000, probability: 0.5))
    #expect(!wrong.passed)
    guard case .probabilityTooLow(let p, let leader)? = wrong.failures.first else {
      Issue.record("\(wrong.failures)")
      return
    }
    #expect(p < 0.5 && leader?.id == "twoSlides" && (leader?.value ?? 0) > 0.5, "\(wrong.failures)")
    let beats = try check(
      FunnelExpectation(kind: .beats, variant: "twoSlides", metric: .completionRate, users: 20_000, power: 0.5, simulate: true))
    #expect(beats.passed, "\(beats.evidence)")
    guard case .power(let power) = beats.evidence, let simulated = power.simulated else {
      Issue.record("\(beats.evidence)")
      return
    }
    #expect(simulated.adjustedPValue < 0.05 && simulated.difference > 0)
    #expect(beats.expectation.alpha == 0.05 && beats.expectation.users == 20_000 && beats.expectation.power == 0.5)
  }

  @Test func failuresExplainThemselves() throws {
    let r = try check(FunnelExpectation(kind: .range, variant: "control", metric: .completionRate, min: 0.7, max: 0.8))
    guard case .outOfRange(let value, 0.7, 0.8)? = r.failures.first, r.failures.count == 1 else {
      Issue.record("\(r.failures)")
      return
    }
    #expect(value < 0.7 && r.evidence == .exactValue(value) && r.measured == value)
    let l = try check(FunnelExpectation(kind: .lift, variant: "noSkipOnSlide1", metric: .completionRate, costsAtMost: 0.005))
    guard case .costsTooMuch(let cost, 0.005)? = l.failures.first, l.failures.count == 1 else {
      Issue.record("\(l.failures)")
      return
    }
    #expect(cost > 0.005 && l.measured == -cost)
  }

  @Test func invalidExpectationsAreReportedWithTheirPath() throws {
    let text = try String(contentsOfFile: experimentPath("urbannest-onboarding"), encoding: .utf8)
    let broken = text.replacingOccurrences(
      of: "\"expectations\": [",
      with: """
        "expectations": [
            { "kind": "lift", "variant": "twoSlidez", "metric": "completionRate" },
            { "kind": "beats", "variant": "control", "metric": "revenuePerUser", "min": 1 },
            { "kind": "best", "variant": "control", "metric": "completionRate", "probability": 2, "users": 1 },
            { "kind": "range", "variant": "control", "metric": "completionRate", "min": 0.8, "max": 0.7, "colour": 1 },
        """)
    #expect(throws: SpecErrors.self) { try ExperimentLoader.load(text: broken, source: "x.json") }
    do {
      _ = try ExperimentLoader.load(text: broken, source: "x.json")
    } catch {
      let lines = error.errors.map(\.description)
      let expected = [
        "expectations[0].variant", "did you mean 'twoSlides'?", "expectations[0]", "needs atLeast, costsAtMost or both",
        "expectations[1].variant", "is the control", "expectations[1].metric", "expectations[1].min", "not used by a beats",
        "expectations[1]", "needs users", "expectations[2].probability", "expectations[2].users", "expectations[3].max",
        "expectations[3].colour", "unknown key 'colour'",
      ]
      for fragment in expected {
        #expect(lines.contains { $0.contains(fragment) }, "\(fragment) not in \(lines)")
      }
    }
  }

  @Test func theSeedExperimentsDecodeTheirExpectations() throws {
    for name in seedExperiments {
      let e = try ExperimentLoader.load(contentsOf: experimentPath(name))
      #expect(e.expectations.count >= 3, "\(name)")
    }
  }
}
