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

  /// Both sides and both scales of `lift`, and `range` relative to another variant, each
  /// passing and failing where UrbanNest's exact values say (twoSlides lifts completion by
  /// 0.03348 = 5.15 % of the control's 0.6497; noSkipOnSlide1 costs between 0.005 and 0.02).
  @Test func twoSidedBoundsAndScales() throws {
    typealias E = FunnelExpectation
    let twoSlides = { (e: E) in try self.check(e) }
    #expect(try twoSlides(E(kind: .lift, variant: "twoSlides", metric: .completionRate, atMost: 0.05)).passed)
    let tooLarge = try twoSlides(E(kind: .lift, variant: "twoSlides", metric: .completionRate, atMost: 0.03))
    guard case .liftTooLarge(let lift, 0.03)? = tooLarge.failures.first else {
      Issue.record("\(tooLarge.failures)")
      return
    }
    #expect(abs(lift - 0.03348) < 1e-4)
    #expect(try check(E(kind: .lift, variant: "noSkipOnSlide1", metric: .completionRate, costsAtLeast: 0.005)).passed)
    let cheap = try check(E(kind: .lift, variant: "noSkipOnSlide1", metric: .completionRate, costsAtLeast: 0.02))
    guard case .costsTooLittle(let cost, 0.02)? = cheap.failures.first else {
      Issue.record("\(cheap.failures)")
      return
    }
    #expect(cost > 0.005 && cost < 0.02)
    #expect(try twoSlides(E(kind: .lift, variant: "twoSlides", metric: .completionRate, within: 0.04)).passed)
    let wide = try twoSlides(E(kind: .lift, variant: "twoSlides", metric: .completionRate, within: 0.03))
    #expect(wide.failures.count == 1 && { if case .notEquivalent = wide.failures[0] { true } else { false } }(), "\(wide.failures)")
    // Relative: 5.15 % of the control's value.
    let relative = try twoSlides(E(kind: .lift, variant: "twoSlides", metric: .completionRate, atLeast: 0.05, scale: .relative))
    #expect(relative.passed && abs((relative.measured ?? 0) - 0.03348 / 0.6497) < 1e-3, "\(relative)")
    #expect(try !twoSlides(E(kind: .lift, variant: "twoSlides", metric: .completionRate, atLeast: 0.06, scale: .relative)).passed)
    // Lower is better for abandonment: fewer quits are an improvement.
    #expect(try twoSlides(E(kind: .lift, variant: "twoSlides", metric: .abandonmentRate, atLeast: 0.03)).passed)
    // A range relative to the control, absolute and relative.
    let range = try check(E(kind: .range, variant: "twoSlides", metric: .completionRate, min: 0.03, max: 0.04, relativeTo: "control"))
    #expect(range.passed && range.evidence != .undefined, "\(range)")
    #expect(
      try check(
        E(kind: .range, variant: "twoSlides", metric: .completionRate, min: 0.05, max: 0.06, scale: .relative, relativeTo: "control")
      ).passed)
    #expect(try !check(E(kind: .range, variant: "control", metric: .completionRate, min: 0, relativeTo: "twoSlides")).passed)
  }

  /// `equivalent`: the TOST's power at the exact rates (noSkipOnSlide1 costs 0.01053 of
  /// completion), failing when the truth is outside the margin or the test is too small, and
  /// with `simulate` a seeded run's TOST.
  @Test func equivalenceIsATestsDetection() throws {
    typealias E = FunnelExpectation
    let e = E(kind: .equivalent, variant: "noSkipOnSlide1", metric: .completionRate, within: 0.02, users: 50_000)
    let pass = try check(e)
    #expect(pass.passed && pass.alpha == 0.05 && pass.arms == ["noSkipOnSlide1"], "\(pass)")
    guard case .power(let evidence) = pass.evidence, let margin = evidence.margin else {
      Issue.record("\(pass.evidence)")
      return
    }
    #expect(margin == 0.02 && abs(evidence.difference + 0.01053) < 1e-4 && evidence.power > 0.9 && evidence.power < 0.95, "\(evidence)")
    let outside = try check(E(kind: .equivalent, variant: "noSkipOnSlide1", metric: .completionRate, within: 0.01, users: 50_000))
    guard case .notEquivalent(_, 0.01)? = outside.failures.first else {
      Issue.record("\(outside.failures)")
      return
    }
    let small = try check(E(kind: .equivalent, variant: "noSkipOnSlide1", metric: .completionRate, within: 0.02, users: 5_000))
    guard case .underpowered(let power, _)? = small.failures.first else {
      Issue.record("\(small.failures)")
      return
    }
    #expect(power < 0.8)
    // Relative: 3 % of the control's 0.6497 is a margin of 0.01949.
    let relative = try check(
      E(kind: .equivalent, variant: "noSkipOnSlide1", metric: .completionRate, within: 0.03, scale: .relative, users: 50_000))
    guard case .power(let r) = relative.evidence else { return }
    #expect(abs((r.margin ?? 0) - 0.03 * 0.6497) < 1e-4)
    let simulated = try check(
      E(kind: .equivalent, variant: "noSkipOnSlide1", metric: .completionRate, within: 0.02, users: 50_000, simulate: true))
    #expect(simulated.passed && simulated.basis == .exactAndExperiment(usersPerArm: 50_000, seed: 20_261_123), "\(simulated)")
    #expect(simulated.interval.map { $0.lower > -0.02 && $0.upper < 0.02 } == true, "\(String(describing: simulated.interval))")
  }

  /// `liftBounds` combines every key: the largest lower bound and the smallest upper bound.
  @Test func liftBoundsCombineEveryKey() {
    let e = FunnelExpectation(
      kind: .lift, variant: "b", metric: .completionRate, atLeast: -0.01, costsAtMost: 0.005, atMost: 0.2, costsAtLeast: nil,
      within: 0.1)
    #expect(e.liftBounds.lower == -0.005 && e.liftBounds.upper == 0.1)
    let open = FunnelExpectation(kind: .lift, variant: "b", metric: .completionRate, costsAtLeast: 0.01)
    #expect(open.liftBounds.lower == -.infinity && open.liftBounds.upper == -0.01)
  }

  /// Loads UrbanNest with `items` prepended to its expectations and expects every fragment in
  /// its problems (the loader must refuse it).
  func expectProblems(_ items: String, _ fragments: [String], sourceLocation: SourceLocation = #_sourceLocation) throws {
    let text = try String(contentsOfFile: experimentPath("urbannest-onboarding"), encoding: .utf8)
    let broken = text.replacingOccurrences(of: "\"expectations\": [", with: "\"expectations\": [\n" + items)
    do {
      _ = try ExperimentLoader.load(text: broken, source: "x.json")
      Issue.record("the spec loaded", sourceLocation: sourceLocation)
    } catch {
      let lines = error.errors.map(\.description)
      for fragment in fragments {
        #expect(lines.contains { $0.contains(fragment) }, "\(fragment) not in \(lines)", sourceLocation: sourceLocation)
      }
    }
  }

  @Test func invalidBoundsAndReferencesAreReported() throws {
    try expectProblems(
      """
      { "kind": "lift", "variant": "twoSlides", "metric": "completionRate", "atLeast": 0.02, "costsAtLeast": 0.01 },
      { "kind": "lift", "variant": "twoSlides", "metric": "completionRate", "within": -1, "scale": "percent" },
      { "kind": "range", "variant": "twoSlides", "metric": "completionRate", "min": 0, "scale": "relative" },
      { "kind": "range", "variant": "twoSlides", "metric": "completionRate", "min": 0, "relativeTo": "twoSlides" },
      { "kind": "beats", "variant": "twoSlides", "metric": "completionRate", "users": 100, "among": ["control", "twoSlidez", "twoSlides", "twoSlides"] },
      { "kind": "best", "variant": "twoSlides", "metric": "completionRate", "probability": 0.5, "among": [], "relativeTo": "control" },
      { "kind": "equivalent", "variant": "control", "metric": "timeToFinish", "users": 100, "atLeast": 0 },
      """,
      [
        "expectations[0]", "no improvement meets every bound: it must be ≥ 0.02 and ≤ -0.01", "expectations[1].within", "must be ≥ 0",
        "expectations[1].scale", "expectations[2].scale", "a relative range needs relativeTo", "expectations[3].relativeTo",
        "relative to its own variant", "expectations[4].among[0]", "the control is not a comparison", "expectations[4].among[1]",
        "did you mean 'twoSlides'?", "expectations[4].among[3]", "listed twice", "expectations[5].among", "lists no arm",
        "expectations[5].relativeTo", "not used by a best", "expectations[6].variant", "expectations[6].metric",
        "an equivalent expectation needs a proportion metric", "expectations[6].atLeast", "not used by an equivalent",
        "an equivalent expectation needs within > 0",
      ])
  }

  @Test func invalidExpectationsAreReportedWithTheirPath() throws {
    try expectProblems(
      """
      { "kind": "lift", "variant": "twoSlidez", "metric": "completionRate" },
      { "kind": "beats", "variant": "control", "metric": "revenuePerUser", "min": 1 },
      { "kind": "best", "variant": "control", "metric": "completionRate", "probability": 2, "users": 1 },
      { "kind": "range", "variant": "control", "metric": "completionRate", "min": 0.8, "max": 0.7, "colour": 1 },
      """,
      [
        "expectations[0].variant", "did you mean 'twoSlides'?", "expectations[0]",
        "needs atLeast, atMost, costsAtLeast, costsAtMost or within",
        "expectations[1].variant", "is the control", "expectations[1].metric", "expectations[1].min", "not used by a beats",
        "expectations[1]", "needs users", "expectations[2].probability", "expectations[2].users", "expectations[3].max",
        "expectations[3].colour", "unknown key 'colour'",
      ])
  }

  @Test func theSeedExperimentsDecodeTheirExpectations() throws {
    for name in seedExperiments {
      let e = try ExperimentLoader.load(contentsOf: experimentPath(name))
      #expect(e.expectations.count >= 3, "\(name)")
    }
  }
}
