import Foundation
import FunnelTestSupport
import Testing

@testable import FunnelStats

@Suite struct BinomialSamplerTests {
  struct Case: Sendable, CustomTestStringConvertible {
    var n: UInt64
    var p: Double
    var testDescription: String { "Binomial(\(n), \(p))" }
  }

  /// Inversion (n·r < 30), BTPE (n·r ≥ 30), both with p > ½ (reflected), and n = 10⁶.
  static let cases: [Case] = [
    Case(n: 20, p: 0.3), Case(n: 1000, p: 0.01), Case(n: 100, p: 0.9), Case(n: 1000, p: 0.3),
    Case(n: 200, p: 0.5), Case(n: 50_000, p: 0.999), Case(n: 1_000_000, p: 0.42), Case(n: 5000, p: 0.0061),
  ]

  /// Pearson's goodness of fit of 50,000 draws against the exact pmf, with adjacent
  /// values pooled until each bin expects at least 5 draws; the statistic must lie
  /// below the χ² `1 − α/n` quantile, and the mean within the band. The tolerances are
  /// set for the 2 checks per case over the 8 cases (``StatisticalBand``: n = 16,
  /// z ≈ 4.00, α = 0.001 for the whole test).
  @Test(arguments: cases)
  func drawsFollowTheBinomialPMF(_ c: Case) {
    let draws = 50_000
    let band = StatisticalBand(checks: 2 * Self.cases.count)
    let distribution = Binomial(trials: Int(c.n), probability: c.p)
    let mean = Double(c.n) * c.p
    let sd = (mean * (1 - c.p)).squareRoot()
    let lo = max(0, Int((mean - 12 * sd - 1).rounded(.down)))
    let hi = min(Int(c.n), Int((mean + 12 * sd + 1).rounded(.up)))
    // Bins over [lo, hi]; the tails below lo and above hi join the first and last bin.
    var binOf = [Int](repeating: 0, count: hi - lo + 1)
    var expected: [Double] = []
    var running = distribution.cdf(lo - 1)
    for k in lo...hi {
      running += distribution.pmf(k) + (k == hi ? distribution.sf(hi) : 0)
      binOf[k - lo] = expected.count
      if running * Double(draws) >= 5 || k == hi {
        expected.append(running * Double(draws))
        running = 0
      }
    }
    if expected.count > 1, let last = expected.last, last < 5 {
      // Merge an underfilled last bin into its neighbour.
      expected.removeLast()
      expected[expected.count - 1] += last
      for i in binOf.indices where binOf[i] == expected.count { binOf[i] = expected.count - 1 }
    }
    var observed = [Double](repeating: 0, count: expected.count)
    var rng = Xoshiro256StarStar(seed: 42, stream: c.n ^ UInt64(c.p * 1e6))
    var sum = 0.0
    for _ in 0..<draws {
      let x = BinomialSampler.sample(trials: c.n, probability: c.p, using: &rng)
      #expect(x <= c.n)
      sum += Double(x)
      observed[binOf[min(max(Int(x) - lo, 0), hi - lo)]] += 1
    }
    let chi2 = zip(observed, expected).reduce(0.0) { $0 + ($1.0 - $1.1) * ($1.0 - $1.1) / $1.1 }
    let df = Double(expected.count - 1)
    let critical = ChiSquared(degreesOfFreedom: df).isf(band.perCheckFalseAlarm)
    #expect(chi2 < critical, "χ² = \(chi2) on \(df) df, critical \(critical)")
    let se = sd / Double(draws).squareRoot()
    band.expect(sum / Double(draws), exact: mean, standardError: se, "mean of the draws")
  }

  @Test func degenerateProbabilitiesAndEmptyTrials() {
    var rng = Xoshiro256StarStar(seed: 1)
    #expect(BinomialSampler.sample(trials: 0, probability: 0.5, using: &rng) == 0)
    #expect(BinomialSampler.sample(trials: 100, probability: 0, using: &rng) == 0)
    #expect(BinomialSampler.sample(trials: 100, probability: 1, using: &rng) == 100)
    #expect(BinomialSampler.sample(trials: 100, probability: -0.1, using: &rng) == 0)
    #expect(BinomialSampler.sample(trials: 100, probability: 1.5, using: &rng) == 100)
  }

  /// The same generator state gives the same draws: no hidden global state.
  @Test func drawsAreDeterministic() {
    var a = Xoshiro256StarStar(seed: 9, stream: 3)
    var b = Xoshiro256StarStar(seed: 9, stream: 3)
    for n: UInt64 in [7, 70, 7000, 7_000_000] {
      #expect(
        BinomialSampler.sample(trials: n, probability: 0.37, using: &a)
          == BinomialSampler.sample(trials: n, probability: 0.37, using: &b))
    }
  }
}
