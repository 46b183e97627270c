import Foundation

/// Exact draws from the binomial distribution `Binomial(n, p)`, from any
/// generator's top-53-bit unit doubles, so that results do not depend on the
/// standard library's sampling algorithms.
///
/// With `r = min(p, 1 − p)` (a draw for `p > ½` is `n − X`, `X ~ Binomial(n, 1 − p)`):
/// - `n·r < 30`: **inversion** by the pmf recurrence
///   `f(0) = (1 − r)ⁿ`, `f(k) = f(k − 1) · (n − k + 1)·r / (k·(1 − r))`: one uniform, `O(1 + n·r)`
///   steps. As in NumPy, a search that runs past `n·r + 10·√(n·r·(1 − r) + 1)` restarts
///   with a fresh uniform; the mass beyond that bound is below 10⁻¹³ for `n·r < 30`,
///   so the restart changes the distribution by less than that.
/// - `n·r ≥ 30`: **BTPE** (Kachitvichyanukul & Schmeiser, "Binomial random variate
///   generation", CACM 31(2), 1988): acceptance–rejection from a triangle, two
///   parallelograms and two exponential tails, with the squeeze of step 5.2 and the
///   Stirling-series bound on `ln f(y)/f(M)`. Exact (up to double rounding) in
///   `O(1)` expected time, about two uniforms per draw. The code follows NumPy's
///   `random_binomial_btpe`.
///
/// - Complexity: expected `O(1 + min(n·r, 30))` per draw, no allocation.
public enum BinomialSampler {
  /// `n·min(p, 1 − p)` from which BTPE replaces inversion.
  public static let btpeThreshold = 30.0

  /// One draw of `Binomial(trials, probability)`; `probability` is clamped to [0, 1].
  public static func sample(trials: UInt64, probability: Double, using rng: inout some RandomNumberGenerator) -> UInt64 {
    guard trials > 0, probability > 0 else { return 0 }
    guard probability < 1 else { return trials }
    let r = min(probability, 1 - probability)
    let n = Double(trials)
    let y = n * r < btpeThreshold ? inversion(n: n, r: r, using: &rng) : btpe(n: n, r: r, using: &rng)
    let x = UInt64(min(max(y, 0), n))
    return probability > 0.5 ? trials - x : x
  }

  /// Inversion for `n·r < 30`, `r ≤ ½`; returns the count as a whole Double.
  static func inversion(n: Double, r: Double, using rng: inout some RandomNumberGenerator) -> Double {
    let q = 1 - r
    let q0 = exp(n * log1p(-r))
    let np = n * r
    let bound = min(n, np + 10 * (np * q + 1).squareRoot())
    var x = 0.0
    var px = q0
    var u = rng.nextUnitDouble()
    while u > px {
      x += 1
      if x > bound {
        x = 0
        px = q0
        u = rng.nextUnitDouble()
      } else {
        u -= px
        px = (n - x + 1) * r * px / (x * q)
      }
    }
    return x
  }

  /// BTPE for `n·r ≥ 30`, `r ≤ ½`; returns the count as a whole Double.
  static func btpe(n: Double, r: Double, using rng: inout some RandomNumberGenerator) -> Double {
    // Step 0: set-up, constant for given (n, r).
    let q = 1 - r
    let fm = n * r + r
    let m = fm.rounded(.down)
    let nrq = n * r * q
    let p1 = (2.195 * nrq.squareRoot() - 4.6 * q).rounded(.down) + 0.5
    let xm = m + 0.5
    let xl = xm - p1
    let xr = xm + p1
    let c = 0.134 + 20.5 / (15.3 + m)
    var a = (fm - xl) / (fm - xl * r)
    let lambdaL = a * (1 + a / 2)
    a = (xr - fm) / (xr * q)
    let lambdaR = a * (1 + a / 2)
    let p2 = p1 * (1 + 2 * c)
    let p3 = p2 + c / lambdaL
    let p4 = p3 + c / lambdaR
    while true {
      // Step 1: the triangle, accepted at once.
      let u = rng.nextUnitDouble() * p4
      var v = rng.nextUnitDouble()
      if u <= p1 { return (xm - p1 * v + u).rounded(.down) }
      let y: Double
      if u <= p2 {
        // Step 2: the parallelograms.
        let x = xl + (u - p1) / c
        v = v * c + 1 - abs(m - x + 0.5) / p1
        if v > 1 { continue }
        y = x.rounded(.down)
      } else if u <= p3 {
        // Step 3: the left exponential tail.
        if v == 0 { continue }
        y = (xl + log(v) / lambdaL).rounded(.down)
        if y < 0 { continue }
        v = v * (u - p2) * lambdaL
      } else {
        // Step 4: the right exponential tail.
        if v == 0 { continue }
        y = (xr - log(v) / lambdaR).rounded(.down)
        if y > n { continue }
        v = v * (u - p3) * lambdaR
      }
      let k = abs(y - m)
      if !(k > 20 && k < nrq / 2 - 1) {
        // Step 5.1: f(y)/f(M) by the recurrence.
        if v > recurrenceRatio(n: n, r: r, q: q, m: m, y: y) { continue }
        return y
      }
      // Step 5.2: squeeze on ln v, then the Stirling bound of step 5.3.
      let rho = (k / nrq) * ((k * (k / 3 + 0.625) + 0.16666666666666666) / nrq + 0.5)
      let t = -k * k / (2 * nrq)
      let logV = log(v)
      if logV < t - rho { return y }
      if logV > t + rho { continue }
      if logV > stirlingBound(n: n, r: r, q: q, m: m, xm: xm, y: y) { continue }
      return y
    }
  }

  /// BTPE step 5.1: `f(y)/f(M)` by the recurrence `f(i)/f(i−1) = (n − i + 1)·r/(i·q)`.
  @inline(__always) private static func recurrenceRatio(n: Double, r: Double, q: Double, m: Double, y: Double) -> Double {
    let s = r / q
    let sa = s * (n + 1)
    var f = 1.0
    if m < y {
      var i = m + 1
      while i <= y {
        f *= sa / i - s
        i += 1
      }
    } else if m > y {
      var i = y + 1
      while i <= m {
        f /= sa / i - s
        i += 1
      }
    }
    return f
  }

  /// BTPE step 5.3: the Stirling-series upper bound on `ln f(y)/f(M)`.
  @inline(__always) private static func stirlingBound(n: Double, r: Double, q: Double, m: Double, xm: Double, y: Double) -> Double {
    let x1 = y + 1
    let f1 = m + 1
    let z = n + 1 - m
    let w = n - y + 1
    return xm * log(f1 / x1) + (n - m + 0.5) * log(z / w) + (y - m) * log(w * r / (x1 * q))
      + stirlingTail(f1) + stirlingTail(z) + stirlingTail(x1) + stirlingTail(w)
  }

  /// The Stirling-series correction `1/(12a) − 1/(360a³) + 1/(1260a⁵) − …` as BTPE writes it.
  @inline(__always) static func stirlingTail(_ a: Double) -> Double {
    let a2 = a * a
    return (13680 - (462 - (132 - (99 - 140 / a2) / a2) / a2) / a2) / a / 166320
  }
}
