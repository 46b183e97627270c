import Foundation

/// The score test for two independent proportions (Miettinen & Nurminen 1985), for a
/// difference `p₁ − p₀ = δ₀` or a ratio `p₁ / p₀ = ρ₀`, as statsmodels
/// `test_proportions_2indep(x₁, n₁, x₀, n₀, value=…, method="score", compare=…)` with its
/// default `correction=True`.
///
/// The variance is evaluated at the maximum-likelihood proportions `(p̃₁, p̃₀)` restricted to
/// the null (for the ratio: the root of a quadratic; for the difference: the maximiser of the
/// concave restricted log-likelihood, the root of the Miettinen–Nurminen cubic):
///
/// ```
/// difference:  z = (p̂₁ − p̂₀ − δ₀) / √(c · (p̃₁(1−p̃₁)/n₁ + p̃₀(1−p̃₀)/n₀)),   p̃₁ = p̃₀ + δ₀
/// ratio:       z = (p̂₁ − ρ₀ p̂₀) / √(c · (p̃₁(1−p̃₁)/n₁ + ρ₀² p̃₀(1−p̃₀)/n₀)),  p̃₁ = ρ₀ p̃₀
/// c = N/(N − 1), N = n₁ + n₀   (the Miettinen–Nurminen small-sample correction; c = 1 without it)
/// ```
/// two-sided `p = 2Φ(−|z|)`, greater `p = Φ(−z)`, less `p = Φ(z)`. At the null of equality
/// (`δ₀ = 0`, `ρ₀ = 1`) both are the pooled z-test scaled by `√((N−1)/N)`, so the score
/// p-value is slightly larger than the pooled z-test's. The test inverts exactly into
/// ``ProportionDifference/miettinenNurminenInterval(treatment:control:confidenceLevel:alternative:smallSampleCorrection:)``
/// and ``RelativeLift/scoreInterval(treatment:control:confidenceLevel:alternative:smallSampleCorrection:)``:
/// a null value lies outside the interval at level `1 − α` exactly when this test rejects it
/// at α. Every quantity near a rate of 1 is computed from the failures, so precision holds
/// at any n.
///
/// Note: statsmodels 0.14–0.15 has a wrong coefficient in the cubic for `compare="diff"` with
/// `value ≠ 0` (statsmodels issue #10269); FunnelStats maximises the restricted likelihood,
/// which is what the fixed statsmodels computes.
///
/// - Complexity: O(1) for a ratio; a bisection of ~100 steps for a non-zero difference.
public enum TwoProportionScoreTest {
  /// The method name carried by results.
  public static let methodName = "Miettinen-Nurminen score test"

  /// What the null hypothesis constrains.
  public enum Comparison: String, Sendable, Hashable, CaseIterable, Codable {
    /// `p₁ − p₀ = δ₀` (default `δ₀ = 0`).
    case difference
    /// `p₁ / p₀ = ρ₀` (default `ρ₀ = 1`).
    case ratio
  }

  /// Tests treatment (index 1) against control (index 0).
  ///
  /// Degenerate data: an empty arm throws; a zero restricted variance with a zero numerator
  /// (e.g. no successes anywhere under `δ₀ = 0`) returns `z = 0`, `p = 1` with
  /// ``Diagnostic/zeroVariance``; a zero variance with a non-zero numerator is certain
  /// evidence (`z = ±∞`).
  ///
  /// - Parameters:
  ///   - nullValue: `δ₀` in (−1, 1) or `ρ₀` > 0; `nil` for equality.
  ///   - smallSampleCorrection: the `N/(N−1)` variance factor (statsmodels' default `true`).
  /// - Throws: ``StatsError`` for an empty arm or a null value outside its range.
  public static func test(
    treatment: ProportionCount, control: ProportionCount, comparison: Comparison = .difference,
    nullValue: Double? = nil, alternative: Alternative = .twoSided, smallSampleCorrection: Bool = true
  ) throws(StatsError) -> TestResult {
    try checkArms(treatment, control)
    let z: Double
    switch comparison {
    case .difference:
      let d = nullValue ?? 0
      guard d > -1, d < 1 else {
        throw StatsError(.invalidParameter, field: [.name(.nullValue)], message: "a difference must be in (-1, 1), got \(d)")
      }
      z = differenceStatistic(treatment, control, difference: d, correction: smallSampleCorrection)
    case .ratio:
      let r = nullValue ?? 1
      guard r > 0, r.isFinite else {
        throw StatsError(.invalidParameter, field: [.name(.nullValue)], message: "a ratio must be positive and finite, got \(r)")
      }
      z = ratioStatistic(treatment, control, ratio: r, lift: r - 1, correction: smallSampleCorrection)
    }
    guard !z.isNaN else {
      return TestResult(statistic: 0, pValue: 1, alternative: alternative, method: methodName, diagnostic: .zeroVariance)
    }
    return TestResult(statistic: z, pValue: normalPValue(z, alternative), alternative: alternative, method: methodName)
  }

