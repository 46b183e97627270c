import Foundation

/// The binomial distribution: the number of successes in `n` independent trials each
/// succeeding with probability `p`.
///
/// ```
/// pmf(k) = C(n,k) pᵏ (1−p)^{n−k}        Loader's saddle-point form (exact to ~1e-15 at n = 10⁹)
/// cdf(k) = P(X ≤ k) = 1 − I_p(k+1, n−k)
/// sf(k)  = P(X > k) = I_p(k+1, n−k)      computed directly
/// ```
///
/// Loader, C. (2000). *Fast and Accurate Computation of Binomial Probabilities*.
///
/// - Complexity: pmf O(1); cdf/sf O(√n) iterations at worst, O(1) in the tails.
public struct Binomial: Sendable, Hashable {
  /// Number of trials n ≥ 0.
  public var trials: Int
  /// Success probability p in [0, 1].
  public var probability: Double

  /// Creates `Binomial(trials, probability)`; invalid parameters make every member `.nan`.
  public init(trials: Int, probability: Double) {
    self.trials = trials
    self.probability = probability
  }

  private var valid: Bool { trials >= 0 && probability >= 0 && probability <= 1 }

  /// `P(X = k)`.
  public func pmf(_ k: Int) -> Double {
    guard valid else { return .nan }
    if k < 0 || k > trials { return 0 }
    return Binomial.rawPMF(k: Double(k), n: Double(trials), p: probability, q: 1 - probability)
  }

  /// Loader's `dbinom_raw(x, n, p, q)` for real `0 ≤ x ≤ n`.
  internal static func rawPMF(k x: Double, n: Double, p: Double, q: Double) -> Double {
    if p == 0 { return x == 0 ? 1 : 0 }
    if q == 0 { return x == n ? 1 : 0 }
    if x == 0 {
      if n == 0 { return 1 }
      let lc = p < 0.1 ? -SpecialFunctions.bd0(n, n * q) - n * p : n * log(q)
      return exp(lc)
    }
    if x == n {
      let lc = q < 0.1 ? -SpecialFunctions.bd0(n, n * p) - n * q : n * log(p)
      return exp(lc)
    }
    if x < 0 || x > n { return 0 }
    let lc =
      SpecialFunctions.stirlingError(n) - SpecialFunctions.stirlingError(x)
      - SpecialFunctions.stirlingError(n - x) - SpecialFunctions.bd0(x, n * p)
      - SpecialFunctions.bd0(n - x, n * q)
    let lf = log(2 * Double.pi) + log(x) + log1p(-x / n)
    return exp(lc - 0.5 * lf)
  }

  /// `(P(X ≤ k), P(X > k))`, the smaller computed directly.
  internal func cdfAndSF(_ k: Int) -> (cdf: Double, sf: Double) {
    guard valid else { return (.nan, .nan) }
    if k < 0 { return (0, 1) }
    if k >= trials { return (1, 0) }
    let ib = SpecialFunctions.incompleteBeta(
      Double(k) + 1, Double(trials - k), x: probability, y: 1 - probability)
    return (ib.upper, ib.lower)
  }

  /// `P(X ≤ k)`.
  public func cdf(_ k: Int) -> Double { cdfAndSF(k).cdf }

  /// `P(X > k)` (scipy's `binom.sf`), computed directly.
  public func sf(_ k: Int) -> Double { cdfAndSF(k).sf }
}
