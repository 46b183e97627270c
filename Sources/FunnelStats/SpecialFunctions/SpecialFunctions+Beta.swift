import Foundation

extension SpecialFunctions {
  /// The regularized incomplete beta function
  /// `I_x(a, b) = 1/B(a, b) ∫₀ˣ t^{a−1} (1−t)^{b−1} dt`, for `a, b > 0`, `0 ≤ x ≤ 1`.
  ///
  /// Continued fraction (modified Lentz, Numerical Recipes §6.4) on whichever side converges;
  /// the prefactor `xᵃ(1−x)ᵇ / B(a, b)` is computed as
  /// `(a+b)[x₀·log1pmx(d/x₀) + y₀·log1pmx(−d/y₀)] + ½ log(ab / 2π(a+b)) + δ(a+b) − δ(a) − δ(b)`
  /// with `x₀ = a/(a+b)`, `d = x − x₀` and Stirling remainders δ, so that binomial tails at
  /// `n = 10⁹` keep ~1e-13 relative precision.
  ///
  /// - Complexity: O(√max(a, b)) iterations near the mean, O(1) in the tails.
  public static func regularizedBeta(_ a: Double, _ b: Double, _ x: Double) -> Double {
    incompleteBeta(a, b, x: x, y: 1 - x).lower
  }

  /// `1 − I_x(a, b)`, computed directly when it is the smaller side.
  ///
  /// - Complexity: as ``regularizedBeta(_:_:_:)``.
  public static func complementedRegularizedBeta(_ a: Double, _ b: Double, _ x: Double) -> Double {
    incompleteBeta(a, b, x: x, y: 1 - x).upper
  }

  /// `log(xᵃ yᵇ / B(a, b))` with `y = 1 − x` given separately for precision.
  internal static func logBetaPrefactor(_ a: Double, _ b: Double, x: Double, y: Double) -> Double {
    if x == 0 || y == 0 { return -.infinity }
    let s = a + b
    if s < 20 && min(a, b) > 0 {
      return a * log(x) + b * log(y) - logBeta(a, b)
    }
    let x0 = a / s
    let y0 = b / s
    let d = x <= 0.5 ? x - x0 : y0 - y
    // x₀·[log(x/x₀) − d/x₀] + y₀·[log(y/y₀) + d/y₀]; log1pmx only where 1 + d/x₀ is not
    // itself the result of cancellation.
    func piece(_ v: Double, _ v0: Double, _ dv: Double) -> Double {
      let t = dv / v0
      return abs(t) < 0.5 ? v0 * log1pmx(t) : v0 * log(v / v0) - dv
    }
    let main = s * (piece(x, x0, d) + piece(y, y0, -d))
    return main + 0.5 * log(a * (b / s) / (2 * Double.pi)) + stirlingError(s) - stirlingError(a)
      - stirlingError(b)
  }

  /// Both `I_x(a, b)` and `1 − I_x(a, b)`; the side whose continued fraction converges
  /// (`x < (a+1)/(a+b+2)`) is computed directly and the other by complement.
  internal static func incompleteBeta(_ a: Double, _ b: Double, x: Double, y: Double) -> (
    lower: Double, upper: Double
  ) {
    guard a > 0, b > 0, x >= 0, y >= 0, !x.isNaN, !y.isNaN, a.isFinite, b.isFinite else {
      return (.nan, .nan)
    }
    if x == 0 { return (0, 1) }
    if y == 0 { return (1, 0) }
    let logPrefactor = logBetaPrefactor(a, b, x: x, y: y)
    if x < (a + 1) / (a + b + 2) {
      let v = exp(logPrefactor) * betaContinuedFraction(a, b, x: x, y: y) / a
      return (v, 1 - v)
    } else {
      let v = exp(logPrefactor) * betaContinuedFraction(b, a, x: y, y: x) / b
      return (1 - v, v)
    }
  }

