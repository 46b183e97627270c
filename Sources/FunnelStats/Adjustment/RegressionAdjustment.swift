import Foundation

/// Covariate adjustment of a difference of means by Lin's interacted regression (Lin
/// 2013), with heteroskedasticity-robust standard errors, as statsmodels
/// `OLS(y, [1, T, z − z̄, T·(z − z̄)]).fit(cov_type: "HC0"…"HC3")` reports for the
/// coefficient of `T`.
///
/// `z` holds each user's covariates measured before assignment (a pre-period metric,
/// the 0/1 indicators of observable strata, or both), `z̄` their mean over both arms.
/// Fitting the interacted model is fitting each arm on its own, `y = αₐ + βₐ·(z − z̄)`,
/// so the adjusted difference is `τ = α₁ − α₀` (each arm's prediction at the pooled
/// covariate mean) and its robust variance is the sum of the arms' sandwich variances
/// of `αₐ`, `Σᵢ ωᵢ·(cₐ·rᵢ)²` with `cₐ = (Xₐ′Xₐ)⁻¹e₀` and `ωᵢ` from the residual `eᵢ` and the
/// leverage `hᵢ` (within the arm, since the hat matrix is block diagonal):
///
/// | kind | `ωᵢ` | factor |
/// |---|---|---|
/// | HC0 | `eᵢ²` | 1 |
/// | HC1 | `eᵢ²` | `n/(n − k)`, `k = 2(1 + q)` |
/// | HC2 | `eᵢ²/(1 − hᵢ)` | 1 |
/// | HC3 | `eᵢ²/(1 − hᵢ)²` | 1 |
/// | classical | `s² = Σe²/(n − k)` pooled | `s²·(cₐ)₀` per arm |
///
/// With strata indicators only, `τ` is the post-stratified difference (the arms'
/// stratum means weighted by the pooled stratum shares); with the pre-period metric
/// only it is CUPED with a slope per arm. The interval and p-value use the normal
/// distribution (statsmodels' default for robust covariances). The unadjusted
/// comparison is the same regression without covariates (`y = α + τT`), under the
/// same kind of standard error, so that ``Result/varianceReduction`` compares like with like.
///
/// Two inputs: per-user rows (every kind), or per-stratum power sums
/// (``StratumSums``: HC0, HC1 and classical, which need no leverages), which is how
/// the simulator and aggregated data files report users.
///
/// - Complexity: per-user rows O(n·p²) with `p = 1 + q`; sums O(strata·p²).
public enum RegressionAdjustment {
  /// The method name carried by results.
  public static let methodName = "regression adjustment (Lin)"
  /// The most covariates (columns of `z`) one comparison takes.
  public static let maxCovariates = 32

  /// The kind of standard error.
  public enum StandardError: String, Sendable, Hashable, Codable, CaseIterable {
    /// White's heteroskedasticity-robust sandwich.
    case hc0
    /// HC0 times `n/(n − k)` (Stata's `robust`): the default.
    case hc1
    /// Residuals scaled by `1/(1 − h)`: unbiased under homoskedasticity (needs per-user rows).
    case hc2
    /// Residuals scaled by `1/(1 − h)²`, the jackknife's (needs per-user rows).
    case hc3
    /// Homoskedastic, pooled over both arms (statsmodels' `nonrobust`).
    case classical
  }

  /// One arm's users: an outcome and `q` covariates each (`covariates[i]` of user `i`; every row the same length).
  public struct Arm: Sendable, Hashable {
    /// The outcome per user.
    public var outcomes: [Double]
    /// The covariates per user (`[]` rows for none).
    public var covariates: [[Double]]

    /// An arm's users.
    public init(outcomes: [Double], covariates: [[Double]]) {
      self.outcomes = outcomes
      self.covariates = covariates
    }
  }

  /// The adjusted and unadjusted comparison of treatment with control.
  public struct Result: Sendable, Hashable, Codable {
    /// `z = τ / SE` against the null difference, p from the normal distribution.
    public var test: TestResult
    /// The adjusted difference `τ` and its interval.
    public var difference: IntervalEstimate
    /// The standard error of `τ`.
    public var standardError: Double
    /// Each arm's adjusted mean `αₐ` (its prediction at the pooled covariate mean): control, then treatment.
    public var adjustedMeans: [Double]
    /// The difference of raw means.
    public var unadjustedDifference: Double
    /// The standard error of the difference of raw means, of the same kind.
    public var unadjustedStandardError: Double
    /// `1 − SE²/SE²_unadjusted`: the share of the variance the covariates remove (an estimate of R²); negative when they add noise.
    public var varianceReduction: Double
    /// The kind of standard error.
    public var kind: StandardError
  }

