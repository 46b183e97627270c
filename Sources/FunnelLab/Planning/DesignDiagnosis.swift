package import FunnelStats

/// How a planned A/B test of one variant against the control would behave, by
/// simulating many replicate experiments (in the spirit of DeclareDesign).
///
/// Each replicate draws the arms' conversion counts from the **exact** rates of the
/// compiled flows: `x₀ ~ Binomial(n, p₀)`, `x₁ ~ Binomial(n, p₁)` — exact for a
/// proportion metric when users are independent, and thousands of times faster than
/// walking every user. Per replicate: the pooled z-test (two-sided, level α), the
/// Newcombe interval for `p₁ − p₀`, and an A/A pair drawn from `p₀` twice.
public struct DesignDiagnosis: Sendable, Hashable {
  /// The variant's id, compared with the control.
  package var variant: String
  /// The proportion metric whose exact rates the replicates draw from.
  package var metric: FunnelMetric
  /// Exact rates of the control and the variant.
  package var controlRate: Double
  /// The variant's exact rate (``controlRate`` is the control's), a probability in [0, 1].
  package var variantRate: Double
  /// Users in each arm of every replicate (the arms are equal).
  package var usersPerArm: Int
  /// Replicate experiments simulated; every share below has this denominator.
  package var replicates: Int
  /// The two-sided significance level of the replicates' tests; the intervals are at `1 − alpha`.
  package var alpha: Double
  /// Share of replicates significant in either direction (two-sided power).
  package var power: Double
  /// The analytic power of the pooled z-test for the same rates and users.
  package var analyticPower: Double?
  /// Share of A/A replicates significant (should be α).
  package var falsePositiveRate: Double
  /// Share of replicates whose interval covers the true difference (should be 1 − α).
  package var coverage: Double
  /// Among significant replicates, the share with the wrong sign (type S).
  package var typeS: Double?
  /// Among significant replicates, the mean |estimate| / |true difference| (type M, exaggeration).
  package var typeM: Double?
  /// Histogram of the replicates' p-values in ten bins of width 0.1.
  package var pValueHistogram: [Int]

  /// `variantRate − controlRate`: the exact effect the replicates try to detect; exactly 0 when the two
  /// rates tie (``DecisionRule/tied(_:_:)``: a change that cannot reach the metric).
  package var trueDifference: Double { DecisionRule.difference(variantRate, control: controlRate) }

  /// Whether there is an effect to detect: the rates do not tie. Without one, power, type S and
  /// type M have no meaning (every significant replicate is a false positive).
  package var hasEffect: Bool { trueDifference != 0 }

  /// Monte Carlo standard error of a simulated rate.
  package func standardError(of rate: Double) -> Double {
    (rate * (1 - rate) / Double(max(replicates, 1))).squareRoot()
  }

  /// The integer tallies a diagnosis is made of: `+` adds the tallies of disjoint
  /// replicate ranges exactly (shards merge in any order).
  public struct Counts: Sendable, Hashable {
    /// Replicates tallied.
    package var replicates = 0
    /// Replicates whose pooled z-test had `p < alpha` (either direction).
    package var significant = 0
    /// A/A pairs whose pooled z-test had `p < alpha`.
    package var falsePositives = 0
    /// Replicates whose Newcombe interval contains the true difference.
    package var covered = 0
    /// Significant replicates whose observed difference has the opposite sign of the true one (0 when the
    /// true difference is 0).
    package var wrongSign = 0
    /// Σ |x₁ − x₀| over significant replicates (type M = this / n / |Δ| / significant).
    package var absoluteDifferenceSum: UInt64 = 0
    /// Replicates per p-value decile: bin `k` holds `k/10 ≤ p < (k+1)/10`, `p = 1` in the last bin.
    package var pValueHistogram = [Int](repeating: 0, count: 10)

    /// No replicates: the identity of `+`.
    package init() {}

    /// Adds every tally; exact and order-independent for disjoint replicate ranges.
    package static func + (a: Counts, b: Counts) -> Counts {
      var r = a
      r.replicates += b.replicates
      r.significant += b.significant
      r.falsePositives += b.falsePositives
      r.covered += b.covered
      r.wrongSign += b.wrongSign
      r.absoluteDifferenceSum += b.absoluteDifferenceSum
      r.pValueHistogram = zip(a.pValueHistogram, b.pValueHistogram).map { $0 + $1 }
      return r
    }
  }

