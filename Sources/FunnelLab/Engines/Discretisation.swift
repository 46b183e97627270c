import Foundation
import FunnelStats

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
  /// log₂ of ``dwellTableSize``: a draw's low bits index the table.
  public static let dwellTableBits = 10
  /// Entries of a dwell-time quantile table (a power of two: indexed by the low
  /// ``dwellTableBits`` bits of a step's draw, whose top 53 bits choose the outcome).
  public static let dwellTableSize = 1 << dwellTableBits
  /// The mask that leaves a 64-bit draw's low ``dwellTableBits`` bits: `draw & dwellTableMask`.
  public static let dwellTableMask = UInt64(dwellTableSize - 1)

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
    dwellQuantiles.map { z in
      let millis = (medianSeconds * exp(sigma * z) * 1000).rounded()
      return UInt32(min(max(millis, 0), Double(UInt32.max)))
    }
  }

  /// The standard normal quantiles a dwell table is made of, `Φ⁻¹((q + ½) / dwellTableSize)`:
  /// the same for every table, so computed once (every compile made them again for every screen).
  private static let dwellQuantiles: [Double] = (0..<dwellTableSize).map { q in
    standardNormalQuantile((Double(q) + 0.5) / Double(dwellTableSize))
  }

  /// `Φ⁻¹(p)`, by AS 241 (FunnelStats).
  static func standardNormalQuantile(_ p: Double) -> Double { Normal.standardQuantile(p: p, q: 1 - p) }
}