  /// Compares per-user rows.
  /// - Throws: ``StatsError`` for arms with fewer rows than parameters, ragged or
  ///   non-finite covariates, collinear covariates within an arm, a leverage of 1
  ///   under HC2/HC3, or a confidence level outside (0, 1).
  public static func compare(
    treatment: Arm, control: Arm, standardError kind: StandardError = .hc1, alternative: Alternative = .twoSided,
    nullDifference: Double = 0, confidenceLevel: Double = 0.95
  ) throws(StatsError) -> Result {
    try checkLevel(confidenceLevel)
    let q = try covariateCount(control, field: [.name(.control)])
    guard try covariateCount(treatment, field: [.name(.treatment)]) == q else {
      throw StatsError(
        .dimensionMismatch, field: [.name(.treatment), .name(.covariates)], message: "the arms have different numbers of covariates")
    }
    var pooled = [Double](repeating: 0, count: q)
    for row in control.covariates + treatment.covariates { for j in 0..<q { pooled[j] += row[j] } }
    let total = control.outcomes.count + treatment.outcomes.count
    for j in 0..<q { pooled[j] /= Double(total) }
    let fits = try [control, treatment].enumerated().map { k, arm throws(StatsError) in
      let field: StatsError.Field = [.name(k == 0 ? .control : .treatment)]
      let adjusted = try fitRows(arm.outcomes, arm.covariates.map { zip($0, pooled).map { $0 - $1 } }, kind: kind, field: field)
      let plain = try fitRows(arm.outcomes, [[Double]](repeating: [], count: arm.outcomes.count), kind: kind, field: field)
      return (adjusted, plain)
    }
    return combine(
      adjusted: (fits[0].0, fits[1].0), unadjusted: (fits[0].1, fits[1].1), parameters: 1 + q, users: Double(total), kind: kind,
      alternative: alternative, nullDifference: nullDifference, confidenceLevel: confidenceLevel)
  }

  /// Compares arms given as strata of power sums (the same strata, in the same order,
  /// in both arms), adjusting for the strata's indicators (`strata`) and/or the
  /// pre-period covariate (`covariate`); with neither, the result is the unadjusted one.
  /// - Throws: ``StatsError`` for HC2/HC3 (they need per-user rows), a stratum list that
  ///   differs between arms, a stratum without users in an arm (when adjusting for
  ///   strata), a covariate with no variance within an arm, or a confidence level outside (0, 1).
  public static func compare(
    treatment: [StratumSums], control: [StratumSums], strata: Bool, covariate: Bool, standardError kind: StandardError = .hc1,
    alternative: Alternative = .twoSided, nullDifference: Double = 0, confidenceLevel: Double = 0.95
  ) throws(StatsError) -> Result {
    try checkLevel(confidenceLevel)
    guard kind != .hc2, kind != .hc3 else {
      throw StatsError(
        .invalidParameter, field: [.name(.standardError)], message: "\(kind.rawValue) needs per-user rows",
        hint: "use hc0, hc1 or classical")
    }
    guard treatment.count == control.count, !control.isEmpty else {
      throw StatsError(
        .dimensionMismatch, field: [.name(.treatment)], message: "the arms have \(treatment.count) and \(control.count) strata")
    }
    for (arm, field) in [(control, StatsError.Field([.name(.control)])), (treatment, StatsError.Field([.name(.treatment)]))] {
      for (k, stratum) in arm.enumerated() {
        guard stratum.sums.count == StratumSums.monomials.count, stratum.sums.allSatisfy(\.isFinite), stratum.shift.isFinite,
          stratum.users >= 0
        else {
          throw StatsError(
            .invalidParameter, field: field.appending(.name(.strata), .index(k)),
            message: "a stratum needs \(StratumSums.monomials.count) finite sums and a user count ≥ 0")
        }
      }
    }
    // A stratum without users in either arm carries no information: it is left out.
    let kept = control.indices.filter { control[$0].users + treatment[$0].users > 0 }
    let control = kept.map { control[$0] }
    let treatment = kept.map { treatment[$0] }
    guard !control.isEmpty else { throw StatsError(.emptyArm, field: [.name(.control)], message: "no users in either arm") }
    let design = _StrataDesign(control: control, treatment: treatment, strata: strata && control.count > 1, covariate: covariate)
    let plain = _StrataDesign(control: control, treatment: treatment, strata: false, covariate: false)
    let arms = [control, treatment]
    var adjusted: [_ArmFit] = []
    var unadjusted: [_ArmFit] = []
    for (k, arm) in arms.enumerated() {
      let field: StatsError.Field = [.name(k == 0 ? .control : .treatment)]
      adjusted.append(try design.fit(arm, field: field))
      unadjusted.append(try plain.fit(arm, field: field))
    }
    return combine(
      adjusted: (adjusted[0], adjusted[1]), unadjusted: (unadjusted[0], unadjusted[1]), parameters: design.parameters,
      users: design.users, kind: kind, alternative: alternative, nullDifference: nullDifference, confidenceLevel: confidenceLevel)
  }

