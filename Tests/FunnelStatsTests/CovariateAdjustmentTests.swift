import Foundation
import FunnelStats
import Testing

/// Lin's regression adjustment against statsmodels OLS (HC0–HC3, nonrobust), the
/// strata-sums path against the per-user path, and CUPED against gbstats 0.8
/// (fixtures from `Fixtures/make_adjustment_reference.py`).
@Suite struct CovariateAdjustmentTests {
  /// One two-arm case of `adjustment.json`.
  struct LinCase: Sendable, CustomStringConvertible {
    var name: String
    var control: RegressionAdjustment.Arm
    var treatment: RegressionAdjustment.Arm
    var adjusted: [String: Double]
    var unadjusted: [String: Double]
    var description: String { name }
  }

  static func json(_ file: String) -> [String: Any] {
    let url = Fixtures.directory.appendingPathComponent(file)
    guard let data = try? Data(contentsOf: url), let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else {
      return [:]
    }
    return object
  }

  static let linCases: [LinCase] = {
    let cases = json("adjustment.json")["cases"] as? [[String: Any]] ?? []
    func arm(_ a: Any?) -> RegressionAdjustment.Arm {
      let d = a as? [String: Any] ?? [:]
      let y = (d["y"] as? [NSNumber] ?? []).map(\.doubleValue)
      let z = (d["z"] as? [[NSNumber]] ?? []).map { $0.map(\.doubleValue) }
      return RegressionAdjustment.Arm(outcomes: y, covariates: z)
    }
    func numbers(_ a: Any?) -> [String: Double] { (a as? [String: NSNumber] ?? [:]).mapValues(\.doubleValue) }
    return cases.map { c in
      LinCase(
        name: c["name"] as? String ?? "?", control: arm(c["control"]), treatment: arm(c["treatment"]),
        adjusted: numbers(c["adjusted"]), unadjusted: numbers(c["unadjusted"]))
    }
  }()

  static let kinds: [(RegressionAdjustment.StandardError, String)] = [
    (.hc0, "se_hc0"), (.hc1, "se_hc1"), (.hc2, "se_hc2"), (.hc3, "se_hc3"), (.classical, "se_nonrobust"),
  ]

  @Test func fixtureHasEnoughCases() {
    #expect(Self.linCases.count >= 200)
  }

  @Test(arguments: linCases)
  func linMatchesStatsmodels(_ c: LinCase) throws {
    for (kind, key) in Self.kinds {
      let r = try RegressionAdjustment.compare(treatment: c.treatment, control: c.control, standardError: kind)
      let tau = try #require(r.difference.estimate)
      #expect(close(tau, c.adjusted["difference"] ?? .nan, 1e-9, absoluteFloor: 1e-12, "\(c.name) τ"))
      #expect(close(r.standardError, c.adjusted[key] ?? .nan, 1e-9, "\(c.name) \(key)"))
      #expect(close(r.unadjustedDifference, c.unadjusted["difference"] ?? .nan, 1e-9, absoluteFloor: 1e-12, "\(c.name) raw Δ"))
      if let plain = c.unadjusted[key] {
        #expect(close(r.unadjustedStandardError, plain, 1e-9, "\(c.name) raw \(key)"))
      }
    }
  }

  /// A case whose covariates are 0/1 stratum indicators (one-hot, or none for the first
  /// stratum) and at most one other column, as strata sums.
  static func strata(_ arm: RegressionAdjustment.Arm, dummies: [Int], covariate: Int?, strata: Int) -> [StratumSums] {
    (0..<strata).map { s in
      let rows = arm.covariates.indices.filter { i in
        let hot = dummies.firstIndex { arm.covariates[i][$0] == 1 }.map { $0 + 1 } ?? 0
        return hot == s
      }
      return StratumSums(
        outcomes: rows.map { arm.outcomes[$0] }, covariates: covariate.map { j in rows.map { arm.covariates[$0][j] } })
    }
  }

