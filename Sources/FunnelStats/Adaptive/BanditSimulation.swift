/// A bandit against a fixed A/B test, over replicate experiments drawn from known rates.
///
/// Each replicate runs the same days twice from the true rates `p₀ … p_{K−1}` (arm 0 the control):
///
/// - **Bandit**: each day's `N` users are split among the arms by a multinomial draw with the
///   day's ``AdaptiveAllocation`` weights `w_{d,i}` (set from the counts before the day), and each
///   arm's conversions are `Binomial(n_{d,i}, pᵢ)`. At the end it ships the arm most likely to be
///   best. It is *decided* on the first day whose probability of the leading arm being best
///   reaches the threshold (0.95).
/// - **Fixed test**: an equal split for the same days, then each arm against the control by the
///   pooled two-proportion z-test at `α/(K − 1)` (Bonferroni); it ships the significantly better
///   arm with the highest observed rate, else keeps the control. It is decided on its last day.
///
/// After the test, every user of ``Design/horizonDays`` more days sees the shipped arm.
/// **Regret** is the expected conversions lost against showing the best arm to everyone:
/// `Σ n_{d,i}·(p* − pᵢ)` during the test plus `N·horizon·(p* − p_shipped)` after it, computed
/// from the true rates given the allocation drawn (no outcome noise on top). A ship is
/// **wrong** when the shipped arm's true rate is below the best.
///
/// Because the bandit's weights follow its data, the naive rate `Σx / Σn` of an arm is biased
/// (an arm that was unlucky early is shown less and has less chance to recover). The
/// **inverse-propensity** (Horvitz–Thompson) rate `p̂ᵢ = (1/N_total)·Σ_d x_{d,i} / w_{d,i}` is
/// unbiased for `pᵢ`, because `E[x_{d,i} | past] = N·w_{d,i}·pᵢ` and every weight is positive
/// (the minimum share). Both estimates of each arm's difference with the control are tallied
/// with the naive z-test's significance, which is no longer a valid test.
///
/// Replicate `r` draws from `Xoshiro256StarStar(seed:stream: r)`, so tallies of disjoint
/// replicate ranges add up (``Counts/+``) to the same numbers on any thread count or shard.
public enum BanditSimulation {
  /// The probability of being best at which a bandit counts as decided, unless a design says otherwise.
  public static let defaultDecisionThreshold = 0.95

  /// What is simulated.
  public struct Design: Sendable, Hashable {
    /// True rate of each arm, the control first; each in [0, 1].
    public var rates: [Double]
    /// Users a day over all arms, ≥ 1.
    public var usersPerDay: Int
    /// Days the test runs (1...100).
    public var days: Int
    /// Days after the test in which every user sees the shipped arm (0 or more).
    public var horizonDays: Int
    /// The bandit's rule.
    public var allocation: AdaptiveAllocation
    /// The fixed test's two-sided level over all comparisons (split by Bonferroni).
    public var alpha: Double
    /// The probability of being best at which the bandit counts as decided. Default 0.95.
    public var decisionThreshold: Double

    /// A design; defaults: no horizon after the test, Thompson sampling, α 0.05, threshold 0.95.
    public init(
      rates: [Double], usersPerDay: Int, days: Int, horizonDays: Int = 0, allocation: AdaptiveAllocation = AdaptiveAllocation(),
      alpha: Double = 0.05, decisionThreshold: Double = BanditSimulation.defaultDecisionThreshold
    ) {
      self.rates = rates
      self.usersPerDay = usersPerDay
      self.days = days
      self.horizonDays = horizonDays
      self.allocation = allocation
      self.alpha = alpha
      self.decisionThreshold = decisionThreshold
    }