  static func checkArms(_ treatment: ProportionCount, _ control: ProportionCount) throws(StatsError) {
    guard treatment.trials > 0 else {
      throw StatsError(.emptyArm, field: [.name(.treatment), .name(.trials)], message: "has no users")
    }
    guard control.trials > 0 else {
      throw StatsError(.emptyArm, field: [.name(.control), .name(.trials)], message: "has no users")
    }
  }

  /// `num / √var` with `0/0 = NaN` (no evidence) and `x/0 = ±∞`.
  static func ratioOfDeviation(_ numerator: Double, variance: Double) -> Double {
    guard variance > 0 else { return numerator == 0 ? .nan : (numerator > 0 ? .infinity : -.infinity) }
    return numerator / variance.squareRoot()
  }

  /// The score statistic for `p₁ − p₀ = d`; NaN when numerator and variance are both zero.
  ///
  /// Solved in the orientation (successes or failures) where the restricted MLE lies in the
  /// lower half of its range, so that every proportion and its complement are sums of exact
  /// constants and a small unknown (no cancellation near rates of 0 or 1).
  static func differenceStatistic(_ t: ProportionCount, _ c: ProportionCount, difference d: Double, correction: Bool) -> Double {
    var a = _Arms(t, c)
    var delta = d
    var sign = 1.0
    if a.restrictedScore(delta, u: a.width(delta) / 2) > 0 {
      a = a.flipped
      delta = -delta
      sign = -1
    }
    let w = a.width(delta)
    // No sign change: the root is at an end (at w/2 only through rounding, when it is the middle).
    let u =
      _MonotoneRoot.solve(lower: 0, upper: w / 2) { a.restrictedScore(delta, u: $0) }
      ?? (a.restrictedScore(delta, u: 0) <= 0 ? 0 : w / 2)
    let (p1, q1, p0, q0) = _Arms.proportions(delta, u: u)
    var variance = p1 * q1 / a.n1 + p0 * q0 / a.n0
    if correction { variance *= (a.n1 + a.n0) / (a.n1 + a.n0 - 1) }
    return sign * ratioOfDeviation(a.x1 / a.n1 - a.x0 / a.n0 - delta, variance: variance)
  }

  /// The score statistic for `p₁ / p₀ = r`; NaN when numerator and variance are both zero.
  ///
  /// `p̃₀` is the smaller root of `N r p² − (n₁r + x₁ + n₀ + x₀r) p + x = 0`; `1 − p̃₀` and
  /// `1 − p̃₁` are the matching roots of the quadratics they satisfy, written with failures
  /// `fᵢ = nᵢ − xᵢ` and `ℓ = r − 1` (passed separately, exact near 1) so that no complement
  /// is formed by subtraction.
  static func ratioStatistic(
    _ t: ProportionCount, _ c: ProportionCount, ratio r: Double, lift l: Double, correction: Bool
  ) -> Double {
    let a = _Arms(t, c)
    let n = a.n1 + a.n0
    let x = a.x1 + a.x0
    let b = a.n1 * r + a.x1 + a.n0 + a.x0 * r
    // The three quadratics share one discriminant, b² − 4Nrx = (ℓ(n₁+x₀) + f₁ − f₀)² + 4r f₁f₀,
    // a sum of non-negative terms (b² − 4Nrx itself cancels to nothing near a double root).
    let shift = l * (a.n1 + a.x0) + a.f1 - a.f0
    let root = (shift * shift + 4 * r * a.f1 * a.f0).squareRoot()
    let p0 = x == 0 ? 0 : 2 * x / (b + root)
    let q0 = largerRoot(a: n * r, b: (n + a.f0) * l + a.f1 + a.f0, c: a.f0 * l, root: root)
    let s1 = largerRoot(a: n, b: a.f1 + a.f0 - (a.n1 + a.x0) * l, c: -a.f1 * l, root: root)
    let p1 = r * p0
    var variance = p1 * s1 / a.n1 + r * r * p0 * q0 / a.n0
    if correction { variance *= n / (n - 1) }
    let numerator =
      2 * x <= n ? a.x1 / a.n1 - r * (a.x0 / a.n0) : -l - a.f1 / a.n1 + r * (a.f0 / a.n0)
    return ratioOfDeviation(numerator, variance: variance)
  }

