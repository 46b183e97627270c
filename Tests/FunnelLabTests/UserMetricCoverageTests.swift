import Foundation
import FunnelStats
import FunnelTestSupport
import Testing

@testable import FunnelLab

/// The intervals of `analyze --users-file` cover the true difference as often as they say:
/// seeded A/B tests of skewed revenue with a pre-period covariate, known by construction,
/// read line by line through ``UserFile`` and analyzed by ``UserMetricAnalysis``.
///
/// A user's pre-period sessions `x` are uniform on 0…19; they buy with probability
/// `0.02 + 0.01x` (mean 0.115), at a price of 10 or 20 in the control and 12 or 24 in the
/// treatment (even odds). So the true revenue per user is 15 · 0.115 = 1.725 against
/// 18 · 0.115 = 2.07 (Δ = 0.345), and the true revenue per purchase 15 against 18 (Δ = 3).
@Suite struct UserMetricCoverageTests {
  static let trueDifference = 0.345
  static let trueRatioDifference = 3.0

  static func file(seed: UInt64, usersPerArm: Int) -> UserFile {
    var rng = SplitMix64(seed: seed)
    var file = UserFile(columns: UserFile.Columns(metric: "revenue", covariate: "pre", numerator: "revenue", denominator: "purchases"))
    file.add(line: "arm,pre,purchases,revenue", number: 1)
    var line = 1
    for user in 0..<(2 * usersPerArm) {
      let treatment = user % 2 == 1
      let x = Int(rng.next() % 20)
      let buys = Double(rng.next() >> 11) / 9_007_199_254_740_992 < 0.02 + 0.01 * Double(x)
      let high = rng.next() & 1 == 1
      let price = (treatment ? 12.0 : 10.0) * (high ? 2 : 1)
      line += 1
      file.add(line: "\(treatment ? "b" : "control"),\(x),\(buys ? 1 : 0),\(buys ? price : 0)", number: line)
    }
    file.finish()
    return file
  }

  @Test func intervalsCoverTheTruth() throws {
    let replicates = TestStage.size(fast: 80, long: 2_000)
    let methods = ["Welch", "CUPED", "Lin (HC1)", "ratio"]
    var covered = [UInt64](repeating: 0, count: methods.count)
    for r in 0..<replicates {
      let f = Self.file(seed: 20_261_128 &+ UInt64(r), usersPerArm: 1_500)
      try #require(f.problem == nil, "\(String(describing: f.problem))")
      let report = try UserMetricAnalysis.analyze(f, settings: UserMetricAnalysis.Settings())
      let c = try #require(report.comparisons.first)
      let intervals = [
        c.welch?.difference.interval, c.cuped?.difference.interval, c.regression?.difference.interval, c.ratio?.difference.interval,
      ]
      for (k, interval) in intervals.enumerated() {
        let truth = k == 3 ? Self.trueRatioDifference : Self.trueDifference
        if let i = interval, i.lower <= truth, truth <= i.upper { covered[k] += 1 }
      }
    }
    let band = StatisticalBand(checks: methods.count)
    for (k, name) in methods.enumerated() {
      band.expectProportion(covered[k], of: UInt64(replicates), exact: 0.95, "\(name) coverage of the true difference")
    }
    print(
      "UserMetricCoverageTests: \(replicates) tests, coverage "
        + zip(methods, covered).map {
          "\($0) \(Double($1) / Double(replicates))"
        }.joined(separator: ", "))
  }

  /// CUPED's and Lin's estimates agree with each other closely and are less variable than Welch's
  /// (the covariate explains part of revenue), over the replicates.
  @Test func adjustmentRemovesVariance() throws {
    var welch = [Double]()
    var cuped = [Double]()
    for r in 0..<TestStage.size(fast: 40, long: 500) {
      let f = Self.file(seed: 7_000 &+ UInt64(r), usersPerArm: 1_500)
      let c = try #require(try UserMetricAnalysis.analyze(f, settings: UserMetricAnalysis.Settings()).comparisons.first)
      let adjusted = c.cuped?.difference.estimate ?? .nan
      let lin = c.regression?.difference.estimate ?? .nan
      welch.append(c.welch?.difference.estimate ?? .nan)
      cuped.append(adjusted)
      #expect(abs(lin - adjusted) < 0.05, "Lin \(lin) and CUPED \(adjusted) on the same users")
    }
    func variance(_ v: [Double]) -> Double {
      let m = v.reduce(0, +) / Double(v.count)
      return v.reduce(0) { $0 + ($1 - m) * ($1 - m) } / Double(v.count - 1)
    }
    #expect(variance(cuped) < variance(welch), "CUPED \(variance(cuped)) against Welch \(variance(welch))")
  }
}
