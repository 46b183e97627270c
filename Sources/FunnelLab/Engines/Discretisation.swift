import Foundation

/// How the compiler turns continuous quantities into the finite tables the engines
/// walk: the intent trait into equiprobable bins, dwell times into quantile tables.
///
/// **Intent bins.** The standard normal is cut at `Φ⁻¹(k/B)`, `k = 0…B`, into `B`
/// bins of probability `1/B`, and each bin is represented by its conditional mean
/// `z_k = B·(φ(a_k) − φ(b_k))`. A user draws a bin uniformly; both engines then use
/// the same `B`-point distribution, so they agree by construction. Against the
/// continuous trait, the error of a smooth effect `g(θ)` is that of replacing
/// `E g(θ)` by its bin-mean quadrature, `O(1/B²)` for smooth `g` (the bin means keep
/// the mean exactly and the variance to within `1 − Σ Var(Z | bin)/B`).
///
/// **Dwell times.** A lognormal with median `m` and σ is replaced by the 1024
/// equiprobable quantiles `m·exp(σ·Φ⁻¹((q + ½)/1024))`, in whole milliseconds.
/// Their mean differs from `m·exp(σ²/2)` by well under 1 % for σ ≤ 1.
public enum Discretisation {
  /// Entries of a dwell-time quantile table (a power of two: indexed by the top bits of a draw).
  public static let dwellTableSize = 1024
  static let dwellTableShift: UInt64 = 54

  /// Conditional means of the standard normal over `bins` equiprobable bins.
  public static func normalBinMeans(_ bins: Int) -> [Double] {
    guard bins > 1 else { return [0] }
    let b = Double(bins)
    var edges = [Double](repeating: 0, count: bins + 1)
    for k in 1..<bins { edges[k] = standardNormalQuantile(Double(k) / b) }
    func pdf(_ x: Double) -> Double { exp(-0.5 * x * x) / (2 * Double.pi).squareRoot() }
    return (0..<bins).map { k in
      let lower = k == 0 ? 0 : pdf(edges[k])
      let upper = k == bins - 1 ? 0 : pdf(edges[k + 1])
      return b * (lower - upper)
    }
  }

  /// Equiprobable quantiles of a lognormal dwell time, in milliseconds.
  public static func dwellTable(medianSeconds: Double, sigma: Double) -> [UInt32] {
    (0..<dwellTableSize).map { q in
      let z = standardNormalQuantile((Double(q) + 0.5) / Double(dwellTableSize))
      let millis = (medianSeconds * exp(sigma * z) * 1000).rounded()
      return UInt32(min(max(millis, 0), Double(UInt32.max)))
    }
  }

  /// `Φ⁻¹(p)` for `0 < p < 1`: Acklam's rational approximation refined by one
  /// Halley step on `erfc`, accurate to about 1e-15.
  static func standardNormalQuantile(_ p: Double) -> Double {
    let a = [-3.969683028665376e+01, 2.209460984245205e+02, -2.759285104469687e+02,
             1.383577518672690e+02, -3.066479806614716e+01, 2.506628277459239e+00]
    let b = [-5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02,
             6.680131188771972e+01, -1.328068155288572e+01]
    let c = [-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00,
             -2.549732539343734e+00, 4.374664141464968e+00, 2.938163982698783e+00]
    let d = [7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00, 3.754408661907416e+00]
    let low = 0.02425
    var x: Double
    if p < low {
      let q = (-2 * log(p)).squareRoot()
      x = (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) / ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1)
    } else if p <= 1 - low {
      let q = p - 0.5
      let r = q * q
      x = (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q / (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1)
    } else {
      let q = (-2 * log1p(-p)).squareRoot()
      x = -(((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) / ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1)
    }
    let e = 0.5 * erfc(-x / 2.0.squareRoot()) - p
    let u = e * (2 * Double.pi).squareRoot() * exp(x * x / 2)
    x -= u / (1 + x * u / 2)
    return x
  }
}
