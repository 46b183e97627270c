import Foundation

/// An anytime-valid sample-ratio check (Lindon & Malek, "Anytime-Valid Inference for
/// Multinomial Count Data", NeurIPS 2022): its p-value may be read after every day, or
/// after every user, and stays valid, where the chi-square test of
/// ``SampleRatioMismatch`` holds only at one planned look.
///
/// Under the planned shares `p` the users' arms are multinomial; the alternative mixes
/// over shares drawn from a Dirichlet prior centred on `p`, `α = c·p` (concentration `c`).
/// The Bayes factor of all users so far, `N` in total and `Nᵢ` in arm `i`, is
///
/// ```
/// log BF = log Γ(Σα) − Σ log Γ(αᵢ) + Σ log Γ(αᵢ + Nᵢ) − log Γ(Σα + N) − Σ Nᵢ·log pᵢ
/// ```
///
/// a nonnegative martingale under the null, so by Ville's inequality
/// `pₜ = min(1, min over looks s ≤ t of 1/BFₛ)` is a p-value at every look. This is
/// what optimizely's `ssrm-test` 0.1.5 computes (`sequential_p_values`, checked to 1e-9)
/// with its default concentration 10,000. Batches of users (a day's) give the same
/// Bayes factor as the users one by one: only the running totals enter.
///
/// - Complexity: O(k) per look.
public enum SequentialSampleRatioMismatch {
  /// The method name carried by results.
  public static let methodName = "anytime-valid SRM (Dirichlet-multinomial)"
  /// ssrm-test's default concentration of the prior around the planned shares.
  public static let defaultConcentration = 10_000.0

  /// The check after each look.
  public struct Result: Sendable, Hashable, Codable {
    /// The Bayes factor's logarithm at each look.
    public var logBayesFactors: [Double]
    /// The anytime-valid p-value at each look (non-increasing).
    public var pValues: [Double]
    /// The p-value at the last look.
    public var pValue: Double
    /// Whether the last p-value is below the threshold.
    public var mismatch: Bool
    /// The prior's concentration.
    public var concentration: Double
  }

  /// Checks `looks`, each the running totals of users per arm (in the order of
  /// `weights`, never decreasing), against the planned `weights`.
  /// - Throws: ``StatsError`` for fewer than two arms, a look of another length,
  ///   negative or decreasing totals, weights that are not positive, or a concentration
  ///   that is not positive and finite.
  public static func check(
    looks: [[Int]], weights: [Double], concentration: Double = defaultConcentration, pValueThreshold: Double = 0.001
  ) throws(StatsError) -> Result {
    guard weights.count >= 2 else {
      throw StatsError(.dimensionMismatch, field: [.name(.weights)], message: "needs at least two arms")
    }
    for (i, w) in weights.enumerated() where !(w > 0 && w.isFinite) {
      throw StatsError(.invalidParameter, field: [.name(.weights), .index(i)], message: "must be positive, got \(w)")
    }
    guard concentration > 0, concentration.isFinite else {
      throw StatsError(.invalidParameter, field: [.name(.prior)], message: "the concentration must be positive, got \(concentration)")
    }
    guard !looks.isEmpty else { throw StatsError(.emptyArm, field: [.name(.looks)], message: "no looks") }
    let total = weights.reduce(0, +)
    let shares = weights.map { $0 / total }
    let prior = shares.map { $0 * concentration }
    let priorTerm = SpecialFunctions.logGamma(concentration) - prior.reduce(0) { $0 + SpecialFunctions.logGamma($1) }
    var previous = [Int](repeating: 0, count: weights.count)
    var logFactors: [Double] = []
    var pValues: [Double] = []
    var p = 1.0
    for (t, look) in looks.enumerated() {
      guard look.count == weights.count else {
        throw StatsError(
          .dimensionMismatch, field: [.name(.looks), .index(t)], message: "\(look.count) arms, expected \(weights.count)")
      }
      for (i, n) in look.enumerated() where n < previous[i] {
        throw StatsError(
          .negativeCount, field: [.name(.looks), .index(t), .index(i)],
          message: "\(n) users after \(previous[i]): looks are running totals, never decreasing")
      }
      previous = look
      let counts = look.map(Double.init)
      let n = counts.reduce(0, +)
      var log = priorTerm - SpecialFunctions.logGamma(concentration + n)
      for i in counts.indices {
        log += SpecialFunctions.logGamma(prior[i] + counts[i])
        if counts[i] > 0 { log -= counts[i] * Foundation.log(shares[i]) }
      }
      logFactors.append(log)
      p = min(p, exp(-log))
      pValues.append(p)
    }
    return Result(
      logBayesFactors: logFactors, pValues: pValues, pValue: p, mismatch: p < pValueThreshold, concentration: concentration)
  }
}
