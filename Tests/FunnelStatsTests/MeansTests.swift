import Foundation
import FunnelTestSupport
import Testing

@testable import FunnelStats

/// Decodes the `[k, v₁, c₁, …, k', v'₁, c'₁, …]` layout of value→count maps in fixtures.
func valueCountMaps(_ c: FixtureCase) -> (treatment: [Double: Int], control: [Double: Int]) {
  var i = 0
  func readMap() -> [Double: Int] {
    let k = c.int(i)
    i += 1
    var m: [Double: Int] = [:]
    for _ in 0..<k {
      m[c.arg(i)] = c.int(i + 1)
      i += 2
    }
    return m
  }
  let t = readMap()
  let ctl = readMap()
  return (t, ctl)
}

@Suite struct MeansTests {
  /// Welch: scipy computes the variance in two passes, we from sums of squares: 1e-10
  /// relative on t, p, ν and the interval. Mann–Whitney: rank sums are exact, 1e-12.
  @Test(arguments: try Fixtures.cases("means.json", prefix: "welch."))
  func welchMatchesScipy(_ c: FixtureCase) throws {
    let maps = valueCountMaps(c)
    let t = SampleMeanStatistic(counts: maps.treatment)
    let ctl = SampleMeanStatistic(counts: maps.control)
    if c.fn == "welch.ci95" {
      let r = try WelchTTest.test(treatment: t, control: ctl)
      let ci = try #require(r.difference.interval)
      #expect(close(ci.lower, c.value(0), 1e-10, absoluteFloor: 1e-14, c.testDescription))
      #expect(close(ci.upper, c.value(1), 1e-10, absoluteFloor: 1e-14, c.testDescription))
      return
    }
    let alt = try #require(Alternative(rawValue: String(c.fn.dropFirst("welch.".count))))
    let r = try WelchTTest.test(treatment: t, control: ctl, alternative: alt)
    #expect(close(r.test.statistic, c.value(0), 1e-10, absoluteFloor: 1e-12, c.testDescription))
    #expect(close(r.test.pValue, c.value(1), 1e-10, c.testDescription))
    #expect(close(r.test.degreesOfFreedom ?? .nan, c.value(2), 1e-10, c.testDescription))
  }

  @Test(arguments: try Fixtures.cases("means.json", prefix: "mannwhitney."))
  func mannWhitneyMatchesScipy(_ c: FixtureCase) throws {
    let maps = valueCountMaps(c)
    let alt = try #require(Alternative(rawValue: String(c.fn.dropFirst("mannwhitney.".count))))
    let r = try MannWhitneyUTest.test(treatment: maps.treatment, control: maps.control, alternative: alt)
    #expect(close(r.test.statistic, c.value(0), 1e-12, c.testDescription))
    #expect(close(r.test.pValue, c.value(1), 1e-12, c.testDescription))
  }

  /// Bit-exact agreement with a Python implementation of the reference algorithms.
  @Test(arguments: try Fixtures.cases("means.json", prefix: "splitmix64") + Fixtures.cases("means.json", prefix: "xoshiro"))
  func generatorsMatchReferenceStreams(_ c: FixtureCase) throws {
    let seed = try #require(UInt64(c.args[0]))
    let expected = c.expected.compactMap { UInt64($0) }
    var got: [UInt64] = []
    if c.fn == "splitmix64" {
      var g = SplitMix64(seed: seed)
      got = (0..<5).map { _ in g.next() }
    } else {
      var g = Xoshiro256StarStar(seed: seed)
      got = (0..<5).map { _ in g.next() }
    }
    #expect(got == expected, "\(c.testDescription)")
  }

  @Test func sufficientStatisticsMerge() {
    let a = SampleMeanStatistic(values: [1, 2, 3])
    let b = SampleMeanStatistic(values: [4, 5])
    let all = SampleMeanStatistic(values: [1, 2, 3, 4, 5])
    #expect(a + b == all)
    #expect(a + .zero == a)
    #expect(all.mean == 3)
    #expect(all.variance == 2.5)
    #expect(SampleMeanStatistic.zero.mean == nil)
  }