  /// The continued fraction for `I_x(a, b)` (Numerical Recipes `betacf`), modified Lentz.
  internal static func betaContinuedFraction(_ a: Double, _ b: Double, x: Double, y: Double)
    -> Double
  {
    let tiny = 1e-300
    let qab = a + b
    let qap = a + 1
    let qam = a - 1
    var c = 1.0
    // 1 − (a+b)x/(a+1) = (a + 1 − (a+b)x)/(a+1) = (1 − b + (a+b)y)/(a+1), without cancellation.
    var d = x <= 0.5 ? (a + 1 - qab * x) / qap : ((1 - b) + qab * y) / qap
    if x <= 0.5 { d = fma(-qab, x, a + 1) / qap }
    if abs(d) < tiny { d = tiny }
    d = 1 / d
    var h = d
    var m = 1.0
    while m < 10_000_000 {
      let m2 = 2 * m
      var aa = m * (b - m) * x / ((qam + m2) * (a + m2))
      d = 1 + aa * d
      if abs(d) < tiny { d = tiny }
      c = 1 + aa / c
      if abs(c) < tiny { c = tiny }
      d = 1 / d
      h *= d * c
      aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
      d = 1 + aa * d
      if abs(d) < tiny { d = tiny }
      c = 1 + aa / c
      if abs(c) < tiny { c = tiny }
      d = 1 / d
      let delta = d * c
      h *= delta
      if abs(delta - 1) <= 3e-16 { break }
      m += 1
    }
    return h
  }

  /// The inverse of the regularized incomplete beta function: the `x` in `[0, 1]` with
  /// `I_x(a, b) = p`, returned with `y = 1 − x` computed without cancellation.
  ///
  /// Pass `q = 1 − p` when it is known more precisely than `p`. The smaller of `p` and `q`
  /// is matched: for `q < p` the problem is turned into `I_y(b, a) = q`. Safeguarded Newton
  /// steps on the log of the tail from the Numerical Recipes (AS 109-type) starting value.
  ///
  /// - Complexity: typically 4–10 evaluations of the incomplete beta function.
  public static func inverseRegularizedBeta(_ a: Double, _ b: Double, p: Double, q: Double? = nil)
    -> (x: Double, y: Double)
  {
    let q = q ?? (1 - p)
    guard a > 0, b > 0, p >= 0, q >= 0, !p.isNaN, !q.isNaN else { return (.nan, .nan) }
    if p == 0 { return (0, 1) }
    if q == 0 { return (1, 0) }
    // Solve in whichever of x, y = 1 − x is below ½, so that it keeps full relative precision.
    let atHalf = incompleteBeta(a, b, x: 0.5, y: 0.5)
    if p <= atHalf.lower {
      let x = solveBeta(a, b, p: p, q: q)
      return (x, 1 - x)
    } else {
      let y = solveBeta(b, a, p: q, q: p)
      return (1 - y, y)
    }
  }

  /// Solves `I_x(a, b) = p` (with `1 − I_x(a, b) = q`) for a root `x ≤ ½`, matching the
  /// smaller of `p` and `q`.
  private static func solveBeta(_ a: Double, _ b: Double, p: Double, q: Double) -> Double {
    var x: Double
    if a >= 1 && b >= 1 {
      let z = -Normal.standardQuantile(p: p, q: q)  // upper quantile of p
      let al = (z * z - 3) / 6
      let h = 2 / (1 / (2 * a - 1) + 1 / (2 * b - 1))
      let w = z * sqrt(al + h) / h - (1 / (2 * b - 1) - 1 / (2 * a - 1)) * (al + 5.0 / 6 - 2 / (3 * h))
      x = a / (a + b * exp(2 * w))
    } else {
      let lna = log(a / (a + b))
      let lnb = log(b / (a + b))
      let t = exp(a * lna) / a
      let u = exp(b * lnb) / b
      let w = t + u
      if p < t / w {
        x = pow(a * w * p, 1 / a)
      } else {
        x = 1 - pow(b * w * q, 1 / b)
      }
    }
    if !(x > 0 && x <= 0.5) { x = min(0.25, a / (a + b)) }
    let useLower = p <= q
    return _TailInversion.solve(
      target: useLower ? p : q,
      increasing: useLower,
      lowerBound: 0,
      upperBound: 0.5,
      start: x,
      tail: { xx in
        let ib = incompleteBeta(a, b, x: xx, y: 1 - xx)
        return useLower ? ib.lower : ib.upper
      },
      density: { xx in exp(logBetaPrefactor(a, b, x: xx, y: 1 - xx)) / (xx * (1 - xx)) }
    )
  }
}
