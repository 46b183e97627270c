import Foundation
import FunnelTestSupport
import Testing

@testable import FunnelStats

/// The one pipeline: its significance rule, its treatment of untested arms, and the property
/// that no row is significant while its interval at the same level contains zero.
@Suite struct ControlComparisonTests {
  /// A log-uniform size in 1…`max`, and conversions biased towards the edges (0, 1, n−1, n).
  static func arm(_ rng: inout Xoshiro256StarStar, limit: Double) -> (users: Int, conversions: Int) {
    let users = Int(exp(rng.nextUnitDouble() * log(limit)).rounded(.down))
    let u = rng.nextUnitDouble()
    let conversions: Int
    switch u {
    case ..<0.05: conversions = 0
    case ..<0.1: conversions = users
    case ..<0.13: conversions = min(1, users)
    case ..<0.16: conversions = max(users - 1, 0)
    default:
      let rate = 0.01 + 0.3 * rng.nextUnitDouble()
      conversions = min(users, Int((Double(users) * rate).rounded()))
    }
    return (users, conversions)
  }

  static func settings(_ rng: inout Xoshiro256StarStar) -> ExperimentAnalysis.Settings {
    let alphas = [0.01, 0.05, 0.1, 0.2]
    return ExperimentAnalysis.Settings(
      alpha: alphas[Int(rng.nextUnitDouble() * 4)], alternative: Alternative.allCases[Int(rng.nextUnitDouble() * 3)],
      correction: MultipleTestingCorrection.allCases[Int(rng.nextUnitDouble() * Double(MultipleTestingCorrection.allCases.count))],
      proportionTest: rng.nextUnitDouble() < 0.5 ? .score : .pooledZ)
  }

  /// `significant` implies both intervals (at 1 − α, of the test's side) exclude zero.
  static func consistent(_ c: ExperimentAnalysis.ArmComparison, alpha: Double) -> Bool {
    for interval in [c.absoluteLift?.interval, c.relativeLift?.interval].compactMap({ $0 })
    where abs(interval.confidenceLevel - (1 - alpha)) > 1e-15 {
      return false
    }
    guard c.significant else { return c.conclusion != .significant }
    guard let d = c.absoluteLift?.interval, !d.contains(0) else { return false }
    if let r = c.relativeLift?.interval, r.contains(0) { return false }
    return (c.adjustedPValue ?? 1) <= alpha
  }

  /// 3,000 random analyses in the long stage, 240 in the fast one (4 chunks of 750 or 60
  /// seeds; sizes up to 10⁶ users per arm), every format's model: the report.
  @Test(arguments: 0..<4)
  func noSignificantRowWithAnIntervalContainingZero(_ chunk: Int) throws {
    for seed in (chunk * 750)..<(chunk * 750 + TestStage.size(fast: 60, long: 750)) {
      var rng = Xoshiro256StarStar(seed: UInt64(seed))
      let settings = Self.settings(&rng)
      let count = 2 + Int(rng.nextUnitDouble() * 3)
      let arms = (0..<count).map { i -> ArmData in
        let a = Self.arm(&rng, limit: 1e6)
        return ArmData(name: "arm\(i)", users: max(a.users, i == 0 ? 1 : 0), conversions: a.conversions)
      }
      let report = try ExperimentAnalysis.analyze(arms: arms, control: "arm0", settings: settings)
      for c in report.comparisons {
        #expect(Self.consistent(c, alpha: settings.alpha), "seed \(seed): \(c) under \(settings)")
      }
    }
  }

  /// The same property for the pipeline itself (experiment mode's model) up to 10¹² users and
  /// for means, Bayesian values off for speed: 2,000 cases in the long stage, 400 in the fast one.
  @Test(arguments: 0..<2)
  func pipelinePropertyAtAnySize(_ chunk: Int) throws {
    for seed in (10_000 + chunk * 1000)..<(10_000 + chunk * 1000 + TestStage.size(fast: 200, long: 1000)) {
      var rng = Xoshiro256StarStar(seed: UInt64(seed))
      let s = Self.settings(&rng)
      let settings = ControlComparison.Settings(
        alpha: s.alpha, alternative: s.alternative, correction: s.correction, proportionTest: s.proportionTest,
        higherIsBetter: rng.nextUnitDouble() < 0.8, bayesian: false)
      let count = 2 + Int(rng.nextUnitDouble() * 4)
      let data: ControlComparison.Data
      if rng.nextUnitDouble() < 0.75 {
        data = .proportions(
          try (0..<count).map { _ in
            let a = Self.arm(&rng, limit: 1e12)
            return try ProportionCount(successes: a.conversions, trials: a.users)
          })
      } else {
        data = .means(
          (0..<count).map { _ in
            let n = Int(exp(rng.nextUnitDouble() * log(1e6)))
            let mean = 5 * rng.nextUnitDouble()
            let sd = 10 * rng.nextUnitDouble()
            let dn = Double(n)
            return SampleMeanStatistic(n: n, sum: mean * dn, sumOfSquares: (sd * sd + mean * mean) * dn)
          })
      }
      let result = try ControlComparison.compare(data, control: 0, settings: settings)
      for row in result.rows where row.significant {
        let excludes = row.difference?.interval.map { !$0.contains(0) } ?? false
        #expect(excludes && row.intervalsExcludeZero, "seed \(seed): \(row)")
        #expect((row.adjustedPValue ?? 1) <= settings.alpha, "seed \(seed): \(row)")
      }
    }
  }

