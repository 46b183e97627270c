import Foundation
import Testing

@testable import FunnelStats

/// A paired table from a fixture's first four arguments (neither, treatmentOnly, controlOnly, both).
func pairedTable(_ c: FixtureCase) throws -> PairedProportionCount {
  try PairedProportionCount(neither: c.int(0), treatmentOnly: c.int(1), controlOnly: c.int(2), both: c.int(3))
}

@Suite struct PairedTests {
  /// statsmodels reports χ² = z²; the sign of z is the direction of the difference.
  @Test(arguments: try Fixtures.cases("paired.json", prefix: "paired.mcnemar"))
  func mcnemarMatchesStatsmodels(_ c: FixtureCase) throws {
    let table = try pairedTable(c)
    let r = try PairedProportionDifference.mcnemarTest(table)
    #expect(close(r.statistic * r.statistic, c.value(0), 1e-12, c.testDescription))
    #expect(close(r.pValue, c.value(1), 1e-11, c.testDescription))
    #expect((r.statistic > 0) == (table.treatmentOnly > table.controlOnly))
    #expect(r.method == PairedProportionDifference.testMethodName)
  }

  /// Against an independent 50-digit implementation; bisection to full double precision.
  @Test(arguments: try Fixtures.cases("paired.json", prefix: "paired.tango"))
  func tangoIntervalMatchesTheReference(_ c: FixtureCase) throws {
    let r = try PairedProportionDifference.tangoInterval(try pairedTable(c), confidenceLevel: c.arg(4))
    let ci = try #require(r.interval)
    #expect(close(r.estimate ?? .nan, c.value(0), 1e-15, absoluteFloor: 1e-300, c.testDescription))
    #expect(close(ci.lower, c.value(1), 1e-11, absoluteFloor: 1e-15, c.testDescription))
    #expect(close(ci.upper, c.value(2), 1e-11, absoluteFloor: 1e-15, c.testDescription))
    #expect(ci.confidenceLevel == c.arg(4))
  }

  /// The published example: Cavo et al. (2012) in Fagerland, Lydersen & Laake (2017),
  /// ch. 8, Tango asymptotic score interval −0.1240 to −0.0054 (4 decimals).
  @Test func tangoIntervalReproducesThePublishedExample() throws {
    let table = try PairedProportionCount(neither: 80, treatmentOnly: 6, controlOnly: 16, both: 59)
    let ci = try #require(try PairedProportionDifference.tangoInterval(table).interval)
    #expect(abs(ci.lower - -0.1240) < 5e-5 && abs(ci.upper - -0.0054) < 5e-5, "\(ci)")
  }

  /// The interval excludes 0 exactly when McNemar rejects at the same level: they invert
  /// each other (checked over every table with n = 40 and a spread of levels).
  @Test(arguments: [0.8, 0.9, 0.95, 0.99])
  func intervalAndTestAgree(level: Double) throws {
    for b in 0...40 {
      for c in 0...(40 - b) {
        let table = try PairedProportionCount(neither: 40 - b - c, treatmentOnly: b, controlOnly: c, both: 0)
        let p = try PairedProportionDifference.mcnemarTest(table).pValue
        let ci = try #require(try PairedProportionDifference.tangoInterval(table, confidenceLevel: level).interval)
        let excludesZero = ci.lower > 0 || ci.upper < 0
        // Ties at the boundary (p = α exactly) cannot occur for these integer tables.
        #expect(excludesZero == (p < 1 - level), "b \(b) c \(c) level \(level): \(ci) p \(p)")
      }
    }
  }

  @Test func degenerateTables() throws {
    let none = try PairedProportionCount(neither: 500, treatmentOnly: 0, controlOnly: 0, both: 500)
    let r = try PairedProportionDifference.mcnemarTest(none)
    #expect(r.pValue == 1 && r.diagnostic == .zeroVariance)
    let ci = try #require(try PairedProportionDifference.tangoInterval(none).interval)
    #expect(ci.lower < 0 && ci.upper > 0 && abs(ci.lower + ci.upper) < 1e-15)
    let empty = try PairedProportionCount(neither: 0, treatmentOnly: 0, controlOnly: 0, both: 0)
    #expect(throws: StatsError.self) { try PairedProportionDifference.mcnemarTest(empty) }
    #expect(throws: StatsError.self) { try PairedProportionDifference.tangoInterval(empty) }
    #expect(throws: StatsError.self) { try PairedProportionCount(neither: 1, treatmentOnly: -1, controlOnly: 0, both: 0) }
    #expect(throws: StatsError.self) { try PairedProportionCount(neither: Int.max, treatmentOnly: 1, controlOnly: 0, both: 0) }
  }

  /// scipy `ttest_1samp` on the raw differences; we see only (n, Σd, Σd²).
  @Test(arguments: try Fixtures.cases("paired.json", prefix: "paired.ttest"))
  func pairedTMatchesScipy(_ c: FixtureCase) throws {
    let d = SampleMeanStatistic(n: c.int(0), sum: c.arg(1), sumOfSquares: c.arg(2))
    let r = try PairedTTest.test(differences: d, confidenceLevel: c.arg(3))
    let ci = try #require(r.difference.interval)
    #expect(close(r.difference.estimate ?? .nan, c.value(0), 1e-12, c.testDescription))
    #expect(close(r.test.statistic, c.value(1), 1e-9, c.testDescription))
    #expect(close(r.test.pValue, c.value(2), 1e-8, c.testDescription))
    #expect(close(ci.lower, c.value(3), 1e-9, absoluteFloor: 1e-12, c.testDescription))
    #expect(close(ci.upper, c.value(4), 1e-9, absoluteFloor: 1e-12, c.testDescription))
  }

  @Test func pairedTDegenerateData() throws {
    let same = try PairedTTest.test(differences: SampleMeanStatistic(values: [0, 0, 0]))
    #expect(same.test.pValue == 1 && same.test.diagnostic == .zeroVariance)
    #expect(same.difference.interval?.lower == 0 && same.difference.interval?.upper == 0)
    let shifted = try PairedTTest.test(differences: SampleMeanStatistic(values: [2, 2]))
    #expect(shifted.test.pValue == 0)
    let one = try PairedTTest.test(differences: SampleMeanStatistic(values: [1]))
    #expect(one.test.diagnostic == .insufficientData && one.difference.interval == nil)
  }
}
