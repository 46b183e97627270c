import Foundation
import Testing

@testable import FunnelStats

/// References are 30-digit mpmath values (Evan Miller's exact sum; adaptive quadrature for
/// best-of-k and expected loss; tolerance 1e-10 absolute-or-relative) and 80-digit exact sums
/// over the whole range, rates of 0 and 1 and n up to 10¹² included (`.exact`; 1e-8 relative).
@Suite struct BayesianTests {
  static func counts(_ c: FixtureCase) throws -> [ProportionCount] {
    try stride(from: 0, to: c.args.count, by: 2).map {
      try ProportionCount(successes: c.int($0), trials: c.int($0 + 1))
    }
  }

  @Test(arguments: try Fixtures.load("bayesian.json"))
  func matchesMpmath(_ c: FixtureCase) throws {
    let model = BetaBinomialModel()
    let arms = try Self.counts(c)
    switch c.fn {
    case "beta.beat":
      let p = try model.probabilityToBeat(treatment: arms[0], control: arms[1])
      #expect(close(p, c.value, 1e-10, absoluteFloor: 1e-13, c.testDescription))
      let exact = try #require(try model.probabilityToBeatExact(treatment: arms[0], control: arms[1]))
      // The closed sum works with log B terms of size up to ~10⁵ at n = 10⁶: ~1e-11 absolute.
      #expect(close(exact, c.value, 5e-11, absoluteFloor: 1e-15, c.testDescription + " (exact sum)"))
    case "beta.best":
      let p = try model.probabilityToBeBest(arms)
      for (i, v) in p.enumerated() {
        #expect(close(v, c.value(i), 1e-10, absoluteFloor: 1e-13, "\(c.testDescription)[\(i)]"))
      }
    case "beta.loss":
      let loss = try model.expectedLoss(treatment: arms[0], control: arms[1])
      #expect(close(loss, c.value, 1e-10, absoluteFloor: 1e-15, c.testDescription))
    case "beta.beat.exact":
      // 1e-8 relative over the whole range (0, 1, n−1 and n conversions, n up to 10¹²), both
      // directions computed directly: neither is 1 minus the other.
      let p = try model.probabilityToBeBest(arms)
      #expect(close(p[0], c.value, 1e-8, c.testDescription))
      // The two directions are integrated separately, each to ~1e-11 (a hundred times finer
      // than the 1e-8 asked for): their sum is 1 to 1e-10.
      #expect(close(p[0] + p[1], 1, 1e-10, c.testDescription + " (sum)"))
    case "beta.loss.exact":
      let loss = try model.expectedLoss(treatment: arms[0], control: arms[1])
      #expect(close(loss, c.value, 1e-8, absoluteFloor: 1e-300, c.testDescription))
    default:
      Issue.record("unknown fixture function \(c.fn)")
    }
  }

  @Test func identicalArmsAreACoinFlip() throws {
    let a = try ProportionCount(successes: 120, trials: 1000)
    let model = BetaBinomialModel()
    #expect(abs(try model.probabilityToBeat(treatment: a, control: a) - 0.5) < 1e-12)
    let best = try model.probabilityToBeBest([a, a, a])
    #expect(best.allSatisfy { abs($0 - 1.0 / 3) < 1e-11 })
  }

  @Test func largeSamplesAndSeparatedArms() throws {
    let model = BetaBinomialModel()
    let c = try ProportionCount(successes: 100_000, trials: 1_000_000)
    let t = try ProportionCount(successes: 101_500, trials: 1_000_000)
    let p = try model.probabilityToBeat(treatment: t, control: c)
    // Normal approximation: z = 0.0015 / sqrt(2 · 0.1 · 0.9 / 1e6) ≈ 3.536 → 0.99980.
    #expect(abs(p - Normal.standardCDF(0.0015 / (2 * 0.1 * 0.9 / 1e6).squareRoot())) < 1e-4)
    let small = try ProportionCount(successes: 12, trials: 100)
    let unequal = try model.probabilityToBeat(treatment: small, control: c)
    #expect(unequal > 0.5 && unequal < 0.8)
  }

  @Test func normalModelForRevenue() throws {
    let t = SampleMeanStatistic(counts: [0: 900, 10: 100])
    let c = SampleMeanStatistic(counts: [0: 920, 10: 80])
    let r = try NormalPosteriorModel.compare(treatment: t, control: c)
    #expect(r.probabilityToBeat > 0.9 && r.probabilityToBeat < 1)
    #expect(r.expectedLoss > 0 && r.expectedLoss < 0.01)
    let flat = SampleMeanStatistic(counts: [5: 10])
    #expect(try NormalPosteriorModel.compare(treatment: flat, control: flat).diagnostic == .zeroVariance)
  }

  @Test func invalidPriorThrows() throws {
    let a = try ProportionCount(successes: 1, trials: 2)
    #expect(throws: StatsError.self) {
      try BetaBinomialModel(priorAlpha: 0).probabilityToBeat(treatment: a, control: a)
    }
  }
}