  @Test(arguments: linCases)
  func strataSumsMatchPerUserRows(_ c: LinCase) throws {
    let all = c.control.covariates + c.treatment.covariates
    let q = all.first?.count ?? 0
    let dummies = (0..<q).filter { j in all.allSatisfy { $0[j] == 0 || $0[j] == 1 } }
    let others = (0..<q).filter { !dummies.contains($0) }
    let oneHot = all.allSatisfy { row in dummies.filter { row[$0] == 1 }.count <= 1 }
    guard others.count <= 1, oneHot else { return }
    let count = dummies.count + 1
    let control = Self.strata(c.control, dummies: dummies, covariate: others.first, strata: count)
    let treatment = Self.strata(c.treatment, dummies: dummies, covariate: others.first, strata: count)
    for (kind, key) in Self.kinds where kind != .hc2 && kind != .hc3 {
      let r = try RegressionAdjustment.compare(
        treatment: treatment, control: control, strata: !dummies.isEmpty, covariate: !others.isEmpty, standardError: kind)
      let tau = try #require(r.difference.estimate)
      #expect(close(tau, c.adjusted["difference"] ?? .nan, 1e-9, absoluteFloor: 1e-12, "\(c.name) sums τ"))
      #expect(close(r.standardError, c.adjusted[key] ?? .nan, 1e-9, "\(c.name) sums \(key)"))
    }
  }

