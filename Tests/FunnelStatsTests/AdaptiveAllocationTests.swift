import Foundation
import FunnelTestSupport
import Testing

@testable import FunnelStats

@Suite struct AdaptiveAllocationTests {
  static func counts(_ pairs: [(Int, Int)]) throws -> [ProportionCount] {
    try pairs.map { try ProportionCount(successes: $0.0, trials: $0.1) }
  }

  @Test func burnInSplitsEqually() throws {
    let allocation = AdaptiveAllocation(burnInDays: 2)
    let (weights, best) = try allocation.weights(after: Self.counts([(10, 100), (30, 100), (20, 100)]), day: 1)
    let third: Double = 1 / 3.0
    #expect(weights == [third, third, third])
    let total: Double = best.reduce(0, +)
    #expect(abs(total - 1) < 1e-9)
    #expect(best[1] > 0.9 && best[1] < 0.99)
  }

  @Test func thompsonWeightsAreTheProbabilitiesOfBeingBestAboveTheFloor() throws {
    let data = try Self.counts([(100, 1000), (112, 1000), (95, 1000)])
    let allocation = AdaptiveAllocation(policy: .thompson, minimumShare: 0.05, burnInDays: 0)
    let (weights, best) = try allocation.weights(after: data, day: 3)
    let reference = NormalPosteriorModel.probabilityToBeBest(
      try data.map { count throws in
        let beta = try BetaBinomialModel().posteriorDistribution(count)
        return Normal(mean: beta.mean, standardDeviation: beta.variance.squareRoot())
      })
    let exact = try BetaBinomialModel().probabilityToBeBest(data)
    for (approximate, beta) in zip(reference, exact) { #expect(abs(approximate - beta) < 5e-3) }
    for i in 0..<3 {
      let floored: Double = 0.05 + 0.85 * reference[i]
      let gap: Double = abs(weights[i] - floored)
      #expect(gap < 1e-12)
      let same: Double = abs(best[i] - reference[i])
      #expect(same < 1e-9)
      #expect(weights[i] >= 0.05)
    }
    let total: Double = weights.reduce(0, +)
    #expect(abs(total - 1) < 1e-12)
  }

  /// Worked by hand from ψᵢ = πᵢ(β + (1 − β)Σ_{j≠i} πⱼ/(1 − πⱼ)) with π = (0.7, 0.2, 0.1), β = ½:
  /// 0.7·(0.5 + 0.5·(0.25 + 1/9)), 0.2·(0.5 + 0.5·(7/3 + 1/9)), 0.1·(0.5 + 0.5·(7/3 + 0.25)).
  @Test func topTwoMatchesTheLeaderChallengerProbabilities() {
    let psi = AdaptiveAllocation.topTwo([0.7, 0.2, 0.1], leaderProbability: 0.5)
    let first: Double = 0.7 * (0.5 + 0.5 * (0.25 + 1 / 9.0))
    let second: Double = 0.2 * (0.5 + 0.5 * (7 / 3.0 + 1 / 9.0))
    let third: Double = 0.1 * (0.5 + 0.5 * (7 / 3.0 + 0.25))
    for (got, want) in zip(psi, [first, second, third]) {
      let gap: Double = abs(got - want)
      #expect(gap < 1e-15)
    }
    let total: Double = psi.reduce(0, +)
    #expect(abs(total - 1) < 1e-15)
    // A certain leader: it is played β of the time, its challengers share the rest.
    #expect(AdaptiveAllocation.topTwo([1, 0, 0], leaderProbability: 0.5) == [0.5, 0.25, 0.25])
  }

  @Test func epsilonGreedySharesTiesAndKeepsEpsilon() throws {
    let allocation = AdaptiveAllocation(policy: .epsilonGreedy(epsilon: 0.2), minimumShare: 0.0001, burnInDays: 0)
    let tied = try allocation.weights(after: Self.counts([(10, 100), (10, 100), (5, 100)]), day: 1).weights
    let raw: [Double] = [0.4 + 0.2 / 3, 0.4 + 0.2 / 3, 0.2 / 3]
    let expected = raw.map { 0.0001 + (1 - 0.0003) * $0 }
    for (got, want) in zip(tied, expected) {
      let gap: Double = abs(got - want)
      #expect(gap < 1e-15)
    }
  }

  @Test(arguments: [
    AdaptiveAllocation(minimumShare: 0.5), AdaptiveAllocation(burnInDays: -1),
    AdaptiveAllocation(policy: .topTwoThompson(leaderProbability: 1)), AdaptiveAllocation(policy: .epsilonGreedy(epsilon: 1.5)),
    AdaptiveAllocation(minimumShare: -0.1), AdaptiveAllocation(minimumShare: 0),
  ])
  func refusesParametersOutOfRange(_ allocation: AdaptiveAllocation) throws {
    #expect(throws: StatsError.self) { try allocation.weights(after: Self.counts([(1, 10), (2, 10)]), day: 2) }
  }

  @Test func takesTwoToTwentyArms() throws {
    #expect(throws: StatsError.self) { try AdaptiveAllocation().validate(arms: 1) }
    #expect(throws: StatsError.self) { try AdaptiveAllocation(minimumShare: 0.001).validate(arms: 21) }
    try AdaptiveAllocation(minimumShare: 0.001).validate(arms: 20)
  }
}

@Suite struct BanditSimulationTests {
  /// Fixed panels agree with adaptive quadrature (1e-11) on posteriors of very different widths.
  @Test func probabilityOfBeingBestMatchesAdaptiveQuadrature() {
    var rng = Xoshiro256StarStar(seed: 11)
    for _ in 0..<60 {
      let k = 3 + Int(rng.nextBounded(4))
      let posteriors = (0..<k).map { _ in
        Normal(mean: 0.1 + 0.02 * rng.nextUnitDouble(), standardDeviation: 0.001 * exp(4 * rng.nextUnitDouble()))
      }
      let fast = AdaptiveAllocation.probabilityBest(posteriors)
      let reference = NormalPosteriorModel.probabilityToBeBest(posteriors)
      for (a, b) in zip(fast, reference) {
        let gap: Double = abs(a - b)
        #expect(gap < 1e-9, "\(posteriors)")
      }
    }
  }

