import Foundation

/// The beta distribution `Beta(α, β)` on `[0, 1]`.
///
/// ```
/// pdf(x) = x^{α−1} (1−x)^{β−1} / B(α, β)
/// cdf(x) = I_x(α, β)          sf(x) = 1 − I_x(α, β), computed directly when small
/// ```
///
/// - Complexity: O(√max(α, β)) iterations at worst per call.
public struct BetaDistribution: Sendable, Hashable {
  /// Shape α > 0.
  public var alpha: Double
  /// Shape β > 0.
  public var beta: Double

  /// Creates `Beta(alpha, beta)`; non-positive shapes make every member return `.nan`.
  public init(alpha: Double, beta: Double) {
    self.alpha = alpha
    self.beta = beta
  }

  private var valid: Bool { alpha > 0 && beta > 0 && alpha.isFinite && beta.isFinite }

  /// The mean `α / (α + β)`.
  public var mean: Double { alpha / (alpha + beta) }

  /// The variance `αβ / ((α+β)²(α+β+1))`.
  public var variance: Double {
    let s = alpha + beta
    return alpha * beta / (s * s * (s + 1))
  }

  /// The density.
  public func pdf(_ x: Double) -> Double {
    guard valid, !x.isNaN else { return .nan }
    if x < 0 || x > 1 { return 0 }
    if x == 0 { return alpha < 1 ? .infinity : (alpha == 1 ? beta : 0) }
    if x == 1 { return beta < 1 ? .infinity : (beta == 1 ? alpha : 0) }
    return exp(SpecialFunctions.logBetaPrefactor(alpha, beta, x: x, y: 1 - x)) / (x * (1 - x))
  }

  /// `log pdf(x)` for `0 < x < 1`.
  internal func logPDF(_ x: Double) -> Double {
    SpecialFunctions.logBetaPrefactor(alpha, beta, x: x, y: 1 - x) - log(x) - log1p(-x)
  }

  /// `P(X ≤ x)`.
  public func cdf(_ x: Double) -> Double {
    guard valid, !x.isNaN else { return .nan }
    if x <= 0 { return 0 }
    if x >= 1 { return 1 }
    return SpecialFunctions.incompleteBeta(alpha, beta, x: x, y: 1 - x).lower
  }

  /// `P(X > x)`.
  public func sf(_ x: Double) -> Double {
    guard valid, !x.isNaN else { return .nan }
    if x <= 0 { return 1 }
    if x >= 1 { return 0 }
    return SpecialFunctions.incompleteBeta(alpha, beta, x: x, y: 1 - x).upper
  }

  /// The quantile: the `x` with `I_x(α, β) = p`.
  public func ppf(_ p: Double) -> Double {
    guard valid else { return .nan }
    return SpecialFunctions.inverseRegularizedBeta(alpha, beta, p: p, q: 1 - p).x
  }

  /// The inverse survival function: the `x` with `P(X > x) = q`.
  public func isf(_ q: Double) -> Double {
    guard valid else { return .nan }
    return SpecialFunctions.inverseRegularizedBeta(alpha, beta, p: 1 - q, q: q).x
  }
}
