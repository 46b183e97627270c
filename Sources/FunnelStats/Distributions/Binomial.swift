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
    // n·p and n·q as unevaluated sums hi + lo (fma), so that the rounding of n·p (up to
    // ~6e-9 absolute at n = 10⁹) does not leak into the deviance terms.
    let mp = n * p
    let mpLow = fma(n, p, -mp)
    // n·q = n − n·p exactly (two-sum), so that q is exactly 1 − p even when the caller's q
    // was rounded (at n = 10⁹ a rounded q alone moves the result by ~3e-8 relative).
    let mq = n - mp
    let mqLow = ((n - mq) - mp) - mpLow
    /// bd0(x, M + lo) ≈ bd0(x, M) + (1 − x/M)·lo.
    func deviance(_ x: Double, _ m: Double, _ low: Double) -> Double {
      SpecialFunctions.bd0(x, m) + (1 - x / m) * low
    }
    if x == 0 {
      if n == 0 { return 1 }
      let lc = p < 0.1 ? -deviance(n, mq, mqLow) - mp - mpLow : n * log(q)
      return exp(lc)
    }
    if x == n {
      let lc = q < 0.1 ? -deviance(n, mp, mpLow) - mq - mqLow : n * log(p)
      return exp(lc)
    }
    if x < 0 || x > n { return 0 }
    let lc =
      SpecialFunctions.stirlingError(n) - SpecialFunctions.stirlingError(x)
      - SpecialFunctions.stirlingError(n - x) - deviance(x, mp, mpLow)
      - deviance(n - x, mq, mqLow)
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