  /// Equal arms: every arm's average Thompson weight is 1/K within 3 standard errors, and the
  /// naive z-test's false-positive rate on the bandit's counts is tallied (it is not α).
  @Test(.longStage) func thompsonStaysBalancedWithEqualArms() throws {
    let design = BanditSimulation.Design(rates: [0.1, 0.1, 0.1], usersPerDay: 600, days: 14)
    let counts = try BanditSimulation.tally(design, replicates: 0..<1000, seed: 3)
    for arm in 0..<3 {
      let weight = counts.averageWeight[arm]
      let mean = try #require(weight.mean)
      let se = try #require(weight.standardError)
      #expect(abs(mean - 1 / 3.0) < 3 * se, "arm \(arm): \(mean) ± \(se)")
      #expect(se > 0)
    }
    #expect(counts.naiveSignificant[1] + counts.naiveSignificant[2] > 0)
    #expect(counts.banditWrongShips == 0 && counts.banditRegret.mean == 0)
  }

  /// One arm clearly better: its mean share rises day after day towards 1 − the minimum share.
  @Test(.longStage, arguments: [AdaptiveAllocation.Policy.thompson, .topTwoThompson(leaderProbability: 0.5), .epsilonGreedy(epsilon: 0.1)])
  func trafficMovesToTheBetterArm(_ policy: AdaptiveAllocation.Policy) throws {
    let design = BanditSimulation.Design(
      rates: [0.10, 0.15, 0.10], usersPerDay: 1500, days: 14, allocation: AdaptiveAllocation(policy: policy))
    let counts = try BanditSimulation.tally(design, replicates: 0..<300, seed: 5)
    let shares = counts.weightSums.map { $0[1] / 300 }
    #expect(abs(shares[0] - 1 / 3.0) < 1e-12)
    let ceiling = 1 - 2 * design.allocation.minimumShare
    let limit: Double =
      switch policy {
      case .thompson: ceiling
      case .topTwoThompson(let beta): design.allocation.minimumShare + (1 - 3 * design.allocation.minimumShare) * beta
      case .epsilonGreedy(let epsilon): design.allocation.minimumShare + (1 - 3 * design.allocation.minimumShare) * (1 - 2 * epsilon / 3)
      }
    #expect(shares.last.map { $0 > limit - 0.02 && $0 <= limit + 1e-12 } == true, "\(shares)")
    #expect(counts.banditWrongShips == 0)
  }

  /// The standard error plugs the estimated rates into each day's second moment
  /// (`p̂ᵢ/wᵢ + p̂₀/w₀ − Δ̂²`), computed by hand here: 25 and 35 weighted successes over 200 users,
  /// Σ_d N_d·(…) = 100·(0.25 + 0.35 − 0.0025) + 100·(0.625 + 0.21875 − 0.0025) = 143.875.
  @Test func inversePropensityStandardErrorPlugsInTheRates() {
    let (estimate, se) = InversePropensity.difference([
      .init(users: 100, successes: 5, controlSuccesses: 10, share: 0.5, controlShare: 0.5),
      .init(users: 100, successes: 3, controlSuccesses: 12, share: 0.2, controlShare: 0.8),
    ])
    #expect(abs(estimate - (-0.05)) < 1e-15)
    #expect(abs(se - 143.875.squareRoot() / 200) < 1e-15)
  }

  /// The inverse-propensity difference is unbiased for the true one within 3 standard errors;
  /// the naive one is not (its bias is over 5 standard errors here).
  @Test func inversePropensityIsUnbiasedWhileNaiveIsNot() throws {
    let design = BanditSimulation.Design(rates: [0.10, 0.11], usersPerDay: 400, days: 14)
    let counts = try BanditSimulation.tally(design, replicates: 0..<2000, seed: 7)
    let truth = 0.01
    let weighted = counts.weightedDifference[1]
    let naive = counts.naiveDifference[1]
    #expect(weighted.count == 2000)
    #expect(abs(try #require(weighted.mean) - truth) < 3 * (try #require(weighted.standardError)))
    #expect(abs(try #require(naive.mean) - truth) > 5 * (try #require(naive.standardError)))
    // Its normal interval covers the truth at the nominal rate (within 3 binomial SE of 95 %).
    let coverage = Double(counts.weightedCovered[1]) / 2000
    #expect(abs(coverage - 0.95) < 3 * (0.95 * 0.05 / 2000).squareRoot(), "coverage \(coverage)")
  }

