import Foundation
import FunnelTestSupport
import Testing

@testable import FunnelStats

@Suite struct SequentialAnalysisTests {
  /// Daily cumulative looks of an A/B test with `usersPerDay` users per arm a day.
  static func looks(days: Int, usersPerDay: Int, rates: [Double], rng: inout Xoshiro256StarStar) -> [SequentialAnalysis.Look] {
    var users = rates.map { _ in 0 }
    var conversions = rates.map { _ in 0 }
    var looks: [SequentialAnalysis.Look] = []
    for day in 1...days {
      for (i, p) in rates.enumerated() {
        users[i] += usersPerDay
        conversions[i] += Int(BinomialSampler.sample(trials: UInt64(usersPerDay), probability: p, using: &rng))
      }
      looks.append(
        .init(
          day: String(day),
          arms: rates.indices.map { ArmData(name: $0 == 0 ? "control" : "b\($0)", users: users[$0], conversions: conversions[$0]) }))
    }
    return looks
  }

  /// The A/A check: 28 daily reads of 2,000 simulated A/A tests. Both sequential
  /// methods reject in at most α + 3 SE of the replicates; the naive daily read of the
  /// fixed-horizon p-value rejects far more often (the inflation peeking causes).
  @Test func readingAnAATestEveryDayKeepsAlphaOnlyWithSequentialMethods() throws {
    let replicates = 2_000
    let settings = SequentialAnalysis.Settings(alpha: 0.05)
    var rng = Xoshiro256StarStar(seed: 28)
    var sample = Self.looks(days: 28, usersPerDay: 400, rates: [0.1, 0.1], rng: &rng)
    let plan = try SequentialAnalysis.plan(looks: sample, control: "control", settings: settings)
    let design = try GroupSequentialDesign(informationFractions: plan.fractions, alpha: 0.05)
    var rejected = (groupSequential: 0, sequence: 0, msprt: 0, naive: 0)
    for _ in 0..<replicates {
      sample = Self.looks(days: 28, usersPerDay: 400, rates: [0.1, 0.1], rng: &rng)
      let rows = try SequentialAnalysis.analyze(looks: sample, control: "control", settings: settings, plan: plan, design: design).rows
      if rows.contains(where: { $0.decision == .stopForEfficacy || $0.decision == .finalSignificant }) { rejected.groupSequential += 1 }
      if rows.contains(where: { ($0.alwaysValidPValue ?? 1) <= 0.05 }) { rejected.sequence += 1 }
      if rows.contains(where: { ($0.msprtPValue ?? 1) <= 0.05 }) { rejected.msprt += 1 }
      if rows.contains(where: { ($0.fixedPValue ?? 1) <= 0.05 }) { rejected.naive += 1 }
    }
    let n = Double(replicates)
    let ceiling = 0.05 + 3 * (0.05 * 0.95 / n).squareRoot()
    let rates = (
      Double(rejected.groupSequential) / n, Double(rejected.sequence) / n, Double(rejected.msprt) / n, Double(rejected.naive) / n
    )
    #expect(rates.0 <= ceiling, "group-sequential A/A rejection \(rates.0)")
    #expect(rates.1 <= ceiling, "confidence-sequence A/A rejection \(rates.1)")
    #expect(rates.2 <= ceiling, "mSPRT A/A rejection \(rates.2)")
    // The group-sequential design spends all of α: its rate is near α, not far below.
    #expect(rates.0 >= 0.05 - 4 * (0.05 * 0.95 / n).squareRoot(), "group-sequential A/A rejection \(rates.0)")
    // The naive daily read: well above α (29 % for 28 looks, about 6×).
    #expect(rates.3 >= 0.20, "naive daily A/A rejection \(rates.3)")
  }

  @Test func aClearEffectStopsEarlyAndLaterLooksAreEnded() throws {
    var rng = Xoshiro256StarStar(seed: 5)
    let looks = Self.looks(days: 20, usersPerDay: 2_000, rates: [0.10, 0.13], rng: &rng)
    let report = try SequentialAnalysis.analyze(looks: looks, control: "control", settings: .init(plannedUsers: 80_000))
    let stop = try #require(report.rows.firstIndex { $0.decision == .stopForEfficacy })
    #expect(stop < report.rows.count - 1)
    #expect(report.rows[(stop + 1)...].allSatisfy { $0.decision == .ended && $0.boundary == nil })
    #expect(report.reachedPlannedEnd)
  }