  @Test func untestedArmsStayOutOfTheFamily() throws {
    let data = ControlComparison.Data.proportions([
      try ProportionCount(successes: 100, trials: 1000),
      try ProportionCount(successes: 0, trials: 0),
      try ProportionCount(successes: 140, trials: 1000),
    ])
    let result = try ControlComparison.compare(data, control: 0, settings: .init(correction: .bonferroni))
    let empty = try #require(result.row(1))
    #expect(empty.test == nil && empty.adjustedPValue == nil && !empty.significant)
    #expect(empty.diagnostics == [.emptyArm])
    let tested = try #require(result.row(2))
    // A family of one: Bonferroni leaves the p-value unchanged.
    #expect(tested.adjustedPValue == tested.pValue)
    #expect(result.probabilityToBeBest[1] == nil)
    #expect(abs(result.probabilityToBeBest.compactMap { $0 }.reduce(0.0, +) - 1) < 1e-9)
  }

  @Test func significanceIsAdjustedPAtMostAlpha() throws {
    // p exactly at α is significant (≤), as long as the interval agrees.
    var rows = [
      ControlComparison.Row(
        arm: 1,
        difference: IntervalEstimate(
          estimate: 0.1, interval: ConfidenceInterval(lower: 0.01, upper: 0.2, confidenceLevel: 0.95, method: "m")),
        relativeLift: nil, test: TestResult(statistic: 2, pValue: 0.05, alternative: .twoSided, method: "t"), adjustedPValue: nil,
        significant: false, probabilityToBeatControl: nil, expectedLoss: nil, diagnostics: [])
    ]
    ControlComparison.adjust(&rows, settings: .init(alpha: 0.05, correction: .none))
    #expect(rows[0].significant)
    rows[0].difference?.interval?.lower = 0
    ControlComparison.adjust(&rows, settings: .init(alpha: 0.05, correction: .none))
    #expect(!rows[0].significant && rows[0].diagnostics == [.testIntervalDisagreement])
  }

  @Test func lowerIsBetterFlipsTheBayesianValues() throws {
    let data = ControlComparison.Data.proportions([
      try ProportionCount(successes: 120, trials: 1000), try ProportionCount(successes: 150, trials: 1000),
    ])
    let up = try ControlComparison.compare(data, control: 0)
    let down = try ControlComparison.compare(data, control: 0, settings: .init(higherIsBetter: false))
    let pUp = try #require(up.rows[0].probabilityToBeatControl)
    let pDown = try #require(down.rows[0].probabilityToBeatControl)
    #expect(abs(pUp + pDown - 1) < 1e-9)
    #expect((down.rows[0].expectedLoss ?? 0) > 0.02)
    #expect(up.rows[0].pValue == down.rows[0].pValue)  // the test does not depend on the direction
  }

  @Test func meansUseWelchAndTheNormalPosterior() throws {
    let t = SampleMeanStatistic(counts: [0: 900, 10: 100])
    let c = SampleMeanStatistic(counts: [0: 920, 10: 80])
    let result = try ControlComparison.compare(.means([c, t]), control: 0)
    let row = try #require(result.rows.first)
    let welch = try WelchTTest.test(treatment: t, control: c)
    #expect(row.test == welch.test)
    #expect(row.difference == welch.difference)
    #expect(row.relativeLift == (try RelativeLift.welchInterval(treatment: t, control: c)))
    #expect(row.relativeLift?.interval?.method == RelativeLift.welchMethod)
    let best = try NormalPosteriorModel.probabilityToBeBest([c, t])
    #expect(result.probabilityToBeBest == best.map { Optional($0) })
    #expect(abs(best[1] - (try NormalPosteriorModel.compare(treatment: t, control: c)).probabilityToBeat) < 1e-9)
  }

  @Test func studentTIntervalMatchesScipy() throws {
    // scipy: t.interval(0.95, 9, loc=4.5, scale=s/sqrt(10)) for the values 0…9.
    let s = SampleMeanStatistic(values: (0..<10).map(Double.init))
    let ci = try #require(try s.studentTInterval(confidenceLevel: 0.95))
    #expect(abs(ci.lower - 2.334149410331831) < 1e-12)
    #expect(abs(ci.upper - 6.665850589668169) < 1e-12)
    #expect(try SampleMeanStatistic(values: [1]).studentTInterval() == nil)
  }
}
