import Foundation
import FunnelTestSupport
import Testing

@testable import FunnelStats

@Suite struct GroupSequentialDesignTests {
  /// Published Lan–DeMets boundaries, K = 5 equally spaced looks, two-sided α = 0.05
  /// (Jennison & Turnbull 2000, ch. 7; R `ldbounds`/`gsDesign`), given to 3–4 decimals.
  static let published: [(GroupSequentialDesign.Spending, [Double])] = [
    (.obrienFleming, [4.8769, 3.3569, 2.6803, 2.2898, 2.0310]),
    (.pocock, [2.4380, 2.4268, 2.4101, 2.3966, 2.3859]),
  ]

  @Test(arguments: 0..<2)
  func matchesPublishedTables(_ index: Int) throws {
    let (spending, expected) = Self.published[index]
    let design = try GroupSequentialDesign(looks: 5, alpha: 0.05, spending: spending)
    for (got, want) in zip(design.boundaries, expected) {
      #expect(abs(got - want) < 1.5e-3, "\(spending) boundary \(got) vs published \(want)")
    }
    #expect(abs((design.cumulativeAlpha.last ?? 0) - 0.05) < 1e-15)
  }

  /// The recursion's per-look crossing probabilities against scipy's multivariate normal
  /// cdf (Genz's quasi-Monte Carlo, error ~1e-8): 2e-7 absolute, under H₀ and under drift.
  @Test(arguments: try Fixtures.load("sequential.json"))
  func exitProbabilitiesMatchMultivariateNormal(_ c: FixtureCase) throws {
    let k = c.int(0)
    try #require(c.args.count == 2 * k + 2, "bad case \(c.id)")
    let fractions = (1...k).map { c.arg($0) }
    let boundaries = (1...k).map { c.arg(k + $0) }
    let drift = c.arg(2 * k + 1)
    let exits = try GroupSequentialDesign.exitProbabilities(
      boundaries: boundaries, informationFractions: fractions, drift: drift)
    for (i, e) in exits.enumerated() {
      #expect(abs(e - c.value(i)) < 2e-7, "\(c.testDescription)[\(i)]: got \(e)")
    }
  }

  @Test func powerOfADesign() throws {
    let design = try GroupSequentialDesign(looks: 5, alpha: 0.05, spending: .obrienFleming)
    #expect(abs(design.power(drift: 0) - 0.05) < 1e-6)
    // Drift 2.8 gives ~80 % power for a fixed-sample test; OBF loses only a little.
    let power = design.power(drift: 2.8)
    #expect(power > 0.78 && power < 0.80)
  }

  @Test func singleLookIsTheFixedSampleTest() throws {
    let design = try GroupSequentialDesign(looks: 1)
    #expect(abs(design.boundaries[0] - 1.959963984540054) < 1e-12)
  }

  /// Seeded simulation of Brownian motion under H₀: the overall crossing rate is α within a
  /// binomial band set for one check per spending function (20 000 paths: σ ≈ 0.0015;
  /// ``StatisticalBand``).
  @Test(arguments: GroupSequentialDesign.Spending.allCases)
  func simulatedTypeIErrorIsAlpha(_ spending: GroupSequentialDesign.Spending) throws {
    let design = try GroupSequentialDesign(looks: 5, alpha: 0.05, spending: spending)
    var rng = Xoshiro256StarStar(seed: 2024)
    let paths = 20_000
    var rejections = 0
    for _ in 0..<paths {
      var s = 0.0
      var previous = 0.0
      for (k, t) in design.informationFractions.enumerated() {
        let u = rng.nextUnitDouble()
        let z = Normal.standardQuantile(p: u == 0 ? 0x1p-60 : u, q: 1 - u)
        s += z * (t - previous).squareRoot()
        previous = t
        if design.rejects(z: s / t.squareRoot(), atLook: k) {
          rejections += 1
          break
        }
      }
    }
    let rate = Double(rejections) / Double(paths)
    StatisticalBand(checks: GroupSequentialDesign.Spending.allCases.count).expect(
      rate, exact: 0.05, standardError: (0.05 * 0.95 / Double(paths)).squareRoot(), "\(spending) crossing rate")
  }

  @Test func invalidDesignsThrow() {
    #expect(throws: StatsError.self) { try GroupSequentialDesign(looks: 0) }
    #expect(throws: StatsError.self) { try GroupSequentialDesign(informationFractions: [0.5, 0.4, 1]) }
    #expect(throws: StatsError.self) { try GroupSequentialDesign(looks: 3, alpha: 1.5) }
  }
}

@Suite struct AlwaysValidProportionTestTests {
  @Test func likelihoodRatioFormula() throws {
    var monitor = try AlwaysValidProportionTest()
    let look = try monitor.update(
      treatment: ProportionCount(successes: 150, trials: 1000),
      control: ProportionCount(successes: 120, trials: 1000))
    let v = 0.15 * 0.85 / 1000 + 0.12 * 0.88 / 1000
    let tau2 = 0.0001
    let lambda = (v / (v + tau2)).squareRoot() * exp(tau2 * 0.03 * 0.03 / (2 * v * (v + tau2)))
    #expect(abs(look.likelihoodRatio - lambda) < 1e-12 * lambda)
    #expect(abs(look.pValue - min(1, 1 / lambda)) < 1e-12)
    let cs = try #require(look.confidenceSequence)
    #expect(cs.contains(0.03))
    // Wider than the fixed-horizon Wald interval at the same n.
    #expect(cs.upper - cs.lower > 2 * 1.96 * v.squareRoot())
  }

