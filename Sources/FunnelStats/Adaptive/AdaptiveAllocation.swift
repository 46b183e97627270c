import Foundation

/// How a bandit shares the next day's users among arms, from the conversions seen so far.
///
/// Each arm's rate has the posterior `Beta(α₀ + x, β₀ + n − x)` of ``BetaBinomialModel``,
/// approximated, as GrowthBook's bandits do, by the normal with the same mean and variance;
/// `πᵢ = P(arm i is best)` is then `Φ((m₁ − m₀)/√(s₀² + s₁²))` for two arms and
/// `∫ φ(z) Π_{j≠i} Φ((mᵢ + sᵢz − mⱼ)/sⱼ) dz` for more (``probabilityBest(_:)``): no posterior
/// draws, so the weights are the same bytes on every run, and a day's update costs
/// microseconds, which thousands of replicates need. From them:
///
/// - **Thompson sampling** (probability matching, as GrowthBook's bandits update their weights
///   once a day): `wᵢ = πᵢ`.
/// - **Top-two Thompson sampling** (Russo 2020): the leader is played with probability `β`,
///   otherwise the challenger, which gives `wᵢ = πᵢ·(β + (1 − β)·Σ_{j≠i} πⱼ / (1 − πⱼ))`;
///   it keeps exploring the runner-up, so it finds the best arm with fewer users.
/// - **ε-greedy**: `ε / K` to every arm and `1 − ε` to the arm with the highest posterior mean
///   (shared equally on a tie).
///
/// During the burn-in days the split is equal. Afterwards every arm keeps a minimum share `m`:
/// `wᵢ ← m + (1 − K·m)·wᵢ`, so the best arm's share can rise to `1 − (K − 1)·m` and every
/// propensity stays positive (which the inverse-propensity estimate needs).
public struct AdaptiveAllocation: Sendable, Hashable {
  /// The rule that turns the posteriors into weights.
  public enum Policy: Sendable, Hashable {
    /// Weights equal to each arm's probability of being best.
    case thompson
    /// Top-two Thompson sampling with the leader's probability `β` in (0, 1) (0.5 is Russo's default).
    case topTwoThompson(leaderProbability: Double)
    /// `1 − ε` to the arm with the best posterior mean, `ε` shared by all; `ε` in [0, 1].
    case epsilonGreedy(epsilon: Double)

    /// The policy's name as the command line spells it: `thompson`, `top-two`, `epsilon-greedy`.
    public var name: String {
      switch self {
      case .thompson: "thompson"
      case .topTwoThompson: "top-two"
      case .epsilonGreedy: "epsilon-greedy"
      }
    }

    /// The policy with its parameter, for a report: `thompson`, `top-two (β 0.5)`, `epsilon-greedy (ε 0.1)`.
    public var label: String {
      switch self {
      case .thompson: "thompson"
      case .topTwoThompson(let beta): "top-two (β \(beta))"
      case .epsilonGreedy(let epsilon): "epsilon-greedy (ε \(epsilon))"
      }
    }
  }

  /// The rule.
  public var policy: Policy
  /// The most arms a bandit takes: each day's update integrates over every pair of arms.
  public static let maxArms = 20
  /// The smallest minimum share: every propensity must stay positive for the inverse-propensity estimate.
  public static let smallestMinimumShare = 0.0001

  /// The share every arm keeps after the burn-in, in [0.0001, 1/K). Default 0.01.
  public var minimumShare: Double
  /// Days with an equal split before the weights follow the data (0 or more). Default 1.
  public var burnInDays: Int
  /// The posteriors' prior. Default `Beta(1, 1)`.
  public var model: BetaBinomialModel

  /// An allocation rule; defaults: a 1 % minimum share, one burn-in day, the uniform prior.
  public init(policy: Policy = .thompson, minimumShare: Double = 0.01, burnInDays: Int = 1, model: BetaBinomialModel = BetaBinomialModel())
  {
    self.policy = policy
    self.minimumShare = minimumShare
    self.burnInDays = burnInDays
    self.model = model
  }

  /// Checks the parameters for `arms` arms.
  /// - Throws: ``StatsError`` naming the parameter out of range.
  public func validate(arms: Int) throws(StatsError) {
    guard (2...Self.maxArms).contains(arms) else {
      throw StatsError(
        .invalidParameter, field: [.name(.arms)], message: "a bandit takes 2 to \(Self.maxArms) arms, got \(arms)",
        hint: arms < 2 ? "the spec needs a variant beside the control" : "choose the arms with --variant")
    }
    guard minimumShare >= Self.smallestMinimumShare, minimumShare * Double(arms) < 1 else {
      throw StatsError(
        .invalidParameter, field: [.name(.minimumShare)],
        message: "must be in [\(Self.smallestMinimumShare), 1/\(arms)) for \(arms) arms, got \(minimumShare)",
        hint: "every arm keeps a positive share, so that its effect can be estimated; e.g. 0.01")
    }
    guard burnInDays >= 0 else {
      throw StatsError(.invalidParameter, field: [.name(.burnInDays)], message: "must be 0 or more, got \(burnInDays)")
    }
    switch policy {
    case .thompson: break
    case .topTwoThompson(let beta):
      guard beta > 0, beta < 1 else {
        throw StatsError(.invalidParameter, field: [.name(.leaderProbability)], message: "must be in (0, 1), got \(beta)", hint: "0.5")
      }
    case .epsilonGreedy(let epsilon):
      guard epsilon >= 0, epsilon <= 1 else {
        throw StatsError(.invalidParameter, field: [.name(.epsilon)], message: "must be in [0, 1], got \(epsilon)", hint: "e.g. 0.1")
      }
    }
  }

