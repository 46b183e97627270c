import Foundation

/// The normal distribution `N(μ, σ²)`.
///
/// ```
/// Φ(z)  = ½ erfc(−z/√2)          cdf
/// 1−Φ(z) = ½ erfc(z/√2)          survival, computed directly (tails to 1e-300 and below)
/// Φ⁻¹(p)                         Wichura's AS 241 (PPND16), ~1e-16 relative
/// ```
///
/// Wichura, M. J. (1988). *Algorithm AS 241: The Percentage Points of the Normal Distribution*.
/// Applied Statistics 37(3), 477–484.
///
/// - Complexity: every member is O(1).
public struct Normal: Sendable, Hashable {
  /// The mean μ.
  public var mean: Double
  /// The standard deviation σ > 0.
  public var standardDeviation: Double

  /// The standard normal distribution `N(0, 1)`.
  public static let standard = Normal(mean: 0, standardDeviation: 1)

  /// Creates `N(mean, standardDeviation²)`; `standardDeviation` must be positive and finite
  /// (a non-positive σ makes every member return `.nan`).
  public init(mean: Double = 0, standardDeviation: Double = 1) {
    self.mean = mean
    self.standardDeviation = standardDeviation
  }

  private var valid: Bool { standardDeviation > 0 && standardDeviation.isFinite && mean.isFinite }

  /// The density `φ((x−μ)/σ)/σ`.
  public func pdf(_ x: Double) -> Double {
    guard valid else { return .nan }
    let z = (x - mean) / standardDeviation
    return exp(-0.5 * z * z) / (standardDeviation * (2 * Double.pi).squareRoot())
  }

  /// `P(X ≤ x)`.
  public func cdf(_ x: Double) -> Double {
    guard valid else { return .nan }
    return Normal.standardCDF((x - mean) / standardDeviation)
  }

  /// `P(X > x)`, computed directly.
  public func sf(_ x: Double) -> Double {
    guard valid else { return .nan }
    return Normal.standardCDF(-(x - mean) / standardDeviation)
  }

  /// The quantile: the `x` with `P(X ≤ x) = p`.
  public func ppf(_ p: Double) -> Double {
    guard valid else { return .nan }
    return mean + standardDeviation * Normal.standardQuantile(p: p, q: 1 - p)
  }

  /// The inverse survival function: the `x` with `P(X > x) = q` (precise for tiny `q`).
  public func isf(_ q: Double) -> Double {
    guard valid else { return .nan }
    return mean - standardDeviation * Normal.standardQuantile(p: q, q: 1 - q)
  }

  /// `Φ(z) = ½ erfc(−z/√2)`.
  public static func standardCDF(_ z: Double) -> Double {
    if z.isNaN { return .nan }
    return 0.5 * erfc(-z * 0.7071067811865475244)
  }

  /// `Φ⁻¹` by AS 241. Give `q = 1 − p` too when it is known exactly: the smaller of the two
  /// is used, so upper-tail quantiles keep full precision.
  public static func standardQuantile(p: Double, q: Double) -> Double {
    if p.isNaN || q.isNaN || p < 0 || q < 0 { return .nan }
    if p == 0 { return -.infinity }
    if q == 0 { return .infinity }
    let half = p - 0.5
    if abs(half) <= 0.425 {
      let r = 0.180625 - half * half
      let num =
        (((((((2.5090809287301226727e+3 * r + 3.3430575583588128105e+4) * r
          + 6.7265770927008700853e+4) * r + 4.5921953931549871457e+4) * r
          + 1.3731693765509461125e+4) * r + 1.9715909503065514427e+3) * r
          + 1.3314166789178437745e+2) * r + 3.3871328727963666080e+0) * half
      let den =
        (((((((5.2264952788528545610e+3 * r + 2.8729085735721942674e+4) * r
          + 3.9307895800092710610e+4) * r + 2.1213794301586595867e+4) * r
          + 5.3941960214247511077e+3) * r + 6.8718700749205790830e+2) * r
          + 4.2313330701600911252e+1) * r + 1.0)
      return num / den
    }
    let tail = min(p, q)
    var r = (-log(tail)).squareRoot()
    var x: Double
    if r <= 5 {
      r -= 1.6
      let num =
        (((((((7.74545014278341407640e-4 * r + 2.27238449892691845833e-2) * r
          + 2.41780725177450611770e-1) * r + 1.27045825245236838258e+0) * r
          + 3.64784832476320460504e+0) * r + 5.76949722146069140550e+0) * r
          + 4.63033784615654529590e+0) * r + 1.42343711074968357734e+0)
      let den =
        (((((((1.05075007164441684324e-9 * r + 5.47593808499534494600e-4) * r
          + 1.51986665636164571966e-2) * r + 1.48103976427480074590e-1) * r
          + 6.89767334985100004550e-1) * r + 1.67638483018380384940e+0) * r
          + 2.05319162663775882187e+0) * r + 1.0)
      x = num / den
    } else {
      r -= 5
      let num =
        (((((((2.01033439929228813265e-7 * r + 2.71155556874348757815e-5) * r
          + 1.24266094738807843860e-3) * r + 2.65321895265761230930e-2) * r
          + 2.96560571828504891230e-1) * r + 1.78482653991729133580e+0) * r
          + 5.46378491116411436990e+0) * r + 6.65790464350110377720e+0)
      let den =
        (((((((2.04426310338993978564e-15 * r + 1.42151175831644588870e-7) * r
          + 1.84631831751005468180e-5) * r + 7.86869131145613259100e-4) * r
          + 1.48753612908506148525e-2) * r + 1.36929880922735805310e-1) * r
          + 5.99832206555887937690e-1) * r + 1.0)
      x = num / den
    }
    return p < q ? -x : x
  }
}
