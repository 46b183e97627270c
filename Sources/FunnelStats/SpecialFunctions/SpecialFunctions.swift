import Foundation

/// Special functions used by the distributions: gamma, beta and error functions.
///
/// All functions take and return `Double`. Each one documents its formula, its method and its
/// cost. Arguments outside the domain return `.nan`; the public distribution types validate
/// their parameters before calling these, so a NaN never reaches a test result.
public enum SpecialFunctions {}

extension SpecialFunctions {
  /// `log Γ(x)` for `x > 0`, from the C library (`lgamma`, accurate to a few ulp).
  ///
  /// - Complexity: O(1).
  public static func logGamma(_ x: Double) -> Double {
    guard x > 0 else { return x == 0 ? .infinity : .nan }
    return Foundation.lgamma(x)
  }

  /// `log B(a, b) = log Γ(a) + log Γ(b) − log Γ(a + b)`, computed through Stirling's
  /// remainder so that large arguments keep full relative precision.
  ///
  /// - Complexity: O(1).
  public static func logBeta(_ a: Double, _ b: Double) -> Double {
    guard a > 0, b > 0 else { return .nan }
    if a + b < 20 {
      return Foundation.lgamma(a) + Foundation.lgamma(b) - Foundation.lgamma(a + b)
    }
    // log B = ½ log 2π + (a−½) log(a/s) + (b−½) log(b/s) − ½ log s + δ(a) + δ(b) − δ(s), s = a+b
    let s = a + b
    // log(large/s) = −log1p(small/large) keeps precision when one argument dominates.
    let logA = a >= b ? -log1p(b / a) : log(a / s)
    let logB = b > a ? -log1p(a / b) : log(b / s)
    let main = 0.5 * log(2 * Double.pi) + (a - 0.5) * logA + (b - 0.5) * logB - 0.5 * log(s)
    return main + stirlingError(a) + stirlingError(b) - stirlingError(s)
  }

  /// Stirling's remainder `δ(z) = log Γ(z) − [(z − ½) log z − z + ½ log 2π]` for `z > 0`.
  ///
  /// For `z ≥ 10` the asymptotic series `1/(12z) − 1/(360z³) + 1/(1260z⁵) − …` (seven terms,
  /// error below 1e-17 relative); below, directly from `lgamma`.
  ///
  /// - Complexity: O(1).
  internal static func stirlingError(_ z: Double) -> Double {
    if z >= 10 {
      let r = 1 / z
      let r2 = r * r
      // Bernoulli-number coefficients B_{2k} / (2k (2k−1)).
      let series =
        1.0 / 12 - r2 * (1.0 / 360 - r2 * (1.0 / 1260 - r2 * (1.0 / 1680 - r2 * (1.0 / 1188 - r2 * (691.0 / 360_360 - r2 / 156)))))
      return series * r
    }
    return Foundation.lgamma(z) - ((z - 0.5) * log(z) - z + 0.5 * log(2 * Double.pi))
  }

  /// `log(1 + t) − t` without cancellation for small `|t|` (`t > −1`).
  ///
  /// For `|t| < ½`, with `u = t / (2 + t)`: `log(1+t) − t = −t²/(2+t) + 2 Σ_{k≥1} u^{2k+1}/(2k+1)`.
  ///
  /// - Complexity: O(1) (at most ~40 series terms).
  internal static func log1pmx(_ t: Double) -> Double {
    if t <= -1 { return t == -1 ? -.infinity : .nan }
    if abs(t) >= 0.5 { return log1p(t) - t }
    let u = t / (2 + t)
    let u2 = u * u
    var power = u * u2
    var sum = 0.0
    var k = 3.0
    while true {
      let term = power / k
      sum += term
      if abs(term) <= abs(sum) * 1e-17 { break }
      power *= u2
      k += 2
    }
    return -t * t / (2 + t) + 2 * sum
  }

  /// Loader's deviance term `bd0(x, M) = x log(x / M) + M − x`, stable when `x ≈ M`.
  ///
  /// Loader, C. (2000), *Fast and Accurate Computation of Binomial Probabilities*.
  ///
  /// - Complexity: O(1) (a short series near `x = M`).
  internal static func bd0(_ x: Double, _ m: Double) -> Double {
    if x == 0 { return m }
    if abs(x - m) < 0.1 * (x + m) {
      let v = (x - m) / (x + m)
      var s = (x - m) * v
      var ej = 2 * x * v
      let v2 = v * v
      var j = 1.0
      while j < 1000 {
        ej *= v2
        let s1 = s + ej / (2 * j + 1)
        if s1 == s { return s1 }
        s = s1
        j += 1
      }
      return s
    }
    return x * log(x / m) + m - x
  }
}
