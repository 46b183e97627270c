import Foundation
import FunnelTestSupport
import Testing

@testable import FunnelStats

/// Seeded simulation checks: tests hold their level on A/A data and intervals cover.
/// Each prints the failing seed through the expectation message.
@Suite struct PropertyTests {
  /// Draws Binomial(n, p) by summing Bernoulli draws (fine for the small n used here).
  static func binomial(_ n: Int, _ p: Double, _ rng: inout Xoshiro256StarStar) -> Int {
    var x = 0
    for _ in 0..<n where rng.nextUnitDouble() < p { x += 1 }
    return x
  }

  /// A/A: the pooled z-test rejects at α = 0.05 about 5 % of the time
  /// (1000 experiments; a binomial band set for the 2 checks of the two seeds,
  /// ``StatisticalBand``: z ≈ 3.48).
  @Test(arguments: [UInt64(11), 12])
  func zTestFalsePositiveRateIsAlpha(_ seed: UInt64) throws {
    var rng = Xoshiro256StarStar(seed: seed)
    let experiments = 1000
    var rejections = 0
    for _ in 0..<experiments {
      let a = try ProportionCount(successes: Self.binomial(1000, 0.1, &rng), trials: 1000)
      let b = try ProportionCount(successes: Self.binomial(1000, 0.1, &rng), trials: 1000)
      if try TwoProportionZTest.test(treatment: b, control: a).pValue < 0.05 { rejections += 1 }
    }
    let rate = Double(rejections) / Double(experiments)
    let band = StatisticalBand(checks: 2)
    band.expect(rate, exact: 0.05, standardError: (0.05 * 0.95 / Double(experiments)).squareRoot(), "seed \(seed): A/A rejection rate")
  }

  /// Wilson 95 % intervals cover the true rate 93–97 % of the time at n = 60, p = 0.1
  /// (its coverage oscillates around the nominal level; Wald's falls to ~88 % here).
  @Test(arguments: [UInt64(21), 22])
  func wilsonCovers(_ seed: UInt64) throws {
    var rng = Xoshiro256StarStar(seed: seed)
    let trials = 4000
    var covered = 0
    var waldCovered = 0
    for _ in 0..<trials {
      let x = try ProportionCount(successes: Self.binomial(60, 0.1, &rng), trials: 60)
      if try ProportionInterval.wilson(x).contains(0.1) { covered += 1 }
      if try ProportionInterval.wald(x).contains(0.1) { waldCovered += 1 }
    }
    let rate = Double(covered) / Double(trials)
    #expect(rate > 0.93 && rate < 0.97, "seed \(seed): Wilson coverage \(rate)")
    #expect(Double(waldCovered) / Double(trials) < rate, "seed \(seed): Wald should cover less")
  }

  /// A/A on zero-heavy revenue: Welch's test holds its level (600 experiments; one
  /// check in a ``StatisticalBand``: z ≈ 3.29).
  @Test func welchFalsePositiveRateOnRevenue() throws {
    var rng = Xoshiro256StarStar(seed: 31)
    let experiments = 600
    var rejections = 0
    func arm() -> SampleMeanStatistic {
      var counts: [Double: Int] = [:]
      for _ in 0..<800 {
        let u = rng.nextUnitDouble()
        let v: Double = u < 0.9 ? 0 : (u < 0.97 ? 9.99 : (u < 0.995 ? 29.99 : 99.99))
        counts[v, default: 0] += 1
      }
      return SampleMeanStatistic(counts: counts)
    }
    for _ in 0..<experiments {
      let a = arm()
      let b = arm()
      if try WelchTTest.test(treatment: b, control: a).test.pValue < 0.05 { rejections += 1 }
    }
    let rate = Double(rejections) / Double(experiments)
    StatisticalBand(checks: 1).expect(
      rate, exact: 0.05, standardError: (0.05 * 0.95 / Double(experiments)).squareRoot(), "Welch A/A rejection rate")
  }
}