  /// Tallies replicates `range` (replicate `r` draws from its own stream of `seed`).
  /// - Complexity: O(replicates), each four binomial draws.
  public static func tally(
    controlRate p0: Double, variantRate p1: Double, usersPerArm n: Int, replicates range: Range<Int>, alpha: Double, seed: UInt64
  ) -> Counts {
    let trueDifference = DecisionRule.difference(p1, control: p0)
    var counts = Counts()
    let level = 1 - alpha
    for r in range {
      var rng = Xoshiro256StarStar(seed: seed, stream: UInt64(r))
      let x0 = Int(BinomialSampler.sample(trials: UInt64(n), probability: p0, using: &rng))
      let x1 = Int(BinomialSampler.sample(trials: UInt64(n), probability: p1, using: &rng))
      let y0 = Int(BinomialSampler.sample(trials: UInt64(n), probability: p0, using: &rng))
      let y1 = Int(BinomialSampler.sample(trials: UInt64(n), probability: p0, using: &rng))
      counts.replicates += 1
      guard let c = try? ProportionCount(successes: x0, trials: n), let t = try? ProportionCount(successes: x1, trials: n),
        let a0 = try? ProportionCount(successes: y0, trials: n), let a1 = try? ProportionCount(successes: y1, trials: n)
      else { continue }
      let p = (try? TwoProportionZTest.test(treatment: t, control: c))?.pValue ?? 1
      counts.pValueHistogram[min(9, max(0, Int(rounding: p * 10, .towardZero) ?? 9))] += 1
      if p < alpha {
        counts.significant += 1
        if trueDifference != 0 {
          if (x1 > x0) != (trueDifference > 0) { counts.wrongSign += 1 }
          counts.absoluteDifferenceSum += UInt64(abs(x1 - x0))
        }
      }
      if let interval = (try? ProportionDifference.newcombeInterval(treatment: t, control: c, confidenceLevel: level))?.interval,
        interval.contains(trueDifference)
      {
        counts.covered += 1
      }
      if let aa = try? TwoProportionZTest.test(treatment: a1, control: a0), aa.pValue < alpha { counts.falsePositives += 1 }
    }
    return counts
  }

  /// The diagnosis that tallies `counts` amount to.
  package init(
    variant: String, metric: FunnelMetric, controlRate p0: Double, variantRate p1: Double, usersPerArm n: Int,
    alpha: Double, counts: Counts
  ) {
    let analytic = try? PowerAnalysis.solve(
      PowerAnalysis.Problem(method: .pooledNormal, baseline: p0, effect: p1, sampleSize: Double(n), power: nil, alpha: alpha))
    let runs = Double(max(counts.replicates, 1))
    let trueDifference = DecisionRule.difference(p1, control: p0)
    let significant = counts.significant
    self.variant = variant
    self.metric = metric
    controlRate = p0
    variantRate = p1
    usersPerArm = n
    replicates = counts.replicates
    self.alpha = alpha
    power = Double(significant) / runs
    analyticPower = trueDifference == 0 ? nil : analytic?.power
    falsePositiveRate = Double(counts.falsePositives) / runs
    coverage = Double(counts.covered) / runs
    typeS = significant > 0 && trueDifference != 0 ? Double(counts.wrongSign) / Double(significant) : nil
    typeM =
      significant > 0 && trueDifference != 0
      ? Double(counts.absoluteDifferenceSum) / Double(n) / abs(trueDifference) / Double(significant) : nil
    pValueHistogram = counts.pValueHistogram
  }