  /// The population variance of `y` left after its best linear predictor from
  /// covariates `z` (with an intercept), `Var(y) − c′Σ⁻¹c` with `c = Cov(z, y)` and
  /// `Σ = Cov(z)` (row-major, `q × q`): the per-user variance the adjusted estimator's
  /// standard error is made of, so `1 − residual/Var(y)` is the variance an adjustment
  /// removes (the population R²). `nil` when `Σ` is singular or the sizes disagree.
  public static func residualVariance(outcomeVariance: Double, covariances c: [Double], covariateCovariance sigma: [Double])
    -> Double?
  {
    guard !c.isEmpty else { return outcomeVariance }
    guard sigma.count == c.count * c.count, let solver = _SymmetricSolve(sigma, size: c.count) else { return nil }
    let explained = _dot(c, solver.solve(c))
    return max(outcomeVariance - explained, 0)
  }

  /// The number of covariates of `arm`, checked: finite, rectangular, enough rows.
  static func covariateCount(_ arm: Arm, field: StatsError.Field) throws(StatsError) -> Int {
    guard arm.covariates.count == arm.outcomes.count else {
      throw StatsError(
        .dimensionMismatch, field: field.appending(.name(.covariates)),
        message: "\(arm.covariates.count) covariate rows for \(arm.outcomes.count) outcomes")
    }
    let q = arm.covariates.first?.count ?? 0
    guard q <= maxCovariates else {
      throw StatsError(
        .invalidParameter, field: field.appending(.name(.covariates)), message: "at most \(maxCovariates) covariates, got \(q)")
    }
    for (i, row) in arm.covariates.enumerated() where row.count != q || !row.allSatisfy(\.isFinite) {
      throw StatsError(
        .invalidParameter, field: field.appending(.name(.covariates), .index(i)), message: "a row of \(q) finite covariates is needed")
    }
    for (i, y) in arm.outcomes.enumerated() where !y.isFinite {
      throw StatsError(.invalidParameter, field: field.appending(.name(.outcomes), .index(i)), message: "outcome is not finite")
    }
    return q
  }

  /// One arm's regression on rows `[1, zc]`.
  static func fitRows(_ y: [Double], _ zc: [[Double]], kind: StandardError, field: StatsError.Field) throws(StatsError) -> _ArmFit {
    let p = 1 + (zc.first?.count ?? 0)
    guard y.count > p else {
      throw StatsError(
        .emptyArm, field: field, message: "\(y.count) users for \(p) parameters", hint: "an arm needs more users than parameters")
    }
    var a = [Double](repeating: 0, count: p * p)
    var b = [Double](repeating: 0, count: p)
    for (yi, z) in zip(y, zc) {
      let r: [Double] = [1] + z
      for i in 0..<p {
        b[i] += r[i] * yi
        for j in 0..<p { a[i * p + j] += r[i] * r[j] }
      }
    }
    guard let solver = _SymmetricSolve(a, size: p) else {
      throw StatsError(
        .invalidParameter, field: field.appending(.name(.covariates)), message: "the covariates are collinear within the arm")
    }
    let beta = solver.solve(b)
    var unit = [Double](repeating: 0, count: p)
    unit[0] = 1
    let c = solver.solve(unit)
    var meat = 0.0
    var rss = 0.0
    for (yi, z) in zip(y, zc) {
      let r: [Double] = [1] + z
      var fitted = 0.0
      var weight = 0.0
      for i in 0..<p {
        fitted += beta[i] * r[i]
        weight += c[i] * r[i]
      }
      let e = yi - fitted
      var omega = e * e
      rss += omega
      if kind == .hc2 || kind == .hc3 {
        let h = _dot(r, solver.solve(r))
        guard h < 1 - 1e-10 else {
          throw StatsError(.invalidParameter, field: field, message: "a user has leverage 1", hint: "use hc0 or hc1")
        }
        omega /= kind == .hc2 ? 1 - h : (1 - h) * (1 - h)
      }
      meat += omega * weight * weight
    }
    return _ArmFit(intercept: beta[0], meat: meat, residualSquares: rss, inverseIntercept: c[0])
  }

