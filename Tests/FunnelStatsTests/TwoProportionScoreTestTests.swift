import Foundation
import Testing

@testable import FunnelStats

/// The score test and the intervals that invert it, against statsmodels 0.15 (with the fix
/// of its issue #10269) or, where statsmodels loses digits or fails, 50-digit mpmath values
/// of the same definitions (`.mpmath` cases; see `score()` in `Fixtures/make_reference.py`).
@Suite struct TwoProportionScoreTestTests {
  static func counts(_ c: FixtureCase) throws -> (ProportionCount, ProportionCount) {
    (
      try ProportionCount(successes: c.int(0), trials: c.int(1)),
      try ProportionCount(successes: c.int(2), trials: c.int(3))
    )
  }

  /// `fn` without a `.mpmath` suffix: the two sources share one definition and tolerance.
  static func base(_ fn: String) -> String { fn.hasSuffix(".mpmath") ? String(fn.dropLast(".mpmath".count)) : fn }

  static func alternative(_ fn: String) -> Alternative {
    Alternative(rawValue: String(base(fn).split(separator: ".").last ?? "")) ?? .twoSided
  }

  @Test(arguments: try Fixtures.cases("score.json", prefix: "score.diff.") + Fixtures.cases("score.json", prefix: "score.ratio."))
  func testMatchesReference(_ c: FixtureCase) throws {
    let (t, k) = try Self.counts(c)
    let comparison: TwoProportionScoreTest.Comparison = c.fn.hasPrefix("score.diff.") ? .difference : .ratio
    let r = try TwoProportionScoreTest.test(
      treatment: t, control: k, comparison: comparison, nullValue: c.arg(4), alternative: Self.alternative(c.fn))
    // z to 1e-9 relative (1e-12 absolute near 0); p to 1e-9 relative (p = Φ(−z) amplifies
    // the relative error of z by z², so the largest |z| here, ~30, still leaves 1e-11 → 1e-9).
    #expect(close(r.statistic, c.value(0), 1e-11, absoluteFloor: 1e-12, c.testDescription + " z"))
    #expect(close(r.pValue, c.value(1), 1e-10, absoluteFloor: 1e-300, c.testDescription + " p"))
  }

  @Test(arguments: try Fixtures.cases("score.json", prefix: "mn.diff."))
  func miettinenNurminenMatchesReference(_ c: FixtureCase) throws {
    let (t, k) = try Self.counts(c)
    let r = try ProportionDifference.miettinenNurminenInterval(
      treatment: t, control: k, confidenceLevel: c.arg(4), alternative: Self.alternative(c.fn))
    let interval = try #require(r.interval)
    #expect(close(r.estimate ?? .nan, c.value(0), 1e-12, absoluteFloor: 1e-16, c.testDescription + " estimate"))
    #expect(close(interval.lower, c.value(1), 1e-12, absoluteFloor: 1e-15, c.testDescription + " lower"))
    #expect(close(interval.upper, c.value(2), 1e-12, absoluteFloor: 1e-15, c.testDescription + " upper"))
  }

  @Test(arguments: try Fixtures.cases("score.json", prefix: "score.lift."))
  func ratioScoreIntervalMatchesReference(_ c: FixtureCase) throws {
    let (t, k) = try Self.counts(c)
    let r = try RelativeLift.scoreInterval(
      treatment: t, control: k, confidenceLevel: c.arg(4), alternative: Self.alternative(c.fn))
    let interval = try #require(r.interval)
    if c.value(0).isNaN {
      #expect(r.estimate == nil && r.diagnostic == .undefinedRatio, "\(c.testDescription)")
    } else {
      #expect(close(r.estimate ?? .nan, c.value(0), 1e-12, absoluteFloor: 1e-16, c.testDescription + " estimate"))
    }
    #expect(close(interval.lower, c.value(1), 1e-12, absoluteFloor: 1e-15, c.testDescription + " lower"))
    #expect(close(interval.upper, c.value(2), 1e-12, absoluteFloor: 1e-15, c.testDescription + " upper"))
  }