  /// Simulates `replicates` experiments of `usersPerArm` users per arm.
  package static func simulate(
    variant: String, metric: FunnelMetric, controlRate p0: Double, variantRate p1: Double, usersPerArm n: Int,
    replicates: Int, alpha: Double, seed: UInt64
  ) -> DesignDiagnosis {
    let counts = tally(controlRate: p0, variantRate: p1, usersPerArm: n, replicates: 0..<replicates, alpha: alpha, seed: seed)
    return DesignDiagnosis(variant: variant, metric: metric, controlRate: p0, variantRate: p1, usersPerArm: n, alpha: alpha, counts: counts)
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
package struct PeekingDiagnosis: Sendable, Hashable {
  /// One stopping rule's operating characteristics under daily looks.
  package struct Rule: Sendable, Hashable {
    /// The rule in words: `naive daily z-test`, `group-sequential (O'Brien-Fleming)` or `always-valid mSPRT`.
    package var name: String
    /// Share of A/A replicates that ever reject.
    package var falsePositiveRate: Double
    /// Share of replicates under the true effect that reject.
    package var power: Double
    /// Mean day of the first rejection among replicates that reject under the true effect.
    package var expectedStoppingDay: Double?
  }

  /// The variant's id, compared with the control.
  package var variant: String
  /// Looks per replicate, one a day; also the planned looks of the group-sequential boundaries.
  package var days: Int
  /// New users per arm each day; a look on day `d` sees `d × usersPerDayPerArm` users per arm.
  package var usersPerDayPerArm: Int
  /// Replicates per scenario (A/A and true effect); the rates' denominator.
  package var replicates: Int
  /// The overall significance level every rule is meant to hold.
  package var alpha: Double
  /// The three rules, always in the order naive, group-sequential, always-valid.
  package var rules: [Rule]

  /// Integer tallies over a replicate range (`+` merges shards exactly).
  package struct Counts: Sendable, Hashable {
    /// Replicates tallied per scenario.
    package var replicates = 0
    /// Per rule (naive, group-sequential, always-valid): A/A replicates that rejected at some look.
    package var falsePositives = [0, 0, 0]
    /// Per rule: replicates under the true effect that rejected at some look.
    package var rejections = [0, 0, 0]
    /// Per rule: the sum of the first rejection's day (1-based) over the rejecting replicates under the true effect.
    package var stoppingDays = [0, 0, 0]

    /// No replicates: the identity of `+`.
    package init() {}

    /// Adds every tally rule by rule; exact and order-independent for disjoint replicate ranges.
    package static func + (a: Counts, b: Counts) -> Counts {
      var r = a
      r.replicates += b.replicates
      for k in 0..<3 {
        r.falsePositives[k] += b.falsePositives[k]
        r.rejections[k] += b.rejections[k]
        r.stoppingDays[k] += b.stoppingDays[k]
      }
      return r
    }
  }

  static let ruleNames = ["naive daily z-test", "group-sequential (O'Brien-Fleming)", "always-valid mSPRT"]

  /// The O'Brien-Fleming design the group-sequential rule reads: one look a day at `alpha`.
  /// Its boundaries are a numerical integration, so a caller tallying in chunks makes it once.
  package static func design(days: Int, alpha: Double) throws(StatsError) -> GroupSequentialDesign {
    try GroupSequentialDesign(looks: days, alpha: alpha, spending: .obrienFleming)
  }

  /// Tallies replicates `range`, with `design` = ``design(days:alpha:)`` of the same days and alpha.
  /// - Complexity: O(replicates × days).
  package static func tally(
    controlRate p0: Double, variantRate p1: Double, usersPerDayPerArm m: Int, days: Int, replicates range: Range<Int>,
    alpha: Double, seed: UInt64, design: GroupSequentialDesign
  ) throws(StatsError) -> Counts {
    var counts = Counts()
    counts.replicates = range.count
    for scenario in 0..<2 {
      let treatmentRate = scenario == 0 ? p0 : p1
      for r in range {
        var rng = Xoshiro256StarStar(seed: seed ^ 0x5045_454B, stream: UInt64(r) << 1 | UInt64(scenario))
        var x0 = 0, x1 = 0
        var stopped = [false, false, false]
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
              counts.falsePositives[k] += 1
            } else {
              counts.rejections[k] += 1
              counts.stoppingDays[k] += day + 1
            }
          }
        }
      }
    }
    return counts
  }

  /// The diagnosis that tallies `counts` amount to.
  package init(variant: String, usersPerDayPerArm m: Int, days: Int, alpha: Double, counts: Counts) {
    let runs = Double(max(counts.replicates, 1))
    let rules = (0..<3).map { k in
      Rule(
        name: Self.ruleNames[k], falsePositiveRate: Double(counts.falsePositives[k]) / runs,
        power: Double(counts.rejections[k]) / runs,
        expectedStoppingDay: counts.rejections[k] > 0 ? Double(counts.stoppingDays[k]) / Double(counts.rejections[k]) : nil)
    }
    self.variant = variant
    self.days = days
    usersPerDayPerArm = m
    replicates = counts.replicates
    self.alpha = alpha
    self.rules = rules
  }

  /// Simulates `replicates` replicate experiments under A/A and under the true effect.
  package static func simulate(
    variant: String, controlRate p0: Double, variantRate p1: Double, usersPerDayPerArm m: Int, days: Int, replicates: Int,
    alpha: Double, seed: UInt64
  ) throws(StatsError) -> PeekingDiagnosis {
    let counts = try tally(
      controlRate: p0, variantRate: p1, usersPerDayPerArm: m, days: days, replicates: 0..<replicates, alpha: alpha, seed: seed,
      design: design(days: days, alpha: alpha))
    return PeekingDiagnosis(variant: variant, usersPerDayPerArm: m, days: days, alpha: alpha, counts: counts)
  }
}
