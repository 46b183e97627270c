public import FunnelStats

/// How a planned A/B test of one variant against the control would behave, by
/// simulating many replicate experiments (in the spirit of DeclareDesign).
///
/// Each replicate draws the arms' conversion counts from the **exact** rates of the
/// compiled flows: `x₀ ~ Binomial(n, p₀)`, `x₁ ~ Binomial(n, p₁)` — exact for a
/// proportion metric when users are independent, and thousands of times faster than
/// walking every user. Per replicate: the pooled z-test (two-sided, level α), the
/// Newcombe interval for `p₁ − p₀`, and an A/A pair drawn from `p₀` twice.
public struct DesignDiagnosis: Sendable, Hashable {
  public var variant: String
  public var metric: FunnelMetric
  /// Exact rates of the control and the variant.
  public var controlRate: Double
  public var variantRate: Double
  public var usersPerArm: Int
  public var replicates: Int
  public var alpha: Double
  /// Share of replicates significant in either direction (two-sided power).
  public var power: Double
  /// The analytic power of the pooled z-test for the same rates and users.
  public var analyticPower: Double?
  /// Share of A/A replicates significant (should be α).
  public var falsePositiveRate: Double
  /// Share of replicates whose interval covers the true difference (should be 1 − α).
  public var coverage: Double
  /// Among significant replicates, the share with the wrong sign (type S).
  public var typeS: Double?
  /// Among significant replicates, the mean |estimate| / |true difference| (type M, exaggeration).
  public var typeM: Double?
  /// Histogram of the replicates' p-values in ten bins of width 0.1.
  public var pValueHistogram: [Int]

  public var trueDifference: Double { variantRate - controlRate }

  /// Monte Carlo standard error of a simulated rate.
  public func standardError(of rate: Double) -> Double {
    (rate * (1 - rate) / Double(max(replicates, 1))).squareRoot()
  }

  /// Simulates `replicates` experiments of `usersPerArm` users per arm.
  /// - Complexity: O(replicates), each two binomial draws of O(√(n·p)) at most.
  public static func simulate(
    variant: String, metric: FunnelMetric, controlRate p0: Double, variantRate p1: Double, usersPerArm n: Int,
    replicates: Int, alpha: Double, seed: UInt64
  ) -> DesignDiagnosis {
    let trueDifference = p1 - p0
    var significant = 0, falsePositives = 0, covered = 0, wrongSign = 0
    var exaggeration = 0.0
    var histogram = [Int](repeating: 0, count: 10)
    let level = 1 - alpha
    for r in 0..<replicates {
      var rng = Xoshiro256StarStar(seed: seed, stream: UInt64(r))
      let x0 = Int(BinomialSampler.sample(trials: UInt64(n), probability: p0, using: &rng))
      let x1 = Int(BinomialSampler.sample(trials: UInt64(n), probability: p1, using: &rng))
      let y0 = Int(BinomialSampler.sample(trials: UInt64(n), probability: p0, using: &rng))
      let y1 = Int(BinomialSampler.sample(trials: UInt64(n), probability: p0, using: &rng))
      guard let c = try? ProportionCount(successes: x0, trials: n), let t = try? ProportionCount(successes: x1, trials: n),
        let a0 = try? ProportionCount(successes: y0, trials: n), let a1 = try? ProportionCount(successes: y1, trials: n)
      else { continue }
      let test = try? TwoProportionZTest.test(treatment: t, control: c)
      let p = test?.pValue ?? 1
      histogram[min(9, Int(p * 10))] += 1
      let estimate = Double(x1 - x0) / Double(n)
      if p < alpha {
        significant += 1
        if trueDifference != 0 {
          if (estimate > 0) != (trueDifference > 0) { wrongSign += 1 }
          exaggeration += abs(estimate) / abs(trueDifference)
        }
      }
      if let interval = (try? ProportionDifference.newcombeInterval(treatment: t, control: c, confidenceLevel: level))?.interval,
        interval.contains(trueDifference)
      {
        covered += 1
      }
      if let aa = try? TwoProportionZTest.test(treatment: a1, control: a0), aa.pValue < alpha { falsePositives += 1 }
    }
    let analytic = try? PowerAnalysis.solve(
      PowerAnalysis.Problem(method: .pooledNormal, baseline: p0, effect: p1, sampleSize: Double(n), power: nil, alpha: alpha))
    let runs = Double(max(replicates, 1))
    return DesignDiagnosis(
      variant: variant, metric: metric, controlRate: p0, variantRate: p1, usersPerArm: n, replicates: replicates, alpha: alpha,
      power: Double(significant) / runs, analyticPower: p0 == p1 ? nil : analytic?.power,
      falsePositiveRate: Double(falsePositives) / runs, coverage: Double(covered) / runs,
      typeS: significant > 0 && trueDifference != 0 ? Double(wrongSign) / Double(significant) : nil,
      typeM: significant > 0 && trueDifference != 0 ? exaggeration / Double(significant) : nil, pValueHistogram: histogram)
  }
}

