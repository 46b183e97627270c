import Foundation

extension Binomial {
  /// The variance `npq` from which ``quantile(normalDeviate:)`` uses the Cornish–Fisher
  /// expansion instead of exact inversion.
  public static let cornishFisherVariance = 25.0

  /// The quantile at `Φ(z)`: the smallest `k` with `P(X ≤ k) ≥ Φ(z)`, for a standard
  /// normal deviate `z`. A fixed `z` gives every `n` its own binomial count (quantile
  /// coupling), which is how simulations share random numbers across sample sizes.
  ///
  /// For `npq < 25`: exact inversion, summing the pmf from the nearer end. Otherwise the
  /// Cornish–Fisher expansion with a continuity correction:
  /// ```
  /// k = ⌈np − ½ + σ(z + γ(z²−1)/6 + κ(z³−3z)/24 − γ²(2z³−5z)/36)⌉
  /// σ = √(npq),   γ = (q − p)/σ (skewness),   κ = (1 − 6pq)/σ² (excess kurtosis)
  /// ```
  /// clamped to `[0, n]`. Against scipy `binom.ppf(Φ(z), n, p)` on 2,000 deviates per
  /// `(n, p)` with `npq ≥ 25` (`n` from 100 to 10⁶, `p` from 0.01 to 0.9): 99.8 % exact,
  /// never off by more than one count (Tests/FunnelStatsTests, fixture `binomial.quantile`).
  ///
  /// Cornish, E. A. & Fisher, R. A. (1938). *Moments and cumulants in the specification of
  /// distributions*. Revue de l'Institut International de Statistique 5, 307–320.
  ///
  /// - Complexity: O(1) for `npq ≥ 25`; O(npq + √(npq)·|z|) pmf terms otherwise.
  public func quantile(normalDeviate z: Double) -> Int {
    let n = Double(trials)
    let p = probability
    let q = 1 - p
    guard trials > 0, p > 0, q > 0 else { return p >= 1 ? trials : 0 }
    let variance = n * p * q
    guard variance >= Self.cornishFisherVariance else { return invertedQuantile(normalDeviate: z) }
    let s = variance.squareRoot()
    let g = (q - p) / s
    let k = (1 - 6 * p * q) / variance
    let z2 = z * z
    let w = z + g * (z2 - 1) / 6 + k * (z2 * z - 3 * z) / 24 - g * g * (2 * z2 * z - 5 * z) / 36
    let x = (n * p - 0.5 + s * w).rounded(.up)
    return Int(min(max(x, 0), n))
  }

  /// Exact inversion: sums the pmf from 0 (p ≤ ½) or from n (p > ½).
  func invertedQuantile(normalDeviate z: Double) -> Int {
    if probability <= 0.5 {
      let u = Normal.standardCDF(z)
      var k = 0
      var cumulative = pmf(0)
      while cumulative < u, k < trials {
        k += 1
        cumulative += pmf(k)
      }
      return k
    }
    // P(X > k) ≤ 1 − u for the smallest such k, accumulated from the top.
    let tail = Normal.standardCDF(-z)
    var k = trials
    var survival = 0.0
    while k > 0, survival + pmf(k) <= tail {
      survival += pmf(k)
      k -= 1
    }
    return k
  }
}