  /// The decision never contradicts the repeated confidence interval beside it.
  @Test(arguments: [0.10, 0.104, 0.11])
  func decisionAgreesWithTheRepeatedInterval(_ rate: Double) throws {
    var rng = Xoshiro256StarStar(seed: 9)
    let looks = Self.looks(days: 14, usersPerDay: 1_500, rates: [0.10, rate, 0.1], rng: &rng)
    let report = try SequentialAnalysis.analyze(looks: looks, control: "control", settings: .init(plannedUsers: 63_000))
    for row in report.rows where row.boundary != nil {
      let interval = try #require(row.repeatedInterval)
      let excludesZero = interval.lower > 0 || interval.upper < 0
      let significant = row.decision == .stopForEfficacy || row.decision == .finalSignificant
      #expect(excludesZero == significant, "day \(row.day) \(row.arm): \(row.decision) with \(interval)")
    }
  }

  /// Without a plan, one look is the fixed-sample test: boundary 1.96, the repeated interval
  /// is the fixed interval.
  @Test func oneLookIsTheFixedSampleTest() throws {
    let look = SequentialAnalysis.Look(
      day: "1", arms: [ArmData(name: "control", users: 5_000, conversions: 500), ArmData(name: "b", users: 5_000, conversions: 560)])
    let row = try #require(try SequentialAnalysis.analyze(looks: [look], control: "control").rows.first)
    #expect(abs((row.boundary ?? 0) - 1.959963984540054) < 1e-12)
    #expect(row.repeatedInterval?.lower == row.fixedInterval?.lower)
    #expect(row.decision == .finalNotSignificant || row.decision == .finalSignificant)
    #expect(((row.fixedPValue ?? 1) <= 0.05) == (row.decision == .finalSignificant))
  }

  /// Planned users beyond the data: the last look is an interim one, the decision `continue`;
  /// a day without new users is not a look.
  @Test func interimLooksAndDaysWithoutUsers() throws {
    let arms = { (u: Int, c0: Int, c1: Int) in
      [ArmData(name: "control", users: u, conversions: c0), ArmData(name: "b", users: u, conversions: c1)]
    }
    let looks: [SequentialAnalysis.Look] = [
      .init(day: "1", arms: arms(1_000, 100, 104)), .init(day: "2", arms: arms(1_000, 100, 104)),
      .init(day: "3", arms: arms(2_000, 200, 212)),
    ]
    let report = try SequentialAnalysis.analyze(looks: looks, control: "control", settings: .init(plannedUsers: 40_000))
    #expect(report.rows.map(\.decision) == [.continueTest, .notALook, .continueTest])
    #expect(report.design.informationFractions == [0.05, 0.1])
    #expect(!report.reachedPlannedEnd)
  }

  /// A day adding under 0.5 % of the planned users is not a look (the recursion could not
  /// resolve it); its users count at the next look, and the planned end is always a look.
  @Test func aDayWithTooLittleInformationIsNotALook() throws {
    let arms = { (u: Int, c: Int) in [ArmData(name: "control", users: u, conversions: c), ArmData(name: "b", users: u, conversions: c)] }
    let looks: [SequentialAnalysis.Look] = [
      .init(day: "1", arms: arms(2_500, 250)), .init(day: "2", arms: arms(2_510, 251)), .init(day: "3", arms: arms(2_530, 253)),
      .init(day: "4", arms: arms(4_995, 500)), .init(day: "5", arms: arms(5_000, 500)),
    ]
    let report = try SequentialAnalysis.analyze(looks: looks, control: "control", settings: .init(plannedUsers: 10_000))
    #expect(report.rows.map(\.decision) == [.continueTest, .notALook, .continueTest, .continueTest, .finalNotSignificant])
    #expect(report.design.informationFractions == [0.5, 0.506, 0.999, 1])
  }

  @Test func badLooksAreNamed() throws {
    let a = ArmData(name: "control", users: 100, conversions: 10)
    let b = ArmData(name: "b", users: 100, conversions: 12)
    let fewer = ArmData(name: "b", users: 90, conversions: 12)
    func field(_ looks: [SequentialAnalysis.Look], control: String = "control") -> String? {
      do {
        _ = try SequentialAnalysis.analyze(looks: looks, control: control)
        return nil
      } catch { return error.field.description }
    }
    #expect(field([.init(day: "1", arms: [a, b]), .init(day: "2", arms: [a, fewer])]) == "looks[1].arms[1]")
    #expect(field([.init(day: "1", arms: [a, b]), .init(day: "2", arms: [b, a])]) == "looks[1].arms")
    #expect(field([.init(day: "1", arms: [a, b])], control: "x") == "control")
    #expect(field([]) == "looks")
    #expect(field([.init(day: "1", arms: [a, ArmData(name: "b", users: 5, conversions: 9)])]) == "looks[0].arms[1].conversions")
  }
}