    /// Checks every number.
    /// - Throws: ``StatsError`` naming the field out of range.
    public func validate() throws(StatsError) {
      try allocation.validate(arms: rates.count)
      guard rates.allSatisfy({ $0 >= 0 && $0 <= 1 }) else {
        throw StatsError(.invalidParameter, field: [.name(.rates)], message: "every rate must be in [0, 1]")
      }
      guard usersPerDay >= 1, usersPerDay <= StatsLimits.maxCount / 1000 else {
        throw StatsError(.invalidParameter, field: [.name(.usersPerDay)], message: "must be from 1 to \(StatsLimits.maxCount / 1000)")
      }
      guard (1...GroupSequentialDesign.maxLooks).contains(days), (0...100_000).contains(horizonDays) else {
        throw StatsError(.invalidParameter, field: [.name(.days)], message: "days must be 1...100 and the horizon 0...100000 days")
      }
      guard allocation.burnInDays < days else {
        throw StatsError(
          .invalidParameter, field: [.name(.burnInDays)],
          message: "the burn-in must be shorter than the test (burn-in \(allocation.burnInDays), test \(days), in days)",
          hint: "fewer burn-in days or more days")
      }
      guard alpha > 0, alpha < 1, decisionThreshold > 0.5, decisionThreshold < 1 else {
        throw StatsError(.invalidParameter, field: [.name(.alpha)], message: "α must be in (0, 1) and the decision threshold in (0.5, 1)")
      }
    }

    /// The highest true rate.
    public var bestRate: Double { rates.max() ?? 0 }
  }

  /// Integer and floating tallies over replicates, summed in replicate order within a range.
  public struct Counts: Sendable, Hashable {
    /// Replicates tallied.
    public var replicates = 0
    /// Σ over replicates of the bandit's weight of each arm on each day: `[day][arm]`.
    public var weightSums: [[Double]]
    /// Σ of the squared weights, for the standard errors.
    public var weightSquares: [[Double]]
    /// Per arm: the moments of each replicate's average weight over the days after the burn-in.
    public var averageWeight: [Moments]
    /// Σ and Σ² of the bandit's regret during the test, then including the horizon.
    public var banditRegret = Moments(), banditTotalRegret = Moments()
    /// Σ and Σ² of the fixed test's regret during the test, then including the horizon.
    public var fixedRegret = Moments(), fixedTotalRegret = Moments()
    /// Replicates in which the bandit, then the fixed test, shipped an arm below the best.
    public var banditWrongShips = 0, fixedWrongShips = 0
    /// Replicates in which the bandit reached the decision threshold, and Σ of the day it did.
    public var banditDecided = 0, banditDecisionDays = 0
    /// Per arm (0, the control, unused): the naive and inverse-propensity differences with the control.
    public var naiveDifference: [Moments], weightedDifference: [Moments]
    /// Per arm: replicates whose inverse-propensity interval at `1 − α` covered the true difference.
    public var weightedCovered: [Int]
    /// Per arm: replicates where the naive z-test on the bandit's counts was significant at α (two-sided).
    public var naiveSignificant: [Int]
    /// Per arm: replicates where the fixed test found the arm significantly different from the control.
    public var fixedSignificant: [Int]

    /// Empty tallies for `days` days and `arms` arms.
    public init(days: Int, arms: Int) {
      weightSums = Array(repeating: Array(repeating: 0, count: arms), count: days)
      weightSquares = weightSums
      naiveDifference = Array(repeating: Moments(), count: arms)
      weightedDifference = naiveDifference
      averageWeight = naiveDifference
      naiveSignificant = Array(repeating: 0, count: arms)
      fixedSignificant = naiveSignificant
      weightedCovered = naiveSignificant
    }

    /// The tallies of two disjoint replicate ranges (add them in range order for byte-identical sums).
    public static func + (a: Counts, b: Counts) -> Counts {
      var c = a
      c.replicates += b.replicates
      c.weightSums = zip(a.weightSums, b.weightSums).map { zip($0, $1).map(+) }
      c.weightSquares = zip(a.weightSquares, b.weightSquares).map { zip($0, $1).map(+) }
      c.averageWeight = zip(a.averageWeight, b.averageWeight).map(+)
      c.banditRegret = a.banditRegret + b.banditRegret
      c.banditTotalRegret = a.banditTotalRegret + b.banditTotalRegret
      c.fixedRegret = a.fixedRegret + b.fixedRegret
      c.fixedTotalRegret = a.fixedTotalRegret + b.fixedTotalRegret
      c.banditWrongShips += b.banditWrongShips
      c.fixedWrongShips += b.fixedWrongShips
      c.banditDecided += b.banditDecided
      c.banditDecisionDays += b.banditDecisionDays
      c.naiveDifference = zip(a.naiveDifference, b.naiveDifference).map(+)
      c.weightedDifference = zip(a.weightedDifference, b.weightedDifference).map(+)
      c.naiveSignificant = zip(a.naiveSignificant, b.naiveSignificant).map(+)
      c.fixedSignificant = zip(a.fixedSignificant, b.fixedSignificant).map(+)
      c.weightedCovered = zip(a.weightedCovered, b.weightedCovered).map(+)
      return c
    }
  }

