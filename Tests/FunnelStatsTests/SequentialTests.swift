import Foundation
import FunnelTestSupport
import Testing

@testable import FunnelStats

@Suite struct GroupSequentialDesignTests {
  /// Published Lan–DeMets boundaries, K = 5 equally spaced looks, two-sided α = 0.05
  /// (Jennison & Turnbull 2000, ch. 7; R `ldbounds`/`gsDesign`), given to 3–4 decimals.
  static let published: [(GroupSequentialDesign.Spending, [Double])] = [
    (.obrienFleming, [4.8769, 3.3569, 2.6803, 2.2898, 2.0310]),
    (.pocock, [2.4380, 2.4268, 2.4101, 2.3966, 2.3859]),
  ]

  @Test(arguments: 0..<2)
  func matchesPublishedTables(_ index: Int) throws {
    let (spending, expected) = Self.published[index]
    let design = try GroupSequentialDesign(looks: 5, alpha: 0.05, spending: spending)
    for (got, want) in zip(design.boundaries, expected) {
      #expect(abs(got - want) < 1.5e-3, "\(spending) boundary \(got) vs published \(want)")
    }
    #expect(abs((design.cumulativeAlpha.last ?? 0) - 0.05) < 1e-15)
  }

  /// The recursion's per-look crossing probabilities against scipy's multivariate normal
  /// cdf (Genz's quasi-Monte Carlo, error ~1e-8): 2e-7 absolute, under H₀ and under drift.
  @Test(arguments: Fixtures.load("sequential.json"))
  func exitProbabilitiesMatchMultivariateNormal(_ c: FixtureCase) throws {
    let k = c.int(0)
    try #require(c.args.count == 2 * k + 2, "bad case \(c.id)")
    let fractions = (1...k).map { c.arg($0) }
    let boundaries = (1...k).map { c.arg(k + $0) }
    let drift = c.arg(2 * k + 1)
    let exits = try GroupSequentialDesign.exitProbabilities(
      boundaries: boundaries, informationFractions: fractions, drift: drift)
    for (i, e) in exits.enumerated() {
      #expect(abs(e - c.value(i)) < 2e-7, "\(c.testDescription)[\(i)]: got \(e)")
    }
  }

  @Test func powerOfADesign() throws {
    let design = try GroupSequentialDesign(looks: 5, alpha: 0.05, spending: .obrienFleming)
    #expect(abs(design.power(drift: 0) - 0.05) < 1e-6)
    // Drift 2.8 gives ~80 % power for a fixed-sample test; OBF loses only a little.
    let power = design.power(drift: 2.8)
    #expect(power > 0.78 && power < 0.80)
  }

  @Test func singleLookIsTheFixedSampleTest() throws {
    let design = try GroupSequentialDesign(looks: 1)
    #expect(abs(design.boundaries[0] - 1.959963984540054) < 1e-12)
  }

  /// Seeded simulation of Brownian motion under H₀: the overall crossing rate is α within a
  /// binomial band set for one check per spending function (20 000 paths: σ ≈ 0.0015;
  /// ``StatisticalBand``).
  @Test(arguments: GroupSequentialDesign.Spending.allCases)
  func simulatedTypeIErrorIsAlpha(_ spending: GroupSequentialDesign.Spending) throws {
    let design = try GroupSequentialDesign(looks: 5, alpha: 0.05, spending: spending)
    var rng = Xoshiro256StarStar(seed: 2024)
    let paths = 20_000
    var rejections = 0
    for _ in 0..<paths {
      var s = 0.0
      var previous = 0.0
      for (k, t) in design.informationFractions.enumerated() {
        let u = rng.nextUnitDouble()
        let z = Normal.standardQuantile(p: u == 0 ? 0x1p-60 : u, q: 1 - u)
        s += z * (t - previous).squareRoot()
        previous = t
        if design.rejects(z: s / t.squareRoot(), atLook: k) {
          rejections += 1
          break
        }
      }
    }
    let rate = Double(rejections) / Double(paths)
    StatisticalBand(checks: GroupSequentialDesign.Spending.allCases.count).expect(
      rate, exact: 0.05, standardError: (0.05 * 0.95 / Double(paths)).squareRoot(), "\(spending) crossing rate")
  }

  @Test func invalidDesignsThrow() {
    #expect(throws: StatsError.self) { try GroupSequentialDesign(looks: 0) }
    #expect(throws: StatsError.self) { try GroupSequentialDesign(informationFractions: [0.5, 0.4, 1]) }
    #expect(throws: StatsError.self) { try GroupSequentialDesign(looks: 3, alpha: 1.5) }
  }
}

@Suite struct AlwaysValidProportionTestTests {
  @Test func likelihoodRatioFormula() throws {
    var monitor = try AlwaysValidProportionTest()
    let look = try monitor.update(
      treatment: ProportionCount(successes: 150, trials: 1000),
      control: ProportionCount(successes: 120, trials: 1000))
    let v = 0.15 * 0.85 / 1000 + 0.12 * 0.88 / 1000
    let tau2 = 0.0001
    let lambda = (v / (v + tau2)).squareRoot() * exp(tau2 * 0.03 * 0.03 / (2 * v * (v + tau2)))
    #expect(abs(look.likelihoodRatio - lambda) < 1e-12 * lambda)
    #expect(abs(look.pValue - min(1, 1 / lambda)) < 1e-12)
    let cs = try #require(look.confidenceSequence)
    #expect(cs.contains(0.03))
    // Wider than the fixed-horizon Wald interval at the same n.
    #expect(cs.upper - cs.lower > 2 * 1.96 * v.squareRoot())
  }

  /// A/A experiments monitored every 200 users per arm up to 4000: the rate of ever
  /// rejecting stays below α (plus a one-check ``StatisticalBand``, z ≈ 3.29, of the binomial
  /// SE for 400 seeded experiments).
  @Test func continuousMonitoringKeepsAlpha() throws {
    var rng = Xoshiro256StarStar(seed: 99)
    let experiments = 400
    var everRejected = 0
    for _ in 0..<experiments {
      var monitor = try AlwaysValidProportionTest()
      var x1 = 0
      var x0 = 0
      var n = 0
      var rejected = false
      while n < 4000 && !rejected {
        for _ in 0..<200 {
          if rng.nextUnitDouble() < 0.1 { x1 += 1 }
          if rng.nextUnitDouble() < 0.1 { x0 += 1 }
        }
        n += 200
        let look = try monitor.update(
          treatment: ProportionCount(successes: x1, trials: n),
          control: ProportionCount(successes: x0, trials: n))
        rejected = look.rejected
      }
      if rejected { everRejected += 1 }
    }
    let rate = Double(everRejected) / Double(experiments)
    #expect(rate <= 0.05 + StatisticalBand(checks: 1).z * (0.05 * 0.95 / Double(experiments)).squareRoot(), "rate \(rate)")
  }

  @Test func pValueNeverIncreases() throws {
    var monitor = try AlwaysValidProportionTest(settings: .init(mixingStandardDeviation: 0.02))
    var last = 1.0
    for (x1, x0, n) in [(20, 10, 100), (25, 24, 200), (60, 40, 300), (61, 60, 400)] {
      let look = try monitor.update(
        treatment: ProportionCount(successes: x1, trials: n),
        control: ProportionCount(successes: x0, trials: n))
      #expect(look.pValue <= last)
      last = look.pValue
    }
  }
}