  static func combine(
    adjusted: (_ArmFit, _ArmFit), unadjusted: (_ArmFit, _ArmFit), parameters p: Int, users n: Double, kind: StandardError,
    alternative: Alternative, nullDifference: Double, confidenceLevel: Double
  ) -> Result {
    let variance = _ArmFit.variance(adjusted.0, adjusted.1, parameters: p, users: n, kind: kind)
    let plainVariance = _ArmFit.variance(unadjusted.0, unadjusted.1, parameters: 1, users: n, kind: kind)
    let tau = adjusted.1.intercept - adjusted.0.intercept
    let se = variance.squareRoot()
    let diagnostic: Diagnostic? = se > 0 ? nil : .zeroVariance
    let z = se > 0 ? (tau - nullDifference) / se : 0
    let p: Double
    if se > 0 {
      p = normalPValue(z, alternative)
    } else {
      switch alternative {
      case .twoSided: p = tau == nullDifference ? 1 : 0
      case .greater: p = tau > nullDifference ? 0 : 1
      case .less: p = tau < nullDifference ? 0 : 1
      }
    }
    let half = Normal.standardQuantile(p: 1 - (1 - confidenceLevel) / 2, q: (1 - confidenceLevel) / 2) * se
    let interval: ConfidenceInterval =
      switch alternative {
      case .twoSided: ConfidenceInterval(lower: tau - half, upper: tau + half, confidenceLevel: confidenceLevel, method: "lin")
      case .greater:
        ConfidenceInterval(
          lower: tau - Normal.standardQuantile(p: confidenceLevel, q: 1 - confidenceLevel) * se, upper: .infinity,
          confidenceLevel: confidenceLevel, method: "lin")
      case .less:
        ConfidenceInterval(
          lower: -.infinity, upper: tau + Normal.standardQuantile(p: confidenceLevel, q: 1 - confidenceLevel) * se,
          confidenceLevel: confidenceLevel, method: "lin")
      }
    return Result(
      test: TestResult(statistic: z, pValue: p, alternative: alternative, method: methodName, diagnostic: diagnostic),
      difference: IntervalEstimate(estimate: tau, interval: interval, diagnostic: diagnostic), standardError: se,
      adjustedMeans: [adjusted.0.intercept, adjusted.1.intercept],
      unadjustedDifference: unadjusted.1.intercept - unadjusted.0.intercept, unadjustedStandardError: plainVariance.squareRoot(),
      varianceReduction: plainVariance > 0 ? 1 - variance / plainVariance : 0, kind: kind)
  }
}

/// One arm's fit: its intercept (the adjusted mean), the robust meat `Σωᵢ(c·rᵢ)²`, the
/// residual sum of squares and `(X′X)⁻¹₀₀`.
struct _ArmFit {
  var intercept: Double
  var meat: Double
  var residualSquares: Double
  var inverseIntercept: Double

  /// The variance of the difference of the two arms' intercepts, from a model with `p`
  /// parameters per arm over `n` users in all.
  static func variance(_ a: _ArmFit, _ b: _ArmFit, parameters p: Int, users n: Double, kind: RegressionAdjustment.StandardError)
    -> Double
  {
    let k = 2 * Double(p)
    switch kind {
    case .hc0, .hc2, .hc3: return a.meat + b.meat
    case .hc1: return n > k ? (a.meat + b.meat) * n / (n - k) : .infinity
    case .classical:
      let s2 = n > k ? (a.residualSquares + b.residualSquares) / (n - k) : .infinity
      return s2 * (a.inverseIntercept + b.inverseIntercept)
    }
  }
}

