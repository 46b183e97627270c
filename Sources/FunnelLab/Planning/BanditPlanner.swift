import Dispatch
package import FunnelStats
import Synchronization

/// Options of a bandit-or-A/B comparison (defaults in parentheses).
package struct BanditOptions: Sendable {
  /// Eligible users a day over all arms.
  package var usersPerDay: Int
  /// Days the test runs; `nil`: the days the fixed test needs to detect the best variant with power
  /// 0.8 at α/(K − 1) (14 when no variant differs), at most 100.
  package var days: Int?
  /// Days after the test in which everyone sees the shipped arm (28).
  package var horizonDays = 28
  /// The bandit's rule (Thompson sampling, 1 % minimum share, one burn-in day).
  package var allocation = AdaptiveAllocation()
  /// Replicates (2,000).
  package var replicates = 2_000
  /// The fixed test's level over all comparisons; `nil`: the spec's `metrics.alpha`.
  package var alpha: Double?
  /// Only these variants beside the control; `nil`: every variant.
  package var variants: [String]?
  /// Seed of the replicates; `nil`: the spec's.
  package var seed: UInt64?
  /// A holdout share kept on the control after shipping, in (0, 0.5]; `nil`: none planned.
  package var holdoutShare: Double?
  /// Worker threads; `nil`: every core. The result does not depend on it.
  package var threads: Int?

  /// Options for `usersPerDay` users a day and the defaults above.
  package init(usersPerDay: Int) { self.usersPerDay = usersPerDay }
}

/// What a holdout of the shipped arm can detect after the horizon.
package struct HoldoutPlan: Sendable, Hashable {
  /// The share of users kept on the control.
  package var share: Double
  /// The arm shipped: the one with the best exact rate.
  package var shippedArm: String
  /// Users in the holdout and in the shipped arm after ``BanditComparison/horizonDays`` days.
  package var holdoutUsers: Int, shippedUsers: Int
  /// Power of the pooled z-test to detect the shipped arm's exact effect at those sizes.
  package var power: Double
  /// The smallest effect (absolute rate difference) detected with power 0.8 at those sizes.
  package var minimumDetectableEffect: Double?
}

/// A bandit against a fixed A/B test on one spec, over replicates drawn from the exact rates.
package struct BanditComparison: Sendable {
  /// The experiment's name.
  package var experiment: String
  /// The primary metric, a rate.
  package var metric: FunnelMetric
  /// The arms' ids, the control first.
  package var arms: [String]
  /// The simulated design: exact rates, days, horizon, rule, α.
  package var design: BanditSimulation.Design
  /// The seed of the replicates.
  package var seed: UInt64
  /// The tallies over every replicate.
  package var counts: BanditSimulation.Counts
  /// The holdout share asked for, if any.
  package var holdoutShare: Double?
  /// The holdout plan, when a share was given and a variant beats the control.
  package var holdout: HoldoutPlan?

  /// The exact difference of each arm with the control (0 for the control).
  package var trueDifferences: [Double] { design.rates.map { $0 - (design.rates.first ?? 0) } }
  /// The arm with the best exact rate (the first on a tie).
  package var bestArm: String {
    arms[design.rates.indices.max { design.rates[$0] < design.rates[$1] || (design.rates[$0] == design.rates[$1] && $0 > $1) } ?? 0]
  }
}

