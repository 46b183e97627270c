import Foundation

/// The Mann–Whitney U (Wilcoxon rank-sum) test from value→count maps, with the tie correction
/// and continuity correction, as scipy
/// `mannwhitneyu(x, y, use_continuity=True, alternative=…, method="asymptotic")`.
///
/// ```
/// R₁ = Σ ranks of sample 1 (midranks for ties),   U₁ = R₁ − n₁(n₁+1)/2,   U₀ = n₁n₀ − U₁
/// σ = √(n₁n₀/12 · ((N+1) − Σ(tⱼ³ − tⱼ)/(N(N−1))))
/// two-sided: z = (max(U₁,U₀) − n₁n₀/2 − ½)/σ, p = 2Φ̄(z);  greater: U₁;  less: U₀
/// ```
/// Tests whether one distribution is stochastically larger (`P(X > Y) ≠ ½`); it is not a
/// test of means. Revenue has few distinct values, so ties are heavy and the correction
/// matters. Mann & Whitney (1947).
///
/// - Complexity: O(k log k) for k distinct values (independent of the number of users).
public enum MannWhitneyUTest {
  /// The method name carried by results.
  public static let methodName = "Mann-Whitney U (asymptotic, tie- and continuity-corrected)"

  /// The result: U₁ as the statistic (scipy's convention), the z-score and the p-value.
  public struct Result: Sendable, Hashable, Codable {
    /// U₁ (for the treatment sample), p-value.
    public var test: TestResult
    /// The standardized statistic z.
    public var z: Double
    /// `U₁ / (n₁n₀)`, an estimate of `P(X > Y) + ½P(X = Y)`.
    public var commonLanguageEffect: Double
  }

  /// Runs the test on value→count maps (counts ≥ 0).
  ///
  /// Degenerate data: an empty sample throws; all values tied (σ = 0) gives z = 0, p = 1 with
  /// ``Diagnostic/zeroVariance``.
  ///
  /// - Throws: ``StatsError`` for negative counts, non-finite values or an empty sample.
  public static func test(
    treatment: [Double: Int], control: [Double: Int], alternative: Alternative = .twoSided
  ) throws(StatsError) -> Result {
    for (name, sample) in [(StatsError.Field.Name.treatment, treatment), (.control, control)] {
      for (v, c) in sample {
        guard c >= 0 else {
          throw StatsError(.negativeCount, field: [.name(name), .key("\(v)")], message: "count is negative (\(c))")
        }
        guard v.isFinite else {
          throw StatsError(.invalidParameter, field: [.name(name)], message: "values must be finite")
        }
      }
    }
    let n1 = treatment.values.reduce(0.0) { $0 + Double($1) }
    let n0 = control.values.reduce(0.0) { $0 + Double($1) }
    guard n1 > 0 else { throw StatsError(.emptyArm, field: [.name(.treatment)], message: "has no observations") }
    guard n0 > 0 else { throw StatsError(.emptyArm, field: [.name(.control)], message: "has no observations") }
    let values = Set(treatment.keys).union(control.keys).sorted()
    var below = 0.0
    var r1 = 0.0
    var tieTerm = 0.0
    for v in values {
      let c1 = Double(treatment[v] ?? 0)
      let c0 = Double(control[v] ?? 0)
      let t = c1 + c0
      if t == 0 { continue }
      let midrank = below + (t + 1) / 2
      r1 += c1 * midrank
      tieTerm += t * t * t - t
      below += t
    }
    let n = n1 + n0
    let u1 = r1 - n1 * (n1 + 1) / 2
    let u0 = n1 * n0 - u1
    let mu = n1 * n0 / 2
    let sigma = (n1 * n0 / 12 * ((n + 1) - tieTerm / (n * (n - 1)))).squareRoot()
    let u: Double
    let factor: Double
    switch alternative {
    case .greater: (u, factor) = (u1, 1)
    case .less: (u, factor) = (u0, 1)
    case .twoSided: (u, factor) = (max(u1, u0), 2)
    }
    guard sigma > 0, n > 1 else {
      return Result(
        test: TestResult(
          statistic: u1, pValue: 1, alternative: alternative, method: methodName,
          diagnostic: .zeroVariance),
        z: 0, commonLanguageEffect: u1 / (n1 * n0))
    }
    let z = (u - mu - 0.5) / sigma
    let p = min(1, max(0, factor * Normal.standardCDF(-z)))
    return Result(
      test: TestResult(statistic: u1, pValue: p, alternative: alternative, method: methodName),
      z: z, commonLanguageEffect: u1 / (n1 * n0))
  }
}