  /// A/A experiments monitored every 200 users per arm up to 4000: the rate of ever
  /// rejecting stays below α (plus a one-check ``StatisticalBand``, z ≈ 3.29, of the binomial
  /// SE for 400 seeded experiments).
  @Test func continuousMonitoringKeepsAlpha() throws {
    var rng = Xoshiro256StarStar(seed: 99)
    let experiments = 400
    var everRejected = 0
    for _ in 0..<experiments {
      var monitor = try AlwaysValidProportionTest()
      var x1 = 0
      var x0 = 0
      var n = 0
      var rejected = false
      while n < 4000 && !rejected {
        for _ in 0..<200 {
          if rng.nextUnitDouble() < 0.1 { x1 += 1 }
          if rng.nextUnitDouble() < 0.1 { x0 += 1 }
        }
        n += 200
        let look = try monitor.update(
          treatment: ProportionCount(successes: x1, trials: n),
          control: ProportionCount(successes: x0, trials: n))
        rejected = look.rejected
      }
      if rejected { everRejected += 1 }
    }
    let rate = Double(everRejected) / Double(experiments)
    #expect(rate <= 0.05 + StatisticalBand(checks: 1).z * (0.05 * 0.95 / Double(experiments)).squareRoot(), "rate \(rate)")
  }

  @Test func pValueNeverIncreases() throws {
    var monitor = try AlwaysValidProportionTest(settings: .init(mixingStandardDeviation: 0.02))
    var last = 1.0
    for (x1, x0, n) in [(20, 10, 100), (25, 24, 200), (60, 40, 300), (61, 60, 400)] {
      let look = try monitor.update(
        treatment: ProportionCount(successes: x1, trials: n),
        control: ProportionCount(successes: x0, trials: n))
      #expect(look.pValue <= last)
      last = look.pValue
    }
  }
}

/// Boundaries against an independent recursion (Gauss–Legendre panels, `brentq` to 1e-13,
/// two grid sizes asserted to agree to 1e-9, measured 4e-16: `make_sequential_reference.py`): 2–10 equally spaced
/// looks, both spending families, α ∈ {0.01, 0.05, 0.1}, and looks at observed information
/// fractions (28 daily looks, interim designs ending below 1).
@Suite struct GroupSequentialBoundaryReferenceTests {
  @Test(arguments: try Fixtures.load("sequential_boundaries.json"))
  func boundariesMatchTheReference(_ c: FixtureCase) throws {
    let k = c.int(0)
    try #require(c.args.count == k + 3 && c.expected.count == 2 * k, "bad case \(c.id)")
    let spending: GroupSequentialDesign.Spending = c.int(1) == 0 ? .obrienFleming : .pocock
    let fractions = (0..<k).map { c.arg(3 + $0) }
    let design = try GroupSequentialDesign(informationFractions: fractions, alpha: c.arg(2), spending: spending)
    for i in 0..<k {
      #expect(abs(design.boundaries[i] - c.value(i)) < 1e-6, "\(c.testDescription): boundary \(i) = \(design.boundaries[i])")
      #expect(abs(design.cumulativeAlpha[i] - c.value(k + i)) < 1e-12 * max(1, c.value(k + i)), "\(c.id): α spent at \(i)")
    }
  }

  @Test func theFileCoversTheIssuesGrid() throws {
    let cases = try Fixtures.load("sequential_boundaries.json")
    var grid = Set<String>()
    for c in cases where c.args.count == c.int(0) + 3 {
      let k = c.int(0)
      let equal = (0..<k).allSatisfy { abs(c.arg(3 + $0) - Double($0 + 1) / Double(k)) < 1e-12 }
      if equal { grid.insert("\(k)-\(c.int(1))-\(c.arg(2))") }
    }
    let wanted = Set((2...10).flatMap { k in (0...1).flatMap { s in [0.01, 0.05, 0.1].map { "\(k)-\(s)-\($0)" } } })
    #expect(wanted.isSubset(of: grid), "missing: \(wanted.subtracting(grid).sorted())")
  }
}