  @Test func sumsRefuseLeverageKinds() {
    let s = [StratumSums(users: 10, sum: 3, sumOfSquares: 3)]
    #expect(throws: StatsError.self) {
      try RegressionAdjustment.compare(treatment: s, control: s, strata: false, covariate: false, standardError: .hc2)
    }
  }

  @Test func refusesCollinearAndRaggedInput() {
    let arm = RegressionAdjustment.Arm(outcomes: [1, 0, 1, 0], covariates: [[1, 2], [2, 4], [3, 6], [4, 8]])
    #expect(throws: StatsError.self) { try RegressionAdjustment.compare(treatment: arm, control: arm) }
    let ragged = RegressionAdjustment.Arm(outcomes: [1, 0, 1], covariates: [[1], [2, 3], [4]])
    #expect(throws: StatsError.self) { try RegressionAdjustment.compare(treatment: ragged, control: ragged) }
    // A stratum empty in one arm cannot be adjusted for; one empty in both carries nothing and is left out.
    let full = [StratumSums(users: 4, sum: 1, sumOfSquares: 1), StratumSums(users: 5, sum: 2, sumOfSquares: 2)]
    let oneEmpty = [StratumSums(users: 0, sum: 0, sumOfSquares: 0), StratumSums(users: 5, sum: 2, sumOfSquares: 2)]
    #expect(throws: StatsError.self) {
      try RegressionAdjustment.compare(treatment: oneEmpty, control: full, strata: true, covariate: false)
    }
    let bothEmpty = try? RegressionAdjustment.compare(treatment: oneEmpty, control: oneEmpty, strata: true, covariate: false)
    let alone = try? RegressionAdjustment.compare(treatment: [oneEmpty[1]], control: [oneEmpty[1]], strata: false, covariate: false)
    #expect(bothEmpty != nil && bothEmpty == alone)
    let short = [StratumSums(shift: 0, sums: [1, 2])]
    #expect(throws: StatsError.self) { try RegressionAdjustment.compare(treatment: short, control: short, strata: false, covariate: false) }
  }

  // MARK: CUPED against gbstats

  static var cupedCases: [[String: Any]] { json("cuped_gbstats.json")["cases"] as? [[String: Any]] ?? [] }

  static func cupedArm(_ a: Any?) -> CUPED.Arm {
    let d = a as? [String: Any] ?? [:]
    let post = d["post"] as? [String: Any] ?? [:]
    let pre = d["pre"] as? [String: Any] ?? [:]
    func number(_ v: Any?) -> Double { (v as? NSNumber)?.doubleValue ?? .nan }
    func squares(_ stat: [String: Any]) -> Double? { stat["type"] as? String == "proportion" ? nil : number(stat["sum_squares"]) }
    return CUPED.Arm(
      users: number(d["n"]), outcomeSum: number(post["sum"]), outcomeSumOfSquares: squares(post), covariateSum: number(pre["sum"]),
      covariateSumOfSquares: squares(pre), sumOfProducts: number(d["post_pre_sum_of_products"]))
  }

  @Test func cupedFixtureHasEnoughCases() {
    #expect(Self.cupedCases.count >= 80)
  }

  @Test func cupedMatchesGbstats() throws {
    var compared = 0
    for c in Self.cupedCases {
      let name = c["name"] as? String ?? "?"
      let adjusted = c["adjusted"] as? [String: Any] ?? [:]
      // gbstats returns a placeholder (Δ 0, p 1) when the control's mean is 0 or a
      // variance is not positive: a guard of its relative mode, not a result.
      guard adjusted["error_message"] is NSNull else { continue }
      let r = try CUPED.compare(treatment: Self.cupedArm(c["treatment"]), control: Self.cupedArm(c["control"]))
      func number(_ v: Any?) -> Double { (v as? NSNumber)?.doubleValue ?? .nan }
      let ci = (adjusted["ci"] as? [NSNumber] ?? []).map(\.doubleValue)
      let tau = try #require(r.difference.estimate)
      let interval = try #require(r.difference.interval)
      #expect(close(r.theta, number(c["theta"]), 1e-9, absoluteFloor: 1e-14, "\(name) θ"))
      #expect(close(tau, number(adjusted["expected"]), 1e-9, absoluteFloor: 1e-13, "\(name) Δ"))
      #expect(close(r.standardError * r.standardError, number(adjusted["variance"]), 1e-9, "\(name) V"))
      #expect(close(r.test.degreesOfFreedom ?? .nan, number(adjusted["dof"]), 1e-9, "\(name) ν"))
      #expect(close(r.test.pValue, number(adjusted["p_value"]), 1e-9, absoluteFloor: 1e-13, "\(name) p"))
      #expect(close(interval.lower, ci.first ?? .nan, 1e-9, absoluteFloor: 1e-13, "\(name) lower"))
      #expect(close(interval.upper, ci.last ?? .nan, 1e-9, absoluteFloor: 1e-13, "\(name) upper"))
      let plain = c["unadjusted"] as? [String: Any] ?? [:]
      #expect(close(r.unadjustedDifference, number(plain["expected"]), 1e-9, absoluteFloor: 1e-13, "\(name) raw Δ"))
      compared += 1
    }
    #expect(compared >= 80)
  }

  // MARK: Cochran's Q against statsmodels

  @Test func heterogeneityMatchesStatsmodels() throws {
    let cases = Self.json("heterogeneity.json")["cases"] as? [[String: Any]] ?? []
    #expect(cases.count >= 50)
    for c in cases {
      let name = c["name"] as? String ?? "?"
      func number(_ key: String) -> Double { (c[key] as? NSNumber)?.doubleValue ?? .nan }
      let effects = (c["effects"] as? [NSNumber] ?? []).map(\.doubleValue)
      let ses = (c["se"] as? [NSNumber] ?? []).map(\.doubleValue)
      let r = try HeterogeneityTest.test(effects: effects, standardErrors: ses)
      #expect(close(r.test.statistic, number("q"), 1e-9, absoluteFloor: 1e-14, "\(name) Q"))
      #expect(close(r.test.pValue, number("p"), 1e-9, absoluteFloor: 1e-15, "\(name) p"))
      #expect(r.test.degreesOfFreedom == number("df"))
      // statsmodels leaves I² negative when Q < df; Higgins & Thompson truncate it at 0.
      #expect(close(r.iSquared, max(0, number("i2")), 1e-9, absoluteFloor: 1e-14, "\(name) I²"))
      #expect(close(r.pooledEffect, number("pooled"), 1e-9, absoluteFloor: 1e-15, "\(name) pooled"))
      #expect(close(r.pooledStandardError, number("pooled_se"), 1e-9, "\(name) pooled SE"))
    }
  }

  @Test func heterogeneityRefusesOneStratumAndZeroErrors() {
    #expect(throws: StatsError.self) { try HeterogeneityTest.test(effects: [0.1], standardErrors: [0.01]) }
    #expect(throws: StatsError.self) { try HeterogeneityTest.test(effects: [0.1, 0.2], standardErrors: [0.01, 0]) }
    #expect(throws: StatsError.self) { try HeterogeneityTest.test(effects: [0.1, 0.2], standardErrors: [0.01]) }
  }
}