  /// `x₁n₀ − x₀n₁` with one rounding (fused multiply-adds), so that a difference or lift of
  /// nearly equal rates keeps full relative precision at any n.
  static func crossDifference(_ t: ProportionCount, _ c: ProportionCount) -> Double {
    let (x1, n1, x0, n0) = (Double(t.successes), Double(t.trials), Double(c.successes), Double(c.trials))
    let product = x0 * n1
    let error = fma(x0, n1, -product)
    return fma(x1, n0, -product) - error
  }

  /// `p̂₁ − p̂₀` to full relative precision.
  static func difference(_ t: ProportionCount, _ c: ProportionCount) -> Double {
    crossDifference(t, c) / Double(t.trials) / Double(c.trials)
  }

  /// `p̂₁/p̂₀ − 1` to full relative precision; `nil` without control successes.
  static func lift(_ t: ProportionCount, _ c: ProportionCount) -> Double? {
    c.successes > 0 ? crossDifference(t, c) / Double(c.successes) / Double(t.trials) : nil
  }

  /// The larger root of `a y² − b y + c = 0` (`a > 0`, real roots) given `√(b² − 4ac)`,
  /// without cancellation.
  static func largerRoot(a: Double, b: Double, c: Double, root: Double) -> Double {
    if b >= 0 { return (b + root) / (2 * a) }
    return b - root == 0 ? 0 : 2 * c / (b - root)
  }
}

/// Two arms' counts as doubles, with the restricted likelihood of a difference.
struct _Arms {
  var x1: Double, f1: Double, n1: Double, x0: Double, f0: Double, n0: Double

  init(_ t: ProportionCount, _ c: ProportionCount) {
    x1 = Double(t.successes)
    f1 = Double(t.trials - t.successes)
    n1 = Double(t.trials)
    x0 = Double(c.successes)
    f0 = Double(c.trials - c.successes)
    n0 = Double(c.trials)
  }

  /// Successes and failures swapped (`p → 1 − p`, `δ → −δ`).
  var flipped: _Arms {
    var a = self
    swap(&a.x1, &a.f1)
    swap(&a.x0, &a.f0)
    return a
  }

  /// The length of the feasible range of `p₀` under `p₁ = p₀ + d`.
  func width(_ d: Double) -> Double { 1 - abs(d) }

  /// `(p₁, 1 − p₁, p₀, 1 − p₀)` at distance `u` above the lower end of the feasible range.
  static func proportions(_ d: Double, u: Double) -> (Double, Double, Double, Double) {
    d >= 0 ? (d + u, (1 - d) - u, u, 1 - u) : (u, 1 - u, -d + u, (1 + d) - u)
  }

  /// The derivative of the restricted log-likelihood in `p₀`, decreasing in `u`.
  func restrictedScore(_ d: Double, u: Double) -> Double {
    let (p1, q1, p0, q0) = Self.proportions(d, u: u)
    var g = 0.0
    if x1 > 0 { g += x1 / p1 }
    if f1 > 0 { g -= f1 / q1 }
    if x0 > 0 { g += x0 / p0 }
    if f0 > 0 { g -= f0 / q0 }
    return g
  }
}