  /// The pair inverts: zero is outside the interval exactly when the test rejects at α.
  @Test(arguments: try Fixtures.cases("score.json", prefix: "mn.diff.two-sided"))
  func intervalExcludesZeroExactlyWhenTestRejects(_ c: FixtureCase) throws {
    let (t, k) = try Self.counts(c)
    let level = c.arg(4)
    let test = try TwoProportionScoreTest.test(treatment: t, control: k)
    let difference = try #require(
      try ProportionDifference.miettinenNurminenInterval(treatment: t, control: k, confidenceLevel: level).interval)
    let ratio = try #require(try RelativeLift.scoreInterval(treatment: t, control: k, confidenceLevel: level).interval)
    let margin = abs(test.pValue - (1 - level))
    guard margin > 1e-12 else { return }  // a tie at the boundary: either side is right
    let rejects = test.pValue <= 1 - level
    #expect(rejects == !difference.contains(0), "\(c.testDescription): p \(test.pValue) vs \(difference)")
    #expect(rejects == !ratio.contains(0), "\(c.testDescription): p \(test.pValue) vs \(ratio)")
  }

  @Test func equalityTestIsThePooledZTestScaled() throws {
    let t = try ProportionCount(successes: 150, trials: 1000)
    let c = try ProportionCount(successes: 120, trials: 1000)
    let score = try TwoProportionScoreTest.test(treatment: t, control: c)
    let pooled = try TwoProportionZTest.test(treatment: t, control: c)
    #expect(abs(score.statistic - pooled.statistic * (1999.0 / 2000).squareRoot()) < 1e-13)
    #expect(score.pValue > pooled.pValue)
    #expect(score.method == TwoProportionScoreTest.methodName)
  }

  @Test func degenerateCountsGiveNeutralOrCertainResults() throws {
    let none = try ProportionCount(successes: 0, trials: 100)
    let all = try ProportionCount(successes: 100, trials: 100)
    let r = try TwoProportionScoreTest.test(treatment: none, control: none)
    #expect(r.pValue == 1 && r.statistic == 0 && r.diagnostic == .zeroVariance)
    let interval = try #require(try ProportionDifference.miettinenNurminenInterval(treatment: none, control: none).interval)
    #expect(interval.lower < 0 && interval.upper > 0)
    let lift = try RelativeLift.scoreInterval(treatment: none, control: none)
    #expect(lift.estimate == nil && lift.diagnostic == .undefinedRatio)
    #expect(lift.interval?.lower == -1 && lift.interval?.upper == .infinity)
    let apart = try #require(try ProportionDifference.miettinenNurminenInterval(treatment: all, control: none).interval)
    #expect(apart.upper == 1 && apart.lower > 0.9)
    #expect(throws: StatsError.self) { try TwoProportionScoreTest.test(treatment: all, control: none, nullValue: 1) }
    #expect(throws: StatsError.self) {
      try TwoProportionScoreTest.test(treatment: all, control: none, comparison: .ratio, nullValue: 0)
    }
  }

  @Test func oneSidedIntervalsHaveOneBound() throws {
    let t = try ProportionCount(successes: 150, trials: 1000)
    let c = try ProportionCount(successes: 120, trials: 1000)
    let greater = try #require(
      try ProportionDifference.miettinenNurminenInterval(treatment: t, control: c, alternative: .greater).interval)
    let twoSided90 = try #require(
      try ProportionDifference.miettinenNurminenInterval(treatment: t, control: c, confidenceLevel: 0.9).interval)
    #expect(greater.upper == 1)
    #expect(abs(greater.lower - twoSided90.lower) < 1e-15)
    let less = try #require(try RelativeLift.scoreInterval(treatment: t, control: c, alternative: .less).interval)
    #expect(less.lower == -1)
  }
}
