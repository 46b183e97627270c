import Foundation
import FunnelTestSupport
import Testing

@testable import FunnelStats

/// ``RatioMetric``: revenue per session of 4,000 and 4,200 users (numpy seed 20261128: sessions
/// 1–7, 5 % and 6 % paying 10–40), compared with tea-tasting 1.14.0
/// `Experiment(rps=RatioOfMeans(numer="revenue", denom="sessions")).analyze(df, control=0)`
/// and with the delta-method variance computed directly from the per-user values (numpy, `ddof=1`).
@Suite struct RatioMetricTests {
  static let control = RatioMetric.Arm(
    users: 4000, numeratorSum: 4570, denominatorSum: 16112, numeratorSumOfSquares: 134_700, denominatorSumOfSquares: 80698,
    sumOfProducts: 17940)
  static let treatment = RatioMetric.Arm(
    users: 4200, numeratorSum: 6430, denominatorSum: 16795, numeratorSumOfSquares: 189_900, denominatorSumOfSquares: 83955,
    sumOfProducts: 25950)

  func close(_ x: Double?, _ reference: Double, _ what: String) {
    guard let x else {
      Issue.record("\(what): nil")
      return
    }
    #expect(abs(x - reference) <= 1e-9 * abs(reference), "\(what): \(x) vs \(reference)")
  }

  /// Each arm's ratio and delta-method variance equal the direct computation
  /// `(s²ₓ − 2R·sₓᵧ + R²·s²ᵧ)/(n·ȳ²)` on the per-user values.
  @Test func theDeltaMethodVarianceIsTheDirectComputation() {
    close(Self.control.ratio, 0.28363952333664355, "control ratio")
    close(Self.control.variance, 0.0005048142756152443, "control variance")
    close(Self.treatment.ratio, 0.3828520392974099, "treatment ratio")
    close(Self.treatment.variance, 0.0006465694863599069, "treatment variance")
  }

  /// The difference, its interval, the relative lift with its interval, the statistic and the
  /// p-value equal tea-tasting's.
  @Test func theComparisonEqualsTeaTasting() throws {
    let r = try RatioMetric.compare(treatment: Self.treatment, control: Self.control)
    close(r.difference.estimate, 0.09921251596076636, "effect_size")
    close(r.difference.interval?.lower, 0.03269701122354711, "effect_size_ci_lower")
    close(r.difference.interval?.upper, 0.1657280206979856, "effect_size_ci_upper")
    close(r.relativeLift.estimate, 0.34978381994745456, "rel_effect_size")
    close(r.relativeLift.interval?.lower, 0.10219797626730487, "rel_effect_size_ci_lower")
    close(r.relativeLift.interval?.upper, 0.6529846722836763, "rel_effect_size_ci_upper")
    close(r.test.statistic, 2.9238589167760183, "statistic")
    close(r.test.pValue, 0.0034667688934105316, "pvalue")
  }

  /// The per-user initializer gives the same sums; an arm of one user, a zero denominator or a
  /// non-finite sum is refused.
  @Test func perUserValuesAndBadArms() throws {
    let arm = RatioMetric.Arm(numerators: [0, 10, 0, 30], denominators: [1, 2, 3, 4])
    #expect(arm.users == 4 && arm.numeratorSum == 40 && arm.denominatorSum == 10 && arm.sumOfProducts == 140)
    #expect(arm.numeratorSumOfSquares == 1000 && arm.denominatorSumOfSquares == 30)
    let one = RatioMetric.Arm(numerators: [1], denominators: [1])
    #expect(throws: StatsError.self) { try RatioMetric.compare(treatment: one, control: Self.control) }
    let zero = RatioMetric.Arm(numerators: [1, 2], denominators: [0, 0])
    #expect(throws: StatsError.self) { try RatioMetric.compare(treatment: Self.treatment, control: zero) }
    var infinite = Self.control
    infinite.numeratorSum = .infinity
    #expect(throws: StatsError.self) { try RatioMetric.compare(treatment: Self.treatment, control: infinite) }
    #expect(throws: StatsError.self) { try RatioMetric.compare(treatment: Self.treatment, control: Self.control, confidenceLevel: 1) }
  }
}