  @Test func welchDegenerateInputGivesDiagnostics() throws {
    let one = SampleMeanStatistic(values: [1])
    let two = SampleMeanStatistic(values: [1, 1])
    #expect(try WelchTTest.test(treatment: one, control: two).test.diagnostic == .insufficientData)
    let r = try WelchTTest.test(treatment: two, control: two)
    #expect(r.test.diagnostic == .zeroVariance)
    #expect(r.test.pValue == 1)
    #expect(throws: StatsError.self) {
      try WelchTTest.test(treatment: SampleMeanStatistic(n: -1, sum: 0, sumOfSquares: 0), control: two)
    }
  }

  @Test func mannWhitneyAllTiedIsNeutral() throws {
    let r = try MannWhitneyUTest.test(treatment: [3: 10], control: [3: 12])
    #expect(r.test.pValue == 1)
    #expect(r.test.diagnostic == .zeroVariance)
    #expect(throws: StatsError.self) { try MannWhitneyUTest.test(treatment: [:], control: [1: 1]) }
  }

  @Test(arguments: [UInt64(1), 42, 0x5EED])
  func bootstrapIsDeterministicAndCoversWelch(_ seed: UInt64) throws {
    let t: [Double: Int] = [0: 900, 5: 60, 20: 40]
    let c: [Double: Int] = [0: 920, 5: 55, 20: 25]
    let settings = Bootstrap.Settings(replicates: 400, seed: seed)
    let a = try Bootstrap.meanIntervals(treatment: t, control: c, settings: settings)
    let b = try Bootstrap.meanIntervals(treatment: t, control: c, settings: settings)
    #expect(a == b)
    let welch = try WelchTTest.test(
      treatment: SampleMeanStatistic(counts: t), control: SampleMeanStatistic(counts: c))
    let w = try #require(welch.difference.interval)
    let d = try #require(a.difference.interval)
    // Percentile bootstrap and Welch agree to within ~15 % of the width at n = 1000.
    let width = w.upper - w.lower
    #expect(abs(d.lower - w.lower) < 0.15 * width)
    #expect(abs(d.upper - w.upper) < 0.15 * width)
    let ratio = try #require(a.ratio.interval)
    #expect(ratio.lower < 1.6 && ratio.upper > 1.0)
  }

  @Test func boundedIntegersAreUniform() {
    var g = Xoshiro256StarStar(seed: 7)
    var counts = [Int](repeating: 0, count: 6)
    for _ in 0..<60_000 { counts[Int(g.nextBounded(6))] += 1 }
    // Each cell ~ Binomial(60000, 1/6), in a band set for the 6 cells (StatisticalBand: z ≈ 3.72).
    let band = StatisticalBand(checks: counts.count)
    for (face, count) in counts.enumerated() {
      band.expectProportion(UInt64(count), of: 60_000, exact: 1.0 / 6, "face \(face)")
    }
    let u = (0..<1000).map { _ in g.nextUnitDouble() }
    #expect(u.allSatisfy { $0 >= 0 && $0 < 1 })
  }
}

@Suite struct BinomialSamplerMomentTests {
  /// Sample mean and variance of 20 000 seeded draws of ``BinomialSampler`` agree with np (a band set for the
  /// 5 cases' means, ``StatisticalBand``: z ≈ 3.72) and npq (within 10 %), and the draws stay in 0...n.
  @Test(arguments: [(10.0, 0.3), (1000.0, 0.01), (1e6, 0.5), (1e9, 1e-7), (50.0, 0.999)])
  func momentsMatch(_ n: Double, _ p: Double) {
    var rng = Xoshiro256StarStar(seed: 5)
    let draws = 20_000
    var sum = 0.0
    var sumSq = 0.0
    for _ in 0..<draws {
      let x = Double(BinomialSampler.sample(trials: UInt64(n), probability: p, using: &rng))
      #expect(x >= 0 && x <= n && x == x.rounded())
      sum += x
      sumSq += x * x
    }
    let mean = sum / Double(draws)
    let variance = (sumSq - sum * sum / Double(draws)) / Double(draws - 1)
    let expectedVariance = n * p * (1 - p)
    StatisticalBand(checks: 5).expect(mean, exact: n * p, standardError: (expectedVariance / Double(draws)).squareRoot(), "mean")
    // Var of the sample variance ≈ 2σ⁴/(N−1) for near-normal draws; allow 10 %.
    #expect(abs(variance / expectedVariance - 1) < 0.1, "variance \(variance)")
  }
}