  /// Count, mean and centred sum of squares of a quantity over replicates (Welford's update,
  /// merged by Chan's formula, so the standard error keeps its precision when the mean is large).
  public struct Moments: Sendable, Hashable {
    /// Values added.
    public var count = 0
    /// The running mean (0 without values).
    public var runningMean = 0.0
    /// Σ (x − mean)².
    public var centredSquares = 0.0

    /// No value yet.
    public init() {}

    mutating func add(_ x: Double) {
      count += 1
      let delta = x - runningMean
      runningMean += delta / Double(count)
      centredSquares += delta * (x - runningMean)
    }

    /// The mean, `nil` without values.
    public var mean: Double? { count > 0 ? runningMean : nil }
    /// The standard error of the mean (sample standard deviation / √count), `nil` below 2 values.
    public var standardError: Double? {
      guard count > 1 else { return nil }
      return (max(0, centredSquares) / Double(count - 1) / Double(count)).squareRoot()
    }

    /// The moments of two disjoint sets of values.
    public static func + (a: Moments, b: Moments) -> Moments {
      guard a.count > 0 else { return b }
      guard b.count > 0 else { return a }
      var c = Moments()
      c.count = a.count + b.count
      let delta = b.runningMean - a.runningMean
      c.runningMean = a.runningMean + delta * Double(b.count) / Double(c.count)
      c.centredSquares = a.centredSquares + b.centredSquares + delta * delta * Double(a.count) * Double(b.count) / Double(c.count)
      return c
    }
  }

  /// Tallies replicates `replicates` of `design`, replicate `r` drawn from stream `r` of `seed`.
  /// - Throws: ``StatsError`` for an invalid design.
  /// - Complexity: O(replicates × days × (arms + one probability-of-best integration)).
  public static func tally(_ design: Design, replicates: Range<Int>, seed: UInt64) throws(StatsError) -> Counts {
    try design.validate()
    var counts = Counts(days: design.days, arms: design.rates.count)
    for r in replicates {
      var rng = Xoshiro256StarStar(seed: seed, stream: UInt64(max(r, 0)))
      try bandit(design, rng: &rng, into: &counts)
      fixed(design, rng: &rng, into: &counts)
      counts.replicates += 1
    }
    return counts
  }

  /// One bandit run: weights by day, regret, decision day, the shipped arm and both estimates.
  static func bandit(_ design: Design, rng: inout Xoshiro256StarStar, into counts: inout Counts) throws(StatsError) {
    let k = design.rates.count
    let best = design.bestRate
    var users = Array(repeating: 0, count: k)
    var conversions = Array(repeating: 0, count: k)
    var days: [(shares: [Double], successes: [Int])] = []
    var regret = 0.0
    var adaptiveWeights = Array(repeating: 0.0, count: k)
    var decidedOn: Int?
    var probabilityBest: [Double] = []
    for day in 0...design.days {
      let observed = try zip(conversions, users).map { x, n throws(StatsError) in try ProportionCount(successes: x, trials: n) }
      let (weights, probabilities) = try design.allocation.weights(after: observed, day: day)
      probabilityBest = probabilities
      if decidedOn == nil, day > 0, (probabilities.max() ?? 0) >= design.decisionThreshold { decidedOn = day }
      guard day < design.days else { break }
      let split = multinomial(design.usersPerDay, weights, rng: &rng)
      days.append((weights, Array(repeating: 0, count: k)))
      for i in 0..<k {
        counts.weightSums[day][i] += weights[i]
        counts.weightSquares[day][i] += weights[i] * weights[i]
        if day >= design.allocation.burnInDays { adaptiveWeights[i] += weights[i] }
        let x = Int(BinomialSampler.sample(trials: UInt64(split[i]), probability: design.rates[i], using: &rng))
        users[i] += split[i]
        conversions[i] += x
        days[day].successes[i] = x
        regret += Double(split[i]) * (best - design.rates[i])
      }
    }
    let shipped = leader(probabilityBest)
    let horizon = Double(design.usersPerDay) * Double(design.horizonDays) * (best - design.rates[shipped])
    counts.banditRegret.add(regret)
    let adaptiveDays = design.days - min(design.allocation.burnInDays, design.days)
    if adaptiveDays > 0 {
      for i in 0..<k { counts.averageWeight[i].add(adaptiveWeights[i] / Double(adaptiveDays)) }
    }
    counts.banditTotalRegret.add(regret + horizon)
    if design.rates[shipped] < best { counts.banditWrongShips += 1 }
    if let decidedOn {
      counts.banditDecided += 1
      counts.banditDecisionDays += decidedOn
    }
    let z = Normal.standardQuantile(p: 1 - design.alpha / 2, q: design.alpha / 2)
    for i in 1..<k {
      let (estimate, se) = InversePropensity.difference(
        days.map {
          InversePropensity.Day(
            users: design.usersPerDay, successes: $0.successes[i], controlSuccesses: $0.successes[0], share: $0.shares[i],
            controlShare: $0.shares[0])
        })
      counts.weightedDifference[i].add(estimate)
      if abs(estimate - (design.rates[i] - design.rates[0])) <= z * se { counts.weightedCovered[i] += 1 }
      guard users[i] > 0, users[0] > 0 else { continue }
      counts.naiveDifference[i].add(Double(conversions[i]) / Double(users[i]) - Double(conversions[0]) / Double(users[0]))
      if pooledPValue(conversions[i], users[i], conversions[0], users[0]) < design.alpha { counts.naiveSignificant[i] += 1 }
    }
  }

