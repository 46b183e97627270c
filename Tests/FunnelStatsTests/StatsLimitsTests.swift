import FunnelStats
import Testing

/// The bounds of ``StatsLimits`` and the one conversion from `Double` to integers.
@Suite struct StatsLimitsTests {
  @Test func roundingRefusesWhatDoesNotFit() {
    #expect(Int(rounding: 2.5) == 3)
    #expect(Int(rounding: -2.5) == -3)
    #expect(Int(rounding: 2.1, .up) == 3)
    #expect(Int(rounding: 2.9, .down) == 2)
    #expect(Int(rounding: .nan) == nil)
    #expect(Int(rounding: .infinity) == nil)
    #expect(Int(rounding: 9.3e18) == nil)
    #expect(Int(rounding: -9.223372036854775808e18) == Int.min)
    #expect(UInt64(rounding: -1) == nil)
    #expect(UInt64(rounding: 1.8e19) == 18_000_000_000_000_000_000)
    #expect(Int64(rounding: 1e300) == nil)
  }

  @Test func aSampleSizeBeyondTheLimitThrows() throws {
    for (baseline, effect) in [(0.1, 0.1 + 1e-10), (1e-300, 2e-300), (0.5, 0.5 + 1e-9)] {
      let problem = PowerAnalysis.Problem(method: .pooledNormal, baseline: baseline, effect: effect)
      #expect(throws: StatsError.self) { try PowerAnalysis.solve(problem) }
    }
    let arcsine = PowerAnalysis.Problem(method: .arcsine, baseline: 0.5, effect: 0.5 + 1e-9)
    #expect(throws: StatsError.self) { try PowerAnalysis.solve(arcsine) }
    // Just inside: 10¹² users per arm is answered, with a total that fits.
    let r = try PowerAnalysis.solve(PowerAnalysis.Problem(method: .pooledNormal, baseline: 0.5, effect: 0.5 + 2e-6))
    #expect(r.sampleSize < StatsLimits.maxSampleSize)
    #expect(r.totalUsers == Int(rounding: r.sampleSize - 1e-9 * r.sampleSize, .up).map { 2 * $0 })
    let given = PowerAnalysis.Problem(method: .pooledNormal, baseline: 0.1, effect: 0.11, sampleSize: 2e12, power: nil)
    #expect(throws: StatsError.self) { try PowerAnalysis.solve(given) }
  }

  @Test(arguments: [
    (
      ArmData(name: "a", users: 10, conversions: 2, revenue: .statistic(.init(n: 10, sum: 50, sumOfSquares: 10))),
      "arms[3].revenue.sumOfSquares"
    ),
    (
      ArmData(name: "a", users: 10, conversions: 2, revenue: .statistic(.init(n: 0, sum: 5, sumOfSquares: 25))),
      "arms[3].revenue.sumOfSquares"
    ),
    (ArmData(name: "a", users: 10, conversions: 5, revenue: .statistic(.init(n: 10, sum: 1e300, sumOfSquares: 1e300))), "arms[3].revenue"),
    (ArmData(name: "a", users: Int.max, conversions: 1), "arms[3].users"),
    (ArmData(name: "a", users: 10, conversions: -1), "arms[3].conversions"),
    (ArmData(name: "a", users: 10, conversions: 11), "arms[3].conversions"),
    (ArmData(name: "a", users: 10, conversions: 1, revenue: .counts([1e300: 2])), "arms[3].revenue"),
    (ArmData(name: "a", users: 10, conversions: 1, revenue: .counts([1: Int.max, 2: Int.max])), "arms[3].revenue"),
  ])
  func infeasibleArmsAreRefused(arm: ArmData, field: String) {
    let problems = arm.validationErrors(field: [.name(.arms), .index(3)])
    #expect(problems.count == 1)
    #expect(problems.first?.field.description == field, "\(problems)")
    #expect(problems.first?.field.index(after: .arms) == 3)
  }

  @Test func feasibleArmsPass() {
    // All ten users with revenue 5: Σx² = 250 = (Σx)²/n exactly, at the bound.
    let exact = ArmData(name: "a", users: 10, conversions: 10, revenue: .statistic(.init(n: 10, sum: 50, sumOfSquares: 250)))
    #expect(exact.validationErrors(field: [.name(.arms)]).isEmpty)
    let atLimit = ArmData(name: "a", users: StatsLimits.maxCount, conversions: StatsLimits.maxCount)
    #expect(atLimit.validationErrors(field: [.name(.arms)]).isEmpty)
  }
}

extension StatsLimitsTests {
  @Test func moreArmsThanTheLimitAreRefused() {
    let arms = (0...StatsLimits.maxArms).map { ArmData(name: "a\($0)", users: 100, conversions: 10) }
    #expect(throws: ExperimentAnalysis.InputError.self) { try ExperimentAnalysis.analyze(arms: arms, control: "a0") }
  }
}