/// GrowthBook's sequential test (gbstats 0.8.0 `SequentialTwoSidedTTest`): estimate, variance,
/// confidence sequence and p-value for proportions and means, relative and absolute, over
/// α, tuning parameters and sizes (`make_sequential_reference.py`), to 1e-9 relative.
@Suite struct AsymptoticConfidenceSequenceTests {
  @Test(arguments: try Fixtures.load("confidence_sequences.json"))
  func matchesGrowthBook(_ c: FixtureCase) throws {
    let settings = AsymptoticConfidenceSequence.Settings(alpha: c.arg(0), tuningParameter: c.arg(1), relative: c.int(2) == 1)
    let result: AsymptoticConfidenceSequence?
    switch c.fn {
    case "gbstats.sequential.proportion":
      result = try AsymptoticConfidenceSequence.proportions(
        control: ProportionCount(successes: c.int(4), trials: c.int(3)),
        treatment: ProportionCount(successes: c.int(6), trials: c.int(5)), settings: settings)
    case "gbstats.sequential.mean":
      result = try AsymptoticConfidenceSequence.means(
        control: SampleMeanStatistic(n: c.int(3), sum: c.arg(4), sumOfSquares: c.arg(5)),
        treatment: SampleMeanStatistic(n: c.int(6), sum: c.arg(7), sumOfSquares: c.arg(8)), settings: settings)
    default:
      Issue.record("unknown case \(c.testDescription)")
      return
    }
    let r = try #require(result, "\(c.id): no result")
    let scale = abs(c.value(0)) + abs(c.value(3) - c.value(0))
    #expect(abs(r.estimate - c.value(0)) <= 1e-9 * max(scale, 1e-300), "\(c.id) estimate \(r.estimate)")
    #expect(close(r.variance, c.value(1), 1e-9, "\(c.id) variance"))
    #expect(abs(r.interval.lower - c.value(2)) <= 1e-9 * scale, "\(c.id) lower \(r.interval.lower)")
    #expect(abs(r.interval.upper - c.value(3)) <= 1e-9 * scale, "\(c.id) upper \(r.interval.upper)")
    #expect(close(r.pValue, c.value(4), 1e-9, absoluteFloor: 1e-300, "\(c.id) p"))
  }

  @Test func degenerateDataGiveNoSequence() throws {
    let zero = try ProportionCount(successes: 0, trials: 100)
    let some = try ProportionCount(successes: 5, trials: 100)
    #expect(try AsymptoticConfidenceSequence.proportions(control: zero, treatment: some) == nil)
    #expect(try AsymptoticConfidenceSequence.proportions(control: zero, treatment: zero, settings: .init(relative: false)) == nil)
    // One arm without variance (every user converted): gbstats gives no result either.
    let all = try ProportionCount(successes: 40, trials: 40)
    let most = try ProportionCount(successes: 36, trials: 40)
    #expect(try AsymptoticConfidenceSequence.proportions(control: all, treatment: most) == nil)
    #expect(try AsymptoticConfidenceSequence.proportions(control: most, treatment: all, settings: .init(relative: false)) == nil)
    #expect(throws: StatsError.self) {
      try AsymptoticConfidenceSequence.proportions(control: some, treatment: some, settings: .init(tuningParameter: 0))
    }
  }
}

/// The planned design against the independent recursion (`gsd_plans.json`): the fixed test's
/// drift, the design's power at the fixed size, the inflation for the same power and the
/// expected sample fractions with and without the effect, for 1–6, 8 and 10 looks, both spending
/// families, α ∈ {0.01, 0.05, 0.1} and power 80 % and 90 %. The fast stage checks 1–4 looks
/// (48 cases; the recursion's cost grows with the looks), the long stage all 96.
@Suite struct GroupSequentialPlanTests {
  @Test(arguments: try Fixtures.load("gsd_plans.json").filter { TestStage.isLong || $0.int(0) <= 4 })
  func planMatchesTheReference(_ c: FixtureCase) throws {
    try #require(c.args.count == 4 && c.expected.count == 5, "bad case \(c.id)")
    let plan = try GroupSequentialPlan(
      looks: c.int(0), spending: c.int(1) == 0 ? .obrienFleming : .pocock, alpha: c.arg(2), power: c.arg(3), usersPerArm: 10_000)
    #expect(close(plan.drift, c.value(0), 1e-9, "\(c.id) drift"))
    #expect(abs(plan.powerAtFixedSize - c.value(1)) < 1e-6, "\(c.testDescription): power at fixed size \(plan.powerAtFixedSize)")
    #expect(abs(plan.inflation - c.value(2)) < 1e-5, "\(c.testDescription): inflation \(plan.inflation)")
    #expect(abs(plan.expectedUsersPerArm / plan.maxUsersPerArm - c.value(3)) < 1e-5, "\(c.id): expected fraction")
    #expect(abs(plan.expectedUsersPerArmWithoutEffect / plan.maxUsersPerArm - c.value(4)) < 1e-5, "\(c.id): expected fraction, no effect")
    #expect(abs(plan.stopProbabilitiesWithoutEffect.reduce(0, +) - c.arg(2)) < 1e-6, "\(c.id): α spent")
  }

  @Test func badPlansAreRefused() {
    #expect(throws: StatsError.self) { try GroupSequentialPlan(looks: 21, spending: .pocock, alpha: 0.05, power: 0.8, usersPerArm: 100) }
    #expect(throws: StatsError.self) { try GroupSequentialPlan(looks: 3, spending: .pocock, alpha: 0.05, power: 0.04, usersPerArm: 100) }
    #expect(throws: StatsError.self) { try GroupSequentialPlan(looks: 3, spending: .pocock, alpha: 0.05, power: 0.8, usersPerArm: 0) }
  }
}
