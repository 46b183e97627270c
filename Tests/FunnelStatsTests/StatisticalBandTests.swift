import FunnelStats
import FunnelTestSupport
import Testing

/// The band of the many-check statistical tests (``StatisticalBand``, in Tests/Support):
/// its width follows the Bonferroni rule, and it still fails a biased estimate.
@Suite struct StatisticalBandTests {
  /// z = Φ⁻¹(1 − α/(2n)): the two-sided normal quantiles of α/n (α = 0.001).
  @Test(arguments: [(1, 3.290_527), (2, 3.480_756), (20, 4.055_627), (300, 4.649_133), (10_000, 5.326_724)])
  func halfWidthIsTheBonferroniQuantile(checks: Int, z: Double) {
    let band = StatisticalBand(checks: checks)
    #expect(abs(band.z - z) < 1e-5, "\(checks) checks: z \(band.z)")
    #expect(abs(Normal.standard.cdf(band.z) - (1 - 0.001 / (2 * Double(checks)))) < 1e-15)
    #expect(band.perCheckFalseAlarm == 0.001 / Double(checks))
  }

  /// The pure predicate: inside at the edge, outside just beyond it, whatever the sign.
  @Test func containsIsTheBandAroundTheExactValue() {
    let band = StatisticalBand(checks: 300)
    #expect(band.contains(10 + 4.6, exact: 10, standardError: 1))
    #expect(band.contains(10 - 4.6, exact: 10, standardError: 1))
    #expect(!band.contains(10 + 4.7, exact: 10, standardError: 1))
    #expect(!band.contains(10 - 4.7, exact: 10, standardError: 1))
    #expect(!band.contains(.nan, exact: 10, standardError: 1), "a NaN estimate never passes")
    // The same deviation that 300 checks forgive fails a single check.
    #expect(!StatisticalBand(checks: 1).contains(10 + 4, exact: 10, standardError: 1))
  }

  /// A real bias is still caught at the widest band the suite uses: a simulated rate of
  /// 0.42 + 6 SE over 100,000 users fails at n = 300 (z ≈ 4.65) and at n = 10,000 (z ≈ 5.33),
  /// while the unbiased count passes.
  @Test(arguments: [300, 10_000])
  func aBiasOfSixStandardErrorsFails(checks: Int) {
    let band = StatisticalBand(checks: checks)
    let n: UInt64 = 100_000
    let p = 0.42
    let se = (p * (1 - p) / Double(n)).squareRoot()
    let unbiased = UInt64((p * Double(n)).rounded())
    let biased = UInt64(((p + 6 * se) * Double(n)).rounded())
    #expect(band.proportion(unbiased, of: n, exact: p).passed)
    let c = band.proportion(biased, of: n, exact: p)
    #expect(!c.passed, "\(c)")
    #expect(abs(c.deviation - 6) < 0.01)
  }

  /// An exact 0 or 1 allows one count (the SE floor `1/n`), not two.
  @Test func anExactZeroAllowsOneCount() {
    let band = StatisticalBand(checks: 1)
    #expect(band.proportion(0, of: 1_000, exact: 0).passed)
    #expect(band.proportion(3, of: 1_000, exact: 0).passed)
    #expect(!band.proportion(4, of: 1_000, exact: 0).passed)
  }

  /// The `#expect` helpers, compiled in a regular (non-test) target that imports
  /// Testing, record an issue in the calling test when the estimate is outside.
  @Test func theExpectHelpersRecordAnIssueForABiasedEstimate() {
    let band = StatisticalBand(checks: 300)
    withKnownIssue("a 6-SE bias must fail the proportion check") {
      band.expectProportion(42_000 + 937, of: 100_000, exact: 0.42, "biased rate")
    }
    withKnownIssue("a 6-SE bias must fail the mean check") {
      let sample = SampleMeanStatistic(values: (0..<100).map { Double($0 % 2) })
      let se = ((sample.variance ?? 0) / 100).squareRoot()
      band.expectMean(sample, exact: 0.5 - 6 * se, "biased mean")
    }
    withKnownIssue("a 6-SE bias must fail the generic check") {
      band.expect(6, exact: 0, standardError: 1, "biased estimate")
    }
    band.expect(4.6, exact: 0, standardError: 1, "within the band")
  }
}