  /// One fixed test: an equal split of every day's users, Bonferroni z-tests, ship the best significant winner.
  static func fixed(_ design: Design, rng: inout Xoshiro256StarStar, into counts: inout Counts) {
    let k = design.rates.count
    let best = design.bestRate
    let equal = Array(repeating: 1 / Double(k), count: k)
    var users = Array(repeating: 0, count: k)
    var regret = 0.0
    for _ in 0..<design.days {
      for (i, n) in multinomial(design.usersPerDay, equal, rng: &rng).enumerated() {
        users[i] += n
        regret += Double(n) * (best - design.rates[i])
      }
    }
    let conversions = users.indices.map {
      Int(BinomialSampler.sample(trials: UInt64(users[$0]), probability: design.rates[$0], using: &rng))
    }
    let level = design.alpha / Double(k - 1)
    var shipped = 0
    var shippedRate = -1.0
    for i in 1..<k where users[i] > 0 && users[0] > 0 {
      guard pooledPValue(conversions[i], users[i], conversions[0], users[0]) < level else { continue }
      counts.fixedSignificant[i] += 1
      let rate = Double(conversions[i]) / Double(users[i])
      if rate > Double(conversions[0]) / Double(users[0]), rate > shippedRate {
        shipped = i
        shippedRate = rate
      }
    }
    let horizon = Double(design.usersPerDay) * Double(design.horizonDays) * (best - design.rates[shipped])
    counts.fixedRegret.add(regret)
    counts.fixedTotalRegret.add(regret + horizon)
    if design.rates[shipped] < best { counts.fixedWrongShips += 1 }
  }

  /// The arm with the highest probability of being best (the first on a tie).
  static func leader(_ probabilities: [Double]) -> Int {
    probabilities.indices.max { probabilities[$0] < probabilities[$1] || (probabilities[$0] == probabilities[$1] && $0 > $1) } ?? 0
  }

  /// `n` users split by `weights` (summing to 1): sequential binomial draws, the last arm taking the rest.
  static func multinomial(_ n: Int, _ weights: [Double], rng: inout Xoshiro256StarStar) -> [Int] {
    var left = n
    var mass = 1.0
    var split: [Int] = []
    for (i, w) in weights.enumerated() {
      if i == weights.count - 1 {
        split.append(left)
        break
      }
      let share = mass > 0 ? min(1, max(0, w / mass)) : 0
      let drawn = Int(BinomialSampler.sample(trials: UInt64(left), probability: share, using: &rng))
      split.append(drawn)
      left -= drawn
      mass -= w
    }
    return split
  }

  /// The pooled two-proportion z-test's two-sided p-value (``TwoProportionZTest``).
  static func pooledPValue(_ x1: Int, _ n1: Int, _ x0: Int, _ n0: Int) -> Double {
    guard let treatment = try? ProportionCount(successes: x1, trials: n1), let control = try? ProportionCount(successes: x0, trials: n0),
      let result = try? TwoProportionZTest.test(treatment: treatment, control: control)
    else { return 1 }
    return result.pValue
  }
}