  /// The shares of day `day` (0-based) given each arm's conversions before it, and the
  /// probabilities of being best they were derived from.
  /// - Throws: ``StatsError`` for invalid parameters or counts.
  public func weights(after counts: [ProportionCount], day: Int) throws(StatsError) -> (weights: [Double], probabilityBest: [Double]) {
    try validate(arms: counts.count)
    var posteriors: [Normal] = []
    for count in counts {
      let beta = try model.posteriorDistribution(count)
      posteriors.append(Normal(mean: beta.mean, standardDeviation: max(beta.variance.squareRoot(), 1e-300)))
    }
    let best = Self.probabilityBest(posteriors)
    let k = Double(counts.count)
    guard day >= burnInDays else { return (counts.map { _ in 1 / k }, best) }
    let raw: [Double]
    switch policy {
    case .thompson: raw = best
    case .topTwoThompson(let beta): raw = Self.topTwo(best, leaderProbability: beta)
    case .epsilonGreedy(let epsilon):
      let means = try counts.map { count throws(StatsError) in try model.posteriorDistribution(count).mean }
      let top = means.max() ?? 0
      let leaders = Double(means.filter { $0 == top }.count)
      raw = means.map { ($0 == top ? (1 - epsilon) / leaders : 0) + epsilon / k }
    }
    let total = raw.reduce(0, +)
    let normalized = total > 0 ? raw.map { $0 / total } : raw.map { _ in 1 / k }
    return (normalized.map { minimumShare + (1 - k * minimumShare) * $0 }, best)
  }

  /// `ψᵢ = πᵢ·(β + (1 − β)·Σ_{j≠i} πⱼ / Σ_{l≠j} πₗ)`, with `1 − πⱼ` summed from the other
  /// arms (no cancellation); when every other arm has probability 0, arm j's challengers share
  /// its turn equally.
  static func topTwo(_ best: [Double], leaderProbability beta: Double) -> [Double] {
    let others = best.indices.map { j in best.indices.reduce(0.0) { $0 + ($1 == j ? 0 : best[$1]) } }
    let k = Double(best.count)
    return best.indices.map { i in
      var challenger = 0.0
      for j in best.indices where j != i {
        challenger += best[j] * (others[j] > 0 ? best[i] / others[j] : 1 / (k - 1))
      }
      return beta * best[i] + (1 - beta) * challenger
    }
  }

  /// `P(arm i is best)` under independent normal posteriors: the closed form for two arms;
  /// for more, 10-point Gauss–Legendre on fixed panels of `z ∈ [−9, 9]` (unit width, plus
  /// panels at most 1.5 of arm j's standard deviations wide wherever its factor
  /// `Φ((mᵢ + sᵢz − mⱼ)/sⱼ)` changes), so every factor is smooth on every panel: agrees with
  /// adaptive quadrature to 1e-9 (tested), at a fixed cost of O(K²·panels) normal CDFs.
  static func probabilityBest(_ posteriors: [Normal]) -> [Double] {
    guard posteriors.count > 2 else { return NormalPosteriorModel.probabilityToBeBest(posteriors) }
    let rule = _Quadrature.rule
    let offsets: [Double] = [-8, -5, -3, -1.5, 0, 1.5, 3, 5, 8]
    let probabilities = posteriors.indices.map { i in
      let arm = posteriors[i]
      var points = Set(stride(from: -9.0, through: 9, by: 1))
      for (j, other) in posteriors.enumerated() where j != i {
        let center = (other.mean - arm.mean) / arm.standardDeviation
        let scale = other.standardDeviation / arm.standardDeviation
        for offset in offsets {
          let z = center + offset * scale
          if z > -9, z < 9 { points.insert(z) }
        }
      }
      let total = integrate(arm: i, posteriors, edges: points.sorted(), rule: rule)
      return min(1, max(0, total))
    }
    let sum = probabilities.reduce(0, +)
    return sum > 0 ? probabilities.map { $0 / sum } : probabilities.map { _ in 1 / Double(posteriors.count) }
  }

  /// `∫ φ(z) Π_{j≠i} Φ((mᵢ + sᵢz − mⱼ)/sⱼ) dz` by the rule on each panel between `edges`.
  /// The innermost loop of every bandit replicate: plain `while` loops over pointers, since an
  /// unoptimised build (`swift test`) pays a generic call for each array read, range step or
  /// sequence adaptor (zip, enumerated); the terms are added in the same order either way.
  private static func integrate(
    arm i: Int, _ posteriors: [Normal], edges: [Double], rule: (nodes: [Double], weights: [Double])
  ) -> Double {
    posteriors.withUnsafeBufferPointer { posteriors in
      edges.withUnsafeBufferPointer { edges in
        rule.nodes.withUnsafeBufferPointer { nodes in
          rule.weights.withUnsafeBufferPointer { weights in
            guard let arms = posteriors.baseAddress, let edge = edges.baseAddress, let node = nodes.baseAddress,
              let weight = weights.baseAddress
            else { return 0 }
            let (mean, sd) = (arms[i].mean, arms[i].standardDeviation)
            var total = 0.0
            var e = 1
            while e < edges.count {
              let half = 0.5 * (edge[e] - edge[e - 1])
              let mid = 0.5 * (edge[e - 1] + edge[e])
              var k = 0
              while k < nodes.count {
                let z = mid + half * node[k]
                var v = weight[k] * half * exp(-0.5 * z * z) * 0.398_942_280_401_432_7
                let x = mean + sd * z
                var j = 0
                while j < posteriors.count, v > 0 {
                  if j != i { v *= arms[j].cdf(x) }
                  j += 1
                }
                total += v
                k += 1
              }
              e += 1
            }
            return total
          }
        }
      }
    }
  }
}
