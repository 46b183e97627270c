import Foundation
import Testing

@testable import FunnelStats

/// Fieller intervals of relative lifts (RelativeLift+Fieller.swift) against lift.json, an
/// independent 50-digit solution of the plain quadratic from the raw data
/// (make_lift_reference.py), and their agreement with the tests of the difference.
@Suite struct RelativeLiftTests {
  /// A sample's sufficient statistics from three fixture arguments starting at `i`.
  static func statistic(_ c: FixtureCase, _ i: Int) -> SampleMeanStatistic {
    SampleMeanStatistic(n: c.int(i), sum: c.arg(i + 1), sumOfSquares: c.arg(i + 2))
  }

  static func expectMatches(_ r: IntervalEstimate, _ c: FixtureCase, tolerance: Double) throws {
    let ci = try #require(r.interval, "\(c.testDescription)")
    #expect(close(r.estimate ?? .nan, c.value(0), 1e-12, absoluteFloor: 1e-15, c.testDescription))
    #expect(close(ci.lower, c.value(1), tolerance, absoluteFloor: 1e-13, c.testDescription))
    #expect(close(ci.upper, c.value(2), tolerance, absoluteFloor: 1e-13, c.testDescription))
    #expect(ci.lower <= (r.estimate ?? .nan) && (r.estimate ?? .nan) <= ci.upper)
  }

  @Test(arguments: try Fixtures.cases("lift.json", fn: "lift.paired"))
  func pairedProportionsMatchTheReference(_ c: FixtureCase) throws {
    let r = try RelativeLift.pairedInterval(try pairedTable(c), confidenceLevel: c.arg(4))
    try Self.expectMatches(r, c, tolerance: 1e-11)
    #expect(r.interval?.method == RelativeLift.pairedMethod)
  }

  @Test(arguments: try Fixtures.cases("lift.json", prefix: "lift.welch"))
  func independentMeansMatchTheReference(_ c: FixtureCase) throws {
    let r = try RelativeLift.welchInterval(
      treatment: Self.statistic(c, 0), control: Self.statistic(c, 3), confidenceLevel: c.arg(6))
    // Sums of squares in doubles and the t quantile limit the agreement to ~1e-9.
    try Self.expectMatches(r, c, tolerance: 1e-9)
  }

  @Test(arguments: try Fixtures.cases("lift.json", prefix: "lift.pairedmean"))
  func pairedMeansMatchTheReference(_ c: FixtureCase) throws {
    let r = try RelativeLift.pairedMeanInterval(
      treatment: Self.statistic(c, 0), control: Self.statistic(c, 3), differences: Self.statistic(c, 6),
      confidenceLevel: c.arg(9))
    try Self.expectMatches(r, c, tolerance: 1e-9)
  }

  /// The lift's interval excludes 0 exactly when McNemar's test rejects at the same level
  /// (every table with n = 40; the delta method on the log ratio fails this).
  @Test(arguments: [0.8, 0.9, 0.95, 0.99])
  func pairedLiftAgreesWithMcNemar(level: Double) throws {
    for both in [0, 5, 20] {
      for b in 0...(40 - both) {
        for c in 0...(40 - both - b) where both + c > 0 {
          let table = try PairedProportionCount(neither: 40 - both - b - c, treatmentOnly: b, controlOnly: c, both: both)
          let p = try PairedProportionDifference.mcnemarTest(table).pValue
          guard let ci = try RelativeLift.pairedInterval(table, confidenceLevel: level).interval else { continue }
          #expect((ci.lower > 0 || ci.upper < 0) == (p < 1 - level), "a \(both) b \(b) c \(c) level \(level): \(ci) p \(p)")
        }
      }
    }
  }

  /// The same for Welch's and the paired t-test, over seeded samples whose effects straddle
  /// the boundary.
  @Test func meanLiftsAgreeWithTheirTests() throws {
    var rng = Xoshiro256StarStar(seed: 7)
    var checked = 0
    for trial in 0..<400 {
      let n = 20 + trial % 50
      let shift = Double(trial % 9) * 0.15
      var control: [Double] = []
      var treatment: [Double] = []
      for _ in 0..<n {
        let base = 5 + 2 * (2 * rng.nextUnitDouble() - 1)
        control.append(base)
        treatment.append(base + shift + (2 * rng.nextUnitDouble() - 1))
      }
      let t = SampleMeanStatistic(values: treatment)
      let c = SampleMeanStatistic(values: control)
      let d = SampleMeanStatistic(values: zip(treatment, control).map { $0 - $1 })
      let welch = try WelchTTest.test(treatment: t, control: c)
      let paired = try PairedTTest.test(differences: d)
      for (p, lift) in [
        (welch.test.pValue, try RelativeLift.welchInterval(treatment: t, control: c)),
        (paired.test.pValue, try RelativeLift.pairedMeanInterval(treatment: t, control: c, differences: d)),
      ] {
        let ci = try #require(lift.interval)
        guard abs(p - 0.05) > 1e-9 else { continue }
        #expect((ci.lower > 0 || ci.upper < 0) == (p < 0.05), "trial \(trial): \(ci) p \(p)")
        checked += 1
      }
    }
    #expect(checked > 700)
  }

  @Test func degenerateInputs() throws {
    // No control successes: no lift.
    let none = try PairedProportionCount(neither: 10, treatmentOnly: 3, controlOnly: 0, both: 0)
    let r = try RelativeLift.pairedInterval(none)
    #expect(r.estimate == nil && r.interval == nil && r.diagnostic == .undefinedRatio)
    // A control mean indistinguishable from 0: the interval is unbounded, reported as nil.
    let wide = try RelativeLift.welchInterval(
      treatment: SampleMeanStatistic(values: [1, -1, 2, 0.5]), control: SampleMeanStatistic(values: [0.1, -3, 3, 0.2]))
    #expect(wide.estimate != nil && wide.interval == nil && wide.diagnostic == .undefinedRatio)
    // One observation: no variance, no interval.
    let one = try RelativeLift.welchInterval(
      treatment: SampleMeanStatistic(values: [2]), control: SampleMeanStatistic(values: [1]))
    #expect(one.estimate == 1 && one.interval == nil && one.diagnostic == .insufficientData)
    // Arms of different sizes cannot be paired.
    #expect(throws: StatsError.self) {
      try RelativeLift.pairedMeanInterval(
        treatment: SampleMeanStatistic(values: [1, 2]), control: SampleMeanStatistic(values: [1, 2, 3]),
        differences: SampleMeanStatistic(values: [0, 0]))
    }
    // Identical outcomes in every pair: Tango's interval over the control's rate (0.5), not a point.
    let table = try PairedProportionCount(neither: 50, treatmentOnly: 0, controlOnly: 0, both: 50)
    let same = try RelativeLift.pairedInterval(table)
    let tango = try #require(try PairedProportionDifference.tangoInterval(table).interval)
    #expect(same.estimate == 0 && same.interval?.lower == tango.lower * 2 && same.interval?.upper == tango.upper * 2)
    #expect(tango.lower < 0 && tango.upper > 0)
  }
}
