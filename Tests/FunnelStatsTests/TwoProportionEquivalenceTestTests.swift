import Foundation
import Testing

@testable import FunnelStats

/// TOST for two proportions and its power, against statsmodels 0.15
/// (`Fixtures/make_equivalence_reference.py`): the test as `tost_proportions_2indep(…,
/// method="wald")`, the power as its normal power of an equivalence z-test, and that power
/// against the rejection rate of the test over 200,000 simulated pairs of counts.
@Suite struct TwoProportionEquivalenceTestTests {
  @Test(arguments: try Fixtures.cases("equivalence.json", fn: "tost.wald"))
  func testMatchesStatsmodels(_ c: FixtureCase) throws {
    let r = try TwoProportionEquivalenceTest.test(
      treatment: try ProportionCount(successes: c.int(0), trials: c.int(1)),
      control: try ProportionCount(successes: c.int(2), trials: c.int(3)), lower: c.arg(4), upper: c.arg(5))
    #expect(close(r.difference, c.value(0), 1e-12, absoluteFloor: 1e-15, c.testDescription + " difference"))
    #expect(close(r.lowerPValue, c.value(1), 1e-9, absoluteFloor: 1e-300, c.testDescription + " p low"))
    #expect(close(r.upperPValue, c.value(2), 1e-9, absoluteFloor: 1e-300, c.testDescription + " p upp"))
    #expect(close(r.pValue, c.value(3), 1e-9, absoluteFloor: 1e-300, c.testDescription + " p"))
  }

  static func power(_ c: FixtureCase) throws -> Double {
    try TwoProportionEquivalenceTest.power(
      treatmentRate: c.arg(0), controlRate: c.arg(1), treatmentUsers: c.arg(2), controlUsers: c.arg(3), lower: c.arg(4),
      upper: c.arg(5), alpha: c.arg(6))
  }

  @Test(arguments: try Fixtures.cases("equivalence.json", fn: "tost.power"))
  func powerMatchesStatsmodels(_ c: FixtureCase) throws {
    let power = try Self.power(c)
    #expect(abs(power - c.value) < 1e-12, "\(c.testDescription): \(power)")
  }

  /// The power describes the test: within four standard errors of its simulated rejection rate.
  @Test(arguments: try Fixtures.cases("equivalence.json", fn: "tost.montecarlo"))
  func powerIsTheTestsRejectionRate(_ c: FixtureCase) throws {
    let p = try Self.power(c)
    #expect(abs(p - c.value(0)) <= 4 * c.value(1), "\(c.testDescription): formula \(p)")
  }

  @Test func degenerateAndInvalidInputs() throws {
    let none = try ProportionCount(successes: 0, trials: 100)
    let same = try TwoProportionEquivalenceTest.test(treatment: none, control: none, lower: -0.01, upper: 0.01)
    #expect(same.standardError == 0 && same.pValue == 0)
    let all = try ProportionCount(successes: 100, trials: 100)
    #expect(try TwoProportionEquivalenceTest.test(treatment: all, control: none, lower: -0.01, upper: 0.01).pValue == 1)
    #expect(throws: StatsError.self) { try TwoProportionEquivalenceTest.test(treatment: none, control: none, lower: 0.01, upper: -0.01) }
    #expect(throws: StatsError.self) {
      try TwoProportionEquivalenceTest.test(treatment: try ProportionCount(successes: 0, trials: 0), control: none, lower: -1, upper: 1)
    }
    func power(_ p1: Double, _ n: Double, _ alpha: Double) throws -> Double {
      try TwoProportionEquivalenceTest.power(
        treatmentRate: p1, controlRate: 0.5, treatmentUsers: n, controlUsers: n, lower: -0.01, upper: 0.01, alpha: alpha)
    }
    #expect(try power(0.5, 1e12, 0.05) > 0.999)
    for (p1, n, alpha) in [(1.5, 100.0, 0.05), (0.5, 0, 0.05), (0.5, .infinity, 0.05), (0.5, 100, 0.5), (.nan, 100, 0.05)] {
      #expect(throws: StatsError.self, "\(p1) \(n) \(alpha)") { try power(p1, n, alpha) }
    }
    // Power rises with users and falls as the true difference nears a margin.
    #expect(try power(0.5, 50_000, 0.05) < power(0.5, 200_000, 0.05))
    #expect(try power(0.505, 200_000, 0.05) < power(0.5, 200_000, 0.05))
  }
}
