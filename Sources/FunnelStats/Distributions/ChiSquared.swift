import Foundation

/// The chi-square distribution with k degrees of freedom: `X ~ Gamma(k/2, scale 2)`.
///
/// ```
/// cdf(x) = P(k/2, x/2)     sf(x) = Q(k/2, x/2)   (regularized incomplete gamma)
/// ```
///
/// - Complexity: O(√k) iterations at worst per call; O(1) in the tails.
public struct ChiSquared: Sendable, Hashable {
  /// Degrees of freedom k > 0.
  public var degreesOfFreedom: Double

  /// Creates a chi-square distribution; a non-positive k makes every member return `.nan`.
  public init(degreesOfFreedom: Double) {
    self.degreesOfFreedom = degreesOfFreedom
  }

  private var valid: Bool { degreesOfFreedom > 0 && degreesOfFreedom.isFinite }

  /// The density `x^{k/2−1} e^{−x/2} / (2^{k/2} Γ(k/2))`.
  public func pdf(_ x: Double) -> Double {
    guard valid else { return .nan }
    if x < 0 { return 0 }
    let a = 0.5 * degreesOfFreedom
    if x == 0 { return a < 1 ? .infinity : (a == 1 ? 0.5 : 0) }
    return 0.5 * exp(SpecialFunctions.logGammaPrefactor(a, 0.5 * x)) / (0.5 * x)
  }

  /// `P(X ≤ x)`.
  public func cdf(_ x: Double) -> Double {
    guard valid, !x.isNaN else { return .nan }
    if x <= 0 { return 0 }
    return SpecialFunctions.incompleteGamma(0.5 * degreesOfFreedom, 0.5 * x).lower
  }

  /// `P(X > x)`, computed directly.
  public func sf(_ x: Double) -> Double {
    guard valid, !x.isNaN else { return .nan }
    if x <= 0 { return 1 }
    return SpecialFunctions.incompleteGamma(0.5 * degreesOfFreedom, 0.5 * x).upper
  }

  /// The quantile: the `x` with `P(X ≤ x) = p`.
  public func ppf(_ p: Double) -> Double {
    guard valid else { return .nan }
    return 2 * SpecialFunctions.inverseRegularizedGammaP(0.5 * degreesOfFreedom, p: p, q: 1 - p)
  }

  /// The inverse survival function: the `x` with `P(X > x) = q` (precise for tiny `q`).
  public func isf(_ q: Double) -> Double {
    guard valid else { return .nan }
    return 2 * SpecialFunctions.inverseRegularizedGammaP(0.5 * degreesOfFreedom, p: 1 - q, q: q)
  }
}