/// The cost of looking at a running experiment every day, by simulation.
///
/// Each replicate accrues `usersPerDayPerArm` users per arm per day for `days` days
/// (conversions drawn from the exact rates), and looks daily with three rules:
/// **naive** (reject at the first look with p < α — inflates false positives),
/// **group-sequential** (Lan–DeMets O'Brien–Fleming-type boundaries for the `days`
/// planned looks) and **always valid** (the mSPRT of FunnelStats). Under A/A both
/// arms convert at the control's rate; under the alternative at the variant's.
public struct PeekingDiagnosis: Sendable, Hashable {
  public struct Rule: Sendable, Hashable {
    public var name: String
    /// Share of A/A replicates that ever reject.
    public var falsePositiveRate: Double
    /// Share of replicates under the true effect that reject.
    public var power: Double
    /// Mean day of the first rejection among replicates that reject under the true effect.
    public var expectedStoppingDay: Double?
  }

  public var variant: String
  public var days: Int
  public var usersPerDayPerArm: Int
  public var replicates: Int
  public var alpha: Double
  public var rules: [Rule]

  /// - Complexity: O(replicates × days).
  public static func simulate(
    variant: String, controlRate p0: Double, variantRate p1: Double, usersPerDayPerArm m: Int, days: Int, replicates: Int,
    alpha: Double, seed: UInt64
  ) throws(StatsError) -> PeekingDiagnosis {
    let design = try GroupSequentialDesign(looks: days, alpha: alpha, spending: .obrienFleming)
    let names = ["naive daily z-test", "group-sequential (O'Brien-Fleming)", "always-valid mSPRT"]
    var falsePositives = [Int](repeating: 0, count: 3)
    var rejections = [Int](repeating: 0, count: 3)
    var stoppingDays = [Int](repeating: 0, count: 3)
    for scenario in 0..<2 {
      let treatmentRate = scenario == 0 ? p0 : p1
      for r in 0..<replicates {
        var rng = Xoshiro256StarStar(seed: seed ^ 0x5045_454B, stream: UInt64(r) << 1 | UInt64(scenario))
        var x0 = 0, x1 = 0
        var stopped = [Bool](repeating: false, count: 3)
        var mSPRT = try AlwaysValidProportionTest(settings: .init(alpha: alpha))
        for day in 0..<days {
          x0 += Int(BinomialSampler.sample(trials: UInt64(m), probability: p0, using: &rng))
          x1 += Int(BinomialSampler.sample(trials: UInt64(m), probability: treatmentRate, using: &rng))
          let n = m * (day + 1)
          let c = try ProportionCount(successes: x0, trials: n)
          let t = try ProportionCount(successes: x1, trials: n)
          let z = try TwoProportionZTest.test(treatment: t, control: c)
          let look = try mSPRT.update(treatment: t, control: c)
          let decisions = [z.pValue < alpha, design.rejects(z: z.statistic, atLook: day), look.rejected]
          for k in 0..<3 where decisions[k] && !stopped[k] {
            stopped[k] = true
            if scenario == 0 {
              falsePositives[k] += 1
            } else {
              rejections[k] += 1
              stoppingDays[k] += day + 1
            }
          }
        }
      }
    }
    let runs = Double(max(replicates, 1))
    let rules = (0..<3).map { k in
      Rule(
        name: names[k], falsePositiveRate: Double(falsePositives[k]) / runs, power: Double(rejections[k]) / runs,
        expectedStoppingDay: rejections[k] > 0 ? Double(stoppingDays[k]) / Double(rejections[k]) : nil)
    }
    return PeekingDiagnosis(
      variant: variant, days: days, usersPerDayPerArm: m, replicates: replicates, alpha: alpha, rules: rules)
  }
}