/// The design of a comparison from strata sums: columns `[1, stratum indicators 1…S−1,
/// x]` centred at their pooled means. A stratum's users have rows `v_s + x′·ê`, affine in
/// `x′`, so every sum the fit needs is a combination of the stratum's power sums.
struct _StrataDesign {
  let strata: Bool
  let covariate: Bool
  let count: Int
  let parameters: Int
  let users: Double
  /// Pooled means: stratum shares (index 1…S−1) and the covariate's mean.
  let shares: [Double]
  let covariateMean: Double

  init(control: [StratumSums], treatment: [StratumSums], strata: Bool, covariate: Bool) {
    self.strata = strata
    self.covariate = covariate
    count = control.count
    parameters = 1 + (strata ? count - 1 : 0) + (covariate ? 1 : 0)
    let pairs = zip(control, treatment)
    let total = pairs.reduce(0) { $0 + $1.0.users + $1.1.users }
    users = total
    shares = pairs.map { ($0.users + $1.users) / max(total, 1) }
    let xTotal = pairs.reduce(0.0) { t, s in t + s.0.sums[1] + s.0.users * s.0.shift + s.1.sums[1] + s.1.users * s.1.shift }
    covariateMean = xTotal / max(total, 1)
  }

  /// Stratum `s`'s row at `x′ = 0`.
  func row(_ s: Int, shift: Double) -> [Double] {
    var v = [1.0]
    if strata { for j in 1..<count { v.append((s == j ? 1 : 0) - shares[j]) } }
    if covariate { v.append(shift - covariateMean) }
    return v
  }

  /// The direction `x′` moves a row in.
  var slope: [Double] {
    var e = [Double](repeating: 0, count: parameters)
    if covariate { e[parameters - 1] = 1 }
    return e
  }

  func fit(_ arm: [StratumSums], field: StatsError.Field) throws(StatsError) -> _ArmFit {
    let p = parameters
    let armUsers = arm.reduce(0) { $0 + $1.users }
    guard armUsers > Double(p) else {
      throw StatsError(.emptyArm, field: field, message: "\(armUsers) users for \(p) parameters")
    }
    if strata {
      for (s, stratum) in arm.enumerated() where stratum.users == 0 {
        throw StatsError(
          .emptyArm, field: field.appending(.name(.strata), .index(s)), message: "the stratum has no users in this arm",
          hint: "merge it with another stratum or adjust without strata")
      }
    }
    let e = slope
    var a = [Double](repeating: 0, count: p * p)
    var b = [Double](repeating: 0, count: p)
    for (s, st) in arm.enumerated() {
      let v = row(s, shift: st.shift)
      let (n, s1, s2, sy, sxy) = (st.users, st[x: 1, y: 0], st[x: 2, y: 0], st[x: 0, y: 1], st[x: 1, y: 1])
      for i in 0..<p {
        b[i] += sy * v[i] + sxy * e[i]
        for j in 0..<p {
          let level: Double = n * v[i] * v[j]
          let cross: Double = s1 * (v[i] * e[j] + e[i] * v[j])
          let square: Double = s2 * e[i] * e[j]
          a[i * p + j] += level + cross + square
        }
      }
    }
    guard let solver = _SymmetricSolve(a, size: p) else {
      throw StatsError(
        .invalidParameter, field: field.appending(.name(.covariate)), message: "the covariate does not vary within the arm",
        hint: "adjust without the covariate")
    }
    let beta = solver.solve(b)
    var unit = [Double](repeating: 0, count: p)
    unit[0] = 1
    let c = solver.solve(unit)
    let slopeB = _dot(beta, e)
    let slopeC = _dot(c, e)
    var meat = 0.0
    var rss = 0.0
    for (s, st) in arm.enumerated() where st.users > 0 {
      let v = row(s, shift: st.shift)
      let m = _dot(beta, v)
      let k = _dot(c, v)
      let residual = _Polynomial([(0, 1, 1), (0, 0, -m), (1, 0, -slopeB)])
      let weight = _Polynomial([(0, 0, k), (1, 0, slopeC)])
      let squared = residual * residual
      rss += squared.total(over: st)
      meat += (squared * weight * weight).total(over: st)
    }
    return _ArmFit(intercept: beta[0], meat: meat, residualSquares: rss, inverseIntercept: c[0])
  }
}

/// `Σ aᵢbᵢ`, summed left to right (a plain loop: the `zip(…).reduce` it replaces took the type
/// checker over a second per use).
@inline(__always)
private func _dot(_ a: [Double], _ b: [Double]) -> Double {
  var total = 0.0
  for i in 0..<min(a.count, b.count) { total += a[i] * b[i] }
  return total
}