  /// With three arms, 900 users a day and a 1 % minimum share, the inverse-propensity interval
  /// is approximate: it covers 92–95 % at a nominal 95 % (the documented shortfall, measured
  /// with seed 21 on 3,000 replicates: 94.0 % and 92.9 % for the unequal arms), never above
  /// nominal by more than 3 SE.
  @Test(.longStage, arguments: [[0.1, 0.1, 0.1], [0.05, 0.06, 0.045]])
  func inversePropensityIntervalsAreApproximate(_ rates: [Double]) throws {
    let design = BanditSimulation.Design(rates: rates, usersPerDay: 900, days: 10)
    let counts = try BanditSimulation.tally(design, replicates: 0..<1500, seed: 13)
    for arm in 1..<3 {
      let coverage = Double(counts.weightedCovered[arm]) / 1500
      let se = (0.95 * 0.05 / 1500).squareRoot()
      #expect(coverage > 0.92 - 3 * se && coverage < 0.95 + 3 * se, "arm \(arm): coverage \(coverage)")
    }
  }

  /// The fixed test's regret is the control's share of users times the gap; the bandit's is smaller.
  @Test func regretOfTheFixedSplitIsHalfTheUsersTimesTheGap() throws {
    let design = BanditSimulation.Design(rates: [0.10, 0.15], usersPerDay: 1000, days: 14, horizonDays: 30)
    let counts = try BanditSimulation.tally(design, replicates: 0..<500, seed: 9)
    let fixed = try #require(counts.fixedRegret.mean)
    let se = try #require(counts.fixedRegret.standardError)
    #expect(abs(fixed - 7000 * 0.05) < 4 * se + 1e-9)
    #expect(try #require(counts.banditRegret.mean) < fixed / 5)
    #expect(counts.fixedWrongShips == 0 && counts.fixedTotalRegret == counts.fixedRegret)
  }

  /// Welford moments merged by Chan's formula equal the moments of all the values, and keep
  /// their precision around a large mean (raw sums of squares would lose it).
  @Test func momentsMergeAndKeepPrecision() {
    var all = BanditSimulation.Moments()
    var left = BanditSimulation.Moments()
    var right = BanditSimulation.Moments()
    for i in 0..<100 {
      let x = 1e11 + Double(i % 7) * 1e3
      all.add(x)
      if i < 40 { left.add(x) } else { right.add(x) }
    }
    let merged = left + right
    #expect(merged.count == 100)
    let meanGap: Double = abs((merged.mean ?? 0) - (all.mean ?? 1))
    #expect(meanGap < 1e-3)
    // Sample SD of i % 7 over 0..<100, times 1e3, divided by √100.
    let values = (0..<100).map { Double($0 % 7) }
    let m = values.reduce(0, +) / 100
    let sd = (values.map { ($0 - m) * ($0 - m) }.reduce(0, +) / 99).squareRoot() * 1e3
    let seGap: Double = abs((merged.standardError ?? 0) - sd / 10)
    #expect(seGap < 1e-6 * sd)
  }

  /// Disjoint replicate ranges add up to the whole: integer tallies exactly.
  @Test func rangesAddUp() throws {
    let design = BanditSimulation.Design(rates: [0.10, 0.12, 0.11], usersPerDay: 300, days: 5)
    let whole = try BanditSimulation.tally(design, replicates: 0..<60, seed: 1)
    let parts =
      try BanditSimulation.tally(design, replicates: 0..<25, seed: 1) + BanditSimulation.tally(design, replicates: 25..<60, seed: 1)
    #expect(whole.replicates == parts.replicates && whole.naiveSignificant == parts.naiveSignificant)
    #expect(whole.banditDecisionDays == parts.banditDecisionDays && whole.fixedWrongShips == parts.fixedWrongShips)
    let gap: Double = abs((whole.banditRegret.mean ?? 0) - (parts.banditRegret.mean ?? 1))
    #expect(gap < 1e-9)
  }

  @Test func refusesAnInvalidDesign() {
    for design in [
      BanditSimulation.Design(rates: [0.1, 1.5], usersPerDay: 10, days: 3),
      BanditSimulation.Design(rates: [0.1, 0.2], usersPerDay: 0, days: 3),
      BanditSimulation.Design(rates: [0.1, 0.2], usersPerDay: 10, days: 101),
      BanditSimulation.Design(rates: [0.1], usersPerDay: 10, days: 3),
      BanditSimulation.Design(rates: [0.1, 0.2], usersPerDay: 10, days: 3, allocation: AdaptiveAllocation(burnInDays: 3)),
    ] {
      #expect(throws: StatsError.self) { try BanditSimulation.tally(design, replicates: 0..<1, seed: 1) }
    }
  }
}
