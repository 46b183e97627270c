package import FunnelStats

/// A bandit run on the flow (``AdaptiveRun``) read against the exact truth: what it cost, what it
/// would ship, and its naive and inverse-propensity estimates beside the exact differences.
package struct BanditTimeline: Sendable {
  /// One arm at the end of the run.
  package struct Arm: Sendable, Hashable {
    /// The variant's id.
    package var id: String
    /// Users and successes of the primary metric over every day.
    package var users: Int, successes: Int
    /// The exact rate (``ExactEngine``); `nil` when not solved.
    package var exactRate: Double?
    /// The probability of being best after the last day.
    package var probabilityBest: Double
    /// `successes / users`, pooled over the days (biased under adaptive allocation).
    package var naiveRate: Double?
    /// The inverse-propensity (Horvitz–Thompson) rate `(1/N)·Σ_d x_d / w_d`.
    package var weightedRate: Double
  }

  /// A non-control arm's difference with the control.
  package struct Difference: Sendable, Hashable {
    /// The arm's id.
    package var id: String
    /// The naive difference of pooled rates.
    package var naive: Double?
    /// The inverse-propensity difference.
    package var weighted: Double
    /// Its standard error (see ``BanditTimeline/init(_:alpha:)``).
    package var weightedStandardError: Double
    /// Its normal interval at the spec's level.
    package var weightedInterval: ConfidenceInterval
    /// The exact difference; `nil` when not solved.
    package var exact: Double?
    /// The share of ``BanditTimeline/coverageReplicates`` replicates of this run's design (its
    /// allocation, users a day and days) at the exact rates whose interval covered the exact
    /// difference: what the approximate interval's coverage is here. `nil` when not solved.
    package var measuredCoverage: Double?
  }

  /// Replicates of the run's design that measure each interval's coverage.
  package static let coverageReplicates = 1_000

  /// The metric optimised.
  package var metric: FunnelMetric
  /// Per arm, the control first.
  package var arms: [Arm]
  /// Per non-control arm.
  package var differences: [Difference]
  /// The arm the bandit would ship: the most likely to be best after the last day.
  package var shippedArm: String
  /// Whether the shipped arm's probability of being best reached ``BanditSimulation/defaultDecisionThreshold``.
  package var decided: Bool
  /// The arm with the best exact rate; `nil` when not solved.
  package var bestArm: String?
  /// Expected successes lost against showing the best arm to every user, from the exact rates
  /// and the users each arm got: `Σ n_i·(p* − p_i)`; `nil` when not solved.
  package var regret: Double?
  /// The same for an equal split of the same users: `N·(p* − mean p)`.
  package var equalSplitRegret: Double?
  /// The interval level of ``Difference/weighted``.
  package var level: Double
  /// The practical-equivalence margin of ``metric``, a share of the control's value
  /// (``DecisionRule/design(_:)``).
  package var relativeMargin = DecisionRule.defaultRelativeMargin

  /// Reads `adaptive` with intervals at `1 − alpha`; an effect within `relativeMargin` of the
  /// control's value is negligible.
  ///
  /// The weighted rates and differences are ``InversePropensity``'s, the interval normal; its
  /// coverage is measured on ``coverageReplicates`` replicates of the design at the exact rates
  /// (``BanditSimulation/tally(_:replicates:seed:)``, seeded by the run's seed), since an
  /// adaptive design can leave it short of `1 − alpha`. The replicates run on `threads` workers
  /// in fixed blocks (``BanditPlanner``'s), so the coverage is the same on any thread count;
  /// `progress` gets the replicates done and their total.
  package init(
    _ adaptive: AdaptiveRun, alpha: Double, relativeMargin: Double = DecisionRule.defaultRelativeMargin, threads: Int? = nil,
    progress: (@Sendable (Int, Int) -> Void)? = nil
  ) {
    let runs = adaptive.run.variants
    let k = runs.count
    let metric = adaptive.metric
    var daily: [[ProportionCount]] = []
    var previous: [ProportionCount]?
    for aggregates in adaptive.cumulative {
      guard case .proportions(let counts)? = MetricAnalysis.data(metric, aggregates) else { break }
      daily.append(
        counts.indices.compactMap { i in
          try? ProportionCount(
            successes: counts[i].successes - (previous?[i].successes ?? 0), trials: counts[i].trials - (previous?[i].trials ?? 0))
        })
      previous = counts
    }
    let finalBest = adaptive.probabilityBest.last ?? Array(repeating: 1 / Double(max(k, 1)), count: k)
    let exact = runs.map { $0.exact?.value(of: metric) }
    var arms: [Arm] = []
    let days = daily.indices.map { _ in adaptive.usersPerDay }
    for i in 0..<k {
      let users = daily.reduce(0) { $0 + $1[i].trials }
      let successes = daily.reduce(0) { $0 + $1[i].successes }
      let weighted = InversePropensity.rate(successes: daily.map { $0[i].successes }, shares: adaptive.shares.map { $0[i] }, users: days)
      arms.append(
        Arm(
          id: runs[i].variant.id, users: users, successes: successes, exactRate: exact[i],
          probabilityBest: i < finalBest.count ? finalBest[i] : 0, naiveRate: users > 0 ? Double(successes) / Double(users) : nil,
          weightedRate: weighted))
    }
    let z = Normal.standardQuantile(p: 1 - alpha / 2, q: alpha / 2)
    differences = (1..<max(k, 1)).map { i in
      let (estimate, se) = InversePropensity.difference(
        daily.indices.map { d in
          InversePropensity.Day(
            users: adaptive.usersPerDay, successes: daily[d][i].successes, controlSuccesses: daily[d][0].successes,
            share: adaptive.shares[d][i], controlShare: adaptive.shares[d][0])
        })
      let naive = arms[i].naiveRate.flatMap { a in arms[0].naiveRate.map { a - $0 } }
      let truth = exact[i].flatMap { a in exact[0].map { a - $0 } }
      return Difference(
        id: arms[i].id, naive: naive, weighted: estimate, weightedStandardError: se,
        weightedInterval: ConfidenceInterval(
          lower: estimate - z * se, upper: estimate + z * se, confidenceLevel: 1 - alpha, method: "inverse-propensity, normal"),
        exact: truth)
    }
    let coverage = Self.coverage(
      rates: exact.compactMap { $0 }, arms: k, adaptive: adaptive, days: daily.count, alpha: alpha, threads: threads, progress: progress)
    for i in differences.indices where i + 1 < coverage.count { differences[i].measuredCoverage = coverage[i + 1] }
    let leader = finalBest.indices.max { finalBest[$0] < finalBest[$1] || (finalBest[$0] == finalBest[$1] && $0 > $1) } ?? 0
    let rates = exact.compactMap { $0 }
    self.metric = metric
    self.arms = arms
    self.relativeMargin = relativeMargin
    shippedArm = leader < arms.count ? arms[leader].id : ""
    decided = leader < finalBest.count && finalBest[leader] >= BanditSimulation.defaultDecisionThreshold
    level = 1 - alpha
    guard rates.count == k, let top = rates.max() else { return }
    bestArm = arms[rates.firstIndex(of: top) ?? 0].id
    regret = arms.indices.reduce(0.0) { $0 + Double(arms[$1].users) * (top - rates[$1]) }
    equalSplitRegret = Double(arms.reduce(0) { $0 + $1.users }) * (top - rates.reduce(0, +) / Double(k))
  }

  /// Per arm (the control's unused), the share of replicates of the design whose interval
  /// covered the exact difference; empty when the rates are not all solved.
  static func coverage(
    rates: [Double], arms k: Int, adaptive: AdaptiveRun, days: Int, alpha: Double, threads: Int?,
    progress: (@Sendable (Int, Int) -> Void)?
  ) -> [Double] {
    guard rates.count == k, k >= 2, days >= 1 else { return [] }
    let design = BanditSimulation.Design(
      rates: rates, usersPerDay: adaptive.usersPerDay, days: days, allocation: adaptive.allocation, alpha: alpha)
    guard (try? design.validate()) != nil else { return [] }
    // Coverage counts are integers, so the blocks' sum is the one-pass tally's on any threads.
    // Blocks of 20 replicates, so that progress moves every few percent.
    let block = 20
    var replicates: (@Sendable (Int, Int) -> Void)?
    if let progress {
      let total = coverageReplicates
      replicates = { blocks, _ in progress(min(blocks * block, total), total) }
    }
    let counts = BanditPlanner.tally(
      design, replicates: coverageReplicates, seed: adaptive.run.seed, threads: threads, block: block, progress: replicates)
    return counts.weightedCovered.map { Double($0) / Double(coverageReplicates) }
  }
}