/// Plans the bandit-or-A/B comparison of a spec: exact rates from the ``ExactEngine``, then
/// ``BanditSimulation`` in fixed blocks of replicates summed in order (the same bytes on any
/// thread count).
package enum BanditPlanner {
  /// Replicates per block: the unit of parallel work and of summation order.
  static let block = 250

  /// Compares the bandit with the fixed test. `progress` gets (blocks done, blocks).
  /// - Throws: ``SpecErrors`` for an invalid spec, a mean primary metric, an unknown variant or
  ///   out-of-range options (named by their field).
  package static func compare(
    _ e: Experiment, options: BanditOptions, progress: (@Sendable (Int, Int) -> Void)? = nil
  ) throws(SpecErrors) -> BanditComparison {
    var planning = PlanningOptions()
    planning.variants = options.variants
    planning.alpha = options.alpha
    planning.seed = options.seed
    let frame = try ExperimentPlanner.frame(e, options: planning)
    if let refusal = frame.metric.banditRefusal() { throw SpecErrors(source: e.name, errors: [refusal]) }
    let rates = [frame.p0] + frame.rates
    let design = BanditSimulation.Design(
      rates: rates, usersPerDay: options.usersPerDay, days: options.days ?? defaultDays(rates, alpha: frame.alpha, options: options),
      horizonDays: options.horizonDays, allocation: options.allocation, alpha: frame.alpha)
    do throws(StatsError) {
      try design.validate()
      guard options.replicates >= 1 else {
        throw StatsError(.invalidParameter, field: [.name(.replicates)], message: "must be 1 or more, got \(options.replicates)")
      }
      if let share = options.holdoutShare {
        guard share > 0 && share <= 0.5 else {
          throw StatsError(
            .invalidParameter, field: [.name(.holdoutShare)], message: "must be in (0, 0.5], got \(share)", hint: "e.g. 0.05")
        }
        guard options.horizonDays >= 1 else {
          throw StatsError(
            .invalidParameter, field: [.name(.horizonDays)], message: "a holdout is kept after the test: the horizon must be 1 day or more",
            hint: "e.g. 28")
        }
      }
    } catch {
      throw SpecErrors(
        source: e.name, errors: [SpecError(.invalidValue, path: .root, message: "\(error.field): \(error.message)", hint: error.hint)])
    }
    let counts = tally(design, replicates: options.replicates, seed: frame.seed, threads: options.threads, progress: progress)
    let arms = [e.variants[0].id] + frame.ids
    var comparison = BanditComparison(
      experiment: e.name, metric: frame.metric, arms: arms, design: design, seed: frame.seed, counts: counts)
    comparison.holdoutShare = options.holdoutShare
    if let share = options.holdoutShare { comparison.holdout = holdout(comparison, share: share) }
    return comparison
  }

  /// The days the fixed test needs to detect the best variant with power 0.8 in a two-arm split of
  /// the traffic at α/(K − 1), the level it is tested at (14 when no variant beats the control), at most 100.
  static func defaultDays(_ rates: [Double], alpha: Double, options: BanditOptions) -> Int {
    guard let best = rates.dropFirst().max(), best != rates[0],
      let solved = try? PowerAnalysis.solve(
        PowerAnalysis.Problem(method: .pooledNormal, baseline: rates[0], effect: best, alpha: alpha / Double(max(rates.count - 1, 1)))),
      let perArm = Int(rounding: solved.sampleSize, .up)
    else { return 14 }
    let users = Double(perArm) * Double(rates.count)
    return min(100, max(1, Int(rounding: users / Double(max(options.usersPerDay, 1)), .up) ?? 100))
  }

  /// Every replicate in blocks of `block` (the sums of doubles depend on it; counts do not), run
  /// on `threads` workers and summed in block order.
  static func tally(
    _ design: BanditSimulation.Design, replicates: Int, seed: UInt64, threads: Int?, block: Int = block,
    progress: (@Sendable (Int, Int) -> Void)?
  ) -> BanditSimulation.Counts {
    let block = max(block, 1)
    let blocks = (replicates + block - 1) / block
    let done = Atomic<Int>(0)
    let parts = ParallelWork.map(blocks, threads: threads) { b -> BanditSimulation.Counts? in
      let range = b * block..<min(replicates, (b + 1) * block)
      // The design was validated, so the tally cannot throw.
      let counts = try? BanditSimulation.tally(design, replicates: range, seed: seed)
      progress?(done.add(1, ordering: .relaxed).newValue, blocks)
      return counts
    }.compactMap { $0 }
    return parts.dropFirst().reduce(parts.first ?? BanditSimulation.Counts(days: design.days, arms: design.rates.count), +)
  }

  /// The power of a holdout of `share` against the arm with the best exact rate, after the horizon.
  static func holdout(_ c: BanditComparison, share: Double) -> HoldoutPlan? {
    let rates = c.design.rates
    guard let best = rates.indices.max(by: { rates[$0] < rates[$1] }), best > 0, rates[best] > rates[0] else { return nil }
    let users = Double(c.design.usersPerDay) * Double(c.design.horizonDays)
    let held = (users * share).rounded(.down)
    let shipped = users - held
    guard held >= 2, shipped >= 2 else { return nil }
    let problem = PowerAnalysis.Problem(
      method: .pooledNormal, baseline: rates[0], effect: rates[best], sampleSize: shipped, power: nil, alpha: c.design.alpha,
      ratio: held / shipped)
    guard let power = try? PowerAnalysis.solve(problem) else { return nil }
    var mde = problem
    mde.effect = nil
    mde.power = 0.8
    let detectable = try? PowerAnalysis.solve(mde)
    return HoldoutPlan(
      share: share, shippedArm: c.arms[best], holdoutUsers: Int(held), shippedUsers: Int(shipped), power: power.power,
      minimumDetectableEffect: detectable?.absoluteEffect)
  }
}
