import Foundation
import Testing

@testable import FunnelStats

@Suite struct MultipleTestingCorrectionTests {
  /// Adjusted p-values are products/quotients of the inputs: 1e-14 relative.
  @Test(arguments: try Fixtures.cases("multiple_srm.json", prefix: "multipletests."))
  func matchesStatsmodels(_ c: FixtureCase) throws {
    let name = String(c.fn.dropFirst("multipletests.".count))
    let method = try #require(MultipleTestingCorrection(rawValue: name), "unknown \(c.fn)")
    let got = try method.adjust(c.args.map { Double($0) ?? .nan })
    #expect(got.count == c.expected.count)
    for (i, g) in got.enumerated() where i < c.expected.count {
      #expect(close(g, c.value(i), 1e-14, "\(c.testDescription)[\(i)]"))
    }
  }

  @Test(arguments: MultipleTestingCorrection.allCases)
  func emptyFamilyAndInvalidInput(_ method: MultipleTestingCorrection) throws {
    #expect(try method.adjust([]).isEmpty)
    #expect(throws: StatsError.self) { try method.adjust([0.1, .nan]) }
    #expect(throws: StatsError.self) { try method.adjust([1.5]) }
  }
}

@Suite struct SampleRatioMismatchTests {
  /// χ² and its survival function: 1e-12 relative.
  @Test(arguments: try Fixtures.cases("multiple_srm.json", prefix: "srm."))
  func matchesScipyChisquare(_ c: FixtureCase) throws {
    let k = c.int(0) == 0 && c.fn == "missing" ? 0 : Int(c.fn.dropFirst("srm.".count)) ?? 0
    try #require(k >= 2, "bad case \(c.fn)")
    let observed = (0..<k).map { c.int($0) }
    let weights = (k..<(2 * k)).map { c.arg($0) }
    let r = try SampleRatioMismatch.check(observed: observed, weights: weights)
    #expect(close(r.test.statistic, c.value(0), 1e-12, c.testDescription))
    #expect(close(r.test.pValue, c.value(1), 1e-12, absoluteFloor: 1e-300, c.testDescription))
    #expect(r.mismatch == (c.value(1) < 0.001))
  }

  @Test func minimumRelativeDeviationSuppressesTrivialAlarms() throws {
    // A 0.05 % imbalance on 2·10⁹ users is "significant" but trivial.
    let observed = [1_000_000_000, 1_001_000_000]
    let plain = try SampleRatioMismatch.check(observed: observed, weights: [1, 1])
    #expect(plain.mismatch)
    let tolerant = try SampleRatioMismatch.check(
      observed: observed, weights: [1, 1],
      settings: .init(minimumRelativeDeviation: 0.01))
    #expect(!tolerant.mismatch)
  }

  @Test func invalidInputThrows() {
    #expect(throws: StatsError.self) { try SampleRatioMismatch.check(observed: [1, 2], weights: [1]) }
    #expect(throws: StatsError.self) { try SampleRatioMismatch.check(observed: [1, -2], weights: [1, 1]) }
    #expect(throws: StatsError.self) { try SampleRatioMismatch.check(observed: [0, 0], weights: [1, 1]) }
    #expect(throws: StatsError.self) { try SampleRatioMismatch.check(observed: [1, 2], weights: [1, 0]) }
  }
}
