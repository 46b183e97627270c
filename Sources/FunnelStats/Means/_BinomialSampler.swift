import Foundation

/// Exact binomial variates by inversion, searching outward from the mode ("chop-down" search,
/// Kemp 1986): with `u` uniform, subtract `f(m)`, then `f(m−1)`, `f(m+1)`, `f(m−2)`, … until
/// `u` turns negative. This is inversion over a reordering of the support, so the draw has
/// exactly the binomial law (up to rounding of the pmf terms); `f(m)` comes from Loader's
/// saddle-point formula and the neighbours from the ratio recurrence.
///
/// - Complexity: O(√(npq)) expected steps, one uniform draw.
internal enum _BinomialSampler {
  static func draw(trials n: Double, probability p: Double, _ rng: inout Xoshiro256StarStar) -> Double {
    if n <= 0 || p <= 0 { return 0 }
    if p >= 1 { return n }
    let q = 1 - p
    let mode = min(n, ((n + 1) * p).rounded(.down))
    let fMode = Binomial.rawPMF(k: mode, n: n, p: p, q: q)
    var u = rng.nextUnitDouble() - fMode
    if u < 0 { return mode }
    let ratio = p / q
    var lo = mode
    var hi = mode
    var fLo = fMode
    var fHi = fMode
    while lo > 0 || hi < n {
      if lo > 0 {
        fLo *= lo / ((n - lo + 1) * ratio)
        lo -= 1
        u -= fLo
        if u < 0 { return lo }
      }
      if hi < n {
        fHi *= (n - hi) / (hi + 1) * ratio
        hi += 1
        u -= fHi
        if u < 0 { return hi }
      }
      // Only rounding residue (< 1e-15) is left: return the mode.
      if (lo == 0 || fLo < 1e-300 || fLo < 1e-18 * fMode) && (hi == n || fHi < 1e-300 || fHi < 1e-18 * fMode) {
        break
      }
    }
    return mode
  }
}
