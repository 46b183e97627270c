import Foundation

/// Power and sample size for comparing two groups with a normal-approximation test.
///
/// Every method reduces to one formula (statsmodels `normal_power_het`): with effect `d`,
/// group sizes `n₁` and `n₀ = r·n₁`, standard deviations of one unit's contribution to the
/// difference under the null (`σ₀`) and the alternative (`σ₁`), and `c = Φ⁻¹(1 − α')` where
/// `α' = α/2` (two-sided) or `α`:
///
/// ```
/// power = Φ̄((c·σ₀ − d·√n₁)/σ₁)       [greater, two-sided]
///       + Φ ((−c·σ₀ − d·√n₁)/σ₁)      [less, two-sided]
/// ```
///
/// | method | d | σ₀ | σ₁ | reference |
/// |---|---|---|---|---|
/// | ``Method/pooledNormal`` | p₁ − p₀ | √(p̄q̄(1 + 1/r)), p̄ = (p₁ + r p₀)/(1+r) | √(p₁q₁ + p₀q₀/r) | statsmodels `power_proportions_2indep`; Fleiss (1981) |
/// | ``Method/unpooledNormal`` | p₁ − p₀ | σ₁ | √(p₁q₁ + p₀q₀/r) | textbook Wald formula |
/// | ``Method/arcsine`` | h = 2 asin√p₁ − 2 asin√p₀ (Cohen's h) | √(1 + 1/r) | σ₀ | statsmodels `NormalIndPower` + `proportion_effectsize` |
/// | ``Method/means`` | Δ / σ (Cohen's d) | √(1 + 1/r) | σ₀ | statsmodels `NormalIndPower` |
///
/// Group 1 is the treatment (statsmodels' `nobs1`), group 0 the control, `r = n₀ / n₁`
/// (statsmodels' `ratio`). For the pooled and unpooled methods the sample size is the
/// classic closed form `n₁ = ((z_{α'}σ₀ + z_β σ₁)/d)²` (statsmodels
/// `samplesize_proportions_2indep_onetail`, Evan Miller's calculator), which ignores the far
/// rejection region of a two-sided test (so the reported power exceeds the target by ~1e-6).
/// For the arcsine and means methods, and for every solve for the effect or α, the power
/// equation (both tails) is inverted to full double precision by bisection, as statsmodels'
/// `solve_power` does to its root-finder tolerance (~1e-8).
///
/// - Complexity: power O(1); a solve O(100) power evaluations.
public enum PowerAnalysis {
  /// The test whose power is computed.
  public enum Method: String, Sendable, Hashable, Codable, CaseIterable {
    /// Two proportions, pooled variance under the null (the z-test actually used).
    case pooledNormal = "pooled normal"
    /// Two proportions, unpooled variance under null and alternative.
    case unpooledNormal = "unpooled normal"
    /// Two proportions via the arcsine transform (Cohen's h), as statsmodels
    /// `NormalIndPower().solve_power(proportion_effectsize(p₁, p₀), …)`.
    case arcsine = "arcsine (Cohen's h)"
    /// Two means with a common standard deviation (Cohen's d, normal approximation).
    case means = "two means (normal)"
  }

  /// What to solve for.
  public enum Unknown: String, Sendable, Hashable, Codable {
    /// The treatment group size n₁ (control n₀ = r·n₁).
    case sampleSize
    /// The minimal detectable effect (treatment rate, or mean difference).
    case effect
    /// The power 1 − β.
    case power
    /// The significance level α.
    case alpha
  }

  /// A power problem: give all but the unknown.
  public struct Problem: Sendable, Hashable, Codable {
    /// The method.
    public var method: Method
    /// For proportions: the control (baseline) rate p₀ in (0, 1). For means: the control
    /// mean (only used to report a relative effect; may be 0).
    public var baseline: Double
    /// For proportions: the treatment rate p₁; for means: the mean difference Δ. `nil` when
    /// solving for the effect.
    public var effect: Double?
    /// For means: the common standard deviation σ > 0. Ignored for proportions.
    public var standardDeviation: Double
    /// Treatment group size n₁. `nil` when solving for it.
    public var sampleSize: Double?
    /// Power. `nil` when solving for it. Default 0.8.
    public var power: Double?
    /// Significance level. `nil` when solving for it. Default 0.05.
    public var alpha: Double?
    /// `n₀ / n₁`. Default 1.
    public var ratio: Double
    /// The alternative. Default two-sided.
    public var alternative: Alternative

    /// Creates a problem; defaults: `power = 0.8`, `alpha = 0.05`, `ratio = 1`, two-sided.
    public init(
      method: Method, baseline: Double, effect: Double?, standardDeviation: Double = 1,
      sampleSize: Double? = nil, power: Double? = 0.8, alpha: Double? = 0.05, ratio: Double = 1,
      alternative: Alternative = .twoSided
    ) {
      self.method = method
      self.baseline = baseline
      self.effect = effect
      self.standardDeviation = standardDeviation
      self.sampleSize = sampleSize
      self.power = power
      self.alpha = alpha
      self.ratio = ratio
      self.alternative = alternative
    }
  }

  /// A solved problem: every quantity filled in.
  public struct Result: Sendable, Hashable, Codable {
    /// The method's name.
    public var method: String
    /// What was solved for.
    public var solvedFor: Unknown
    /// Baseline rate or mean.
    public var baseline: Double
    /// Treatment rate (proportions) or mean difference (means).
    public var effect: Double
    /// Absolute difference `p₁ − p₀` (proportions) or Δ (means).
    public var absoluteEffect: Double
    /// Relative difference `absoluteEffect / baseline`, `nil` when the baseline is 0.
    public var relativeEffect: Double?
    /// The standardized effect used by the formula (d, Cohen's h or Cohen's d).
    public var standardizedEffect: Double
    /// Treatment group size n₁ (not rounded).
    public var sampleSize: Double
    /// Control group size n₀ = r·n₁ (not rounded).
    public var controlSampleSize: Double
    /// Users needed: `ceil(n₁) + ceil(n₀)`.
    public var totalUsers: Int
    /// Power.
    public var power: Double
    /// Significance level.
    public var alpha: Double
    /// `n₀ / n₁`.
    public var ratio: Double
    /// The alternative.
    public var alternative: Alternative

    /// Days needed to enrol ``totalUsers`` at `usersPerDay` new users a day (rounded up),
    /// `nil` for a non-positive rate.
    public func durationDays(usersPerDay: Double) -> Int? {
      guard usersPerDay > 0, usersPerDay.isFinite else { return nil }
      return Int(rounding: Double(totalUsers) / usersPerDay, .up)
    }
  }

  /// Cohen's h, `2 asin √p₁ − 2 asin √p₀` (statsmodels `proportion_effectsize(p₁, p₀)`).
  public static func cohensH(_ p1: Double, _ p0: Double) -> Double {
    2 * asin(p1.squareRoot()) - 2 * asin(p0.squareRoot())
  }

  /// `(d, σ₀, σ₁)` for a method.
  static func parameters(_ method: Method, baseline p0: Double, effect: Double, sd: Double, ratio r: Double)
    -> (d: Double, sigmaNull: Double, sigmaAlt: Double)
  {
    switch method {
    case .pooledNormal:
      let p1 = effect
      let pooled = (p1 + p0 * r) / (1 + r)
      let s0 = (pooled * (1 - pooled) * (1 + 1 / r)).squareRoot()
      let s1 = (p1 * (1 - p1) + p0 * (1 - p0) / r).squareRoot()
      return (p1 - p0, s0, s1)
    case .unpooledNormal:
      let p1 = effect
      let s1 = (p1 * (1 - p1) + p0 * (1 - p0) / r).squareRoot()
      return (p1 - p0, s1, s1)
    case .arcsine:
      let s = (1 + 1 / r).squareRoot()
      return (cohensH(effect, p0), s, s)
    case .means:
      let s = (1 + 1 / r).squareRoot()
      return (effect / sd, s, s)
    }
  }

  /// The power formula (statsmodels `normal_power_het`).
  static func power(
    d: Double, n: Double, alpha: Double, sigmaNull: Double, sigmaAlt: Double, alternative: Alternative
  ) -> Double {
    let a = alternative == .twoSided ? alpha / 2 : alpha
    let c = -Normal.standardQuantile(p: a, q: 1 - a)
    let shift = d * n.squareRoot() / sigmaAlt
    let ratio = sigmaNull / sigmaAlt
    var result = 0.0
    if alternative != .less { result += Normal.standardCDF(-(c * ratio - shift)) }
    if alternative != .greater { result += Normal.standardCDF(-c * ratio - shift) }
    return result
  }

  /// The power of the design in `problem` for given values (no unknown).
  static func evaluate(_ problem: Problem, effect: Double, n: Double, alpha: Double) -> Double {
    let prm = parameters(
      problem.method, baseline: problem.baseline, effect: effect, sd: problem.standardDeviation,
      ratio: problem.ratio)
    return power(
      d: prm.d, n: n, alpha: alpha, sigmaNull: prm.sigmaNull, sigmaAlt: prm.sigmaAlt,
      alternative: problem.alternative)
  }

  /// Solves `problem` for its one `nil` among `effect`, `sampleSize`, `power`, `alpha`.
  ///
  /// The effect is searched on the side the alternative points to (above the baseline for
  /// two-sided and greater, below for less).
  ///
  /// - Throws: ``StatsError`` when not exactly one quantity is missing, a parameter is out of
  ///   its domain, or no solution exists (e.g. the requested power is unreachable).
  public static func solve(_ problem: Problem) throws(StatsError) -> Result {
    try validate(problem)
    var effect = problem.effect ?? .nan
    var n = problem.sampleSize ?? .nan
    var alpha = problem.alpha ?? .nan
    let pw = problem.power ?? .nan
    let unknown: Unknown
    if problem.power == nil {
      unknown = .power
    } else if problem.sampleSize == nil {
      unknown = .sampleSize
      n = try solveSampleSize(problem, effect: effect, alpha: alpha, power: pw)
    } else if problem.alpha == nil {
      unknown = .alpha
      alpha = try solveAlpha(problem, effect: effect, n: n, power: pw)
    } else {
      unknown = .effect
      effect = try solveEffect(problem, n: n, alpha: alpha, power: pw)
    }
    return try result(problem, solvedFor: unknown, effect: effect, n: n, alpha: alpha)
  }

  /// Checks that exactly one quantity is missing and every given one is in its domain.
  private static func validate(_ problem: Problem) throws(StatsError) {
    let missing = [
      problem.effect == nil, problem.sampleSize == nil, problem.power == nil, problem.alpha == nil,
    ].filter { $0 }.count
    guard missing == 1 else {
      throw StatsError(
        .invalidParameter, field: [.name(.problem)],
        message: "exactly one of effect, sampleSize, power, alpha must be nil (\(missing) are)")
    }
    if problem.method != .means {
      guard problem.baseline > 0, problem.baseline < 1 else {
        throw StatsError(.invalidParameter, field: [.name(.baseline)], message: "must be in (0, 1), got \(problem.baseline)")
      }
      if let p1 = problem.effect, !(p1 > 0 && p1 < 1) || p1 == problem.baseline {
        throw StatsError(
          .invalidParameter, field: [.name(.effect)],
          message: "treatment rate must be in (0, 1) and differ from the baseline, got \(p1)",
          hint: "the effect of a proportion method is the treatment rate, e.g. 0.11 for 0.10 + 1 pp")
      }
    } else {
      guard problem.standardDeviation > 0, problem.standardDeviation.isFinite else {
        throw StatsError(.invalidParameter, field: [.name(.standardDeviation)], message: "must be positive")
      }
      if let d = problem.effect, d == 0 || !d.isFinite {
        throw StatsError(.invalidParameter, field: [.name(.effect)], message: "mean difference must be non-zero")
      }
    }
    guard problem.ratio > 0, problem.ratio.isFinite else {
      throw StatsError(.invalidParameter, field: [.name(.ratio)], message: "must be positive")
    }
    if let a = problem.alpha, !(a > 0 && a < 1) {
      throw StatsError(.invalidParameter, field: [.name(.alpha)], message: "must be in (0, 1), got \(a)")
    }
    if let p = problem.power, !(p > 0 && p < 1) {
      throw StatsError(.invalidParameter, field: [.name(.power)], message: "must be in (0, 1), got \(p)")
    }
    if let n = problem.sampleSize, !(n > 0 && n <= StatsLimits.maxSampleSize) {
      throw StatsError(
        .invalidParameter, field: [.name(.sampleSize)],
        message: "must be positive and at most \(Int64(StatsLimits.maxSampleSize)), got \(n)")
    }
  }

  /// The error of a solve whose requested power no value of the unknown reaches.
  private static var unreachable: StatsError {
    StatsError(
      .invalidParameter, field: [.name(.problem)], message: "no solution: the requested power is unreachable",
      hint: "increase the sample size, effect or alpha")
  }

  /// Solves for the treatment group size n₁: closed form for pooled and unpooled, bisection otherwise.
  private static func solveSampleSize(_ problem: Problem, effect: Double, alpha: Double, power pw: Double) throws(StatsError)
    -> Double
  {
    if problem.method == .pooledNormal || problem.method == .unpooledNormal {
      // The classic closed form (Fleiss; statsmodels `samplesize_proportions_2indep_onetail`,
      // Evan Miller's calculator): n₁ = ((z_{α'}σ₀ + z_β σ₁)/d)², far tail ignored.
      let prm = parameters(
        problem.method, baseline: problem.baseline, effect: effect, sd: problem.standardDeviation,
        ratio: problem.ratio)
      if (problem.alternative == .greater && prm.d <= 0) || (problem.alternative == .less && prm.d >= 0) {
        throw StatsError(
          .invalidParameter, field: [.name(.effect)],
          message: "the effect points away from the \(problem.alternative.rawValue) alternative",
          hint: "use a treatment rate on the alternative's side of the baseline")
      }
      let a = problem.alternative == .twoSided ? alpha / 2 : alpha
      let c = -Normal.standardQuantile(p: a, q: 1 - a)
      let zBeta = Normal.standardQuantile(p: pw, q: 1 - pw)
      let root = max(c * prm.sigmaNull + zBeta * prm.sigmaAlt, 0) / prm.d
      let n = root * root
      guard n > 0 else { throw unreachable }
      return n
    }
    guard
      let root = _MonotoneRoot.solve(
        lower: 1e-10, upper: 1e18,
        { nn in
          evaluate(problem, effect: effect, n: nn, alpha: alpha) - pw
        })
    else { throw unreachable }
    return root
  }

  /// Solves for the significance level α by bisection.
  private static func solveAlpha(_ problem: Problem, effect: Double, n: Double, power pw: Double) throws(StatsError) -> Double {
    guard
      let root = _MonotoneRoot.solve(
        lower: 1e-300, upper: 1 - 1e-16,
        { a in
          evaluate(problem, effect: effect, n: n, alpha: a) - pw
        })
    else { throw unreachable }
    return root
  }

  /// Solves for the effect by bisection, on the side of the baseline the alternative points to.
  private static func solveEffect(_ problem: Problem, n: Double, alpha: Double, power pw: Double) throws(StatsError) -> Double {
    let up = problem.alternative != .less
    let lower: Double
    let upper: Double
    if problem.method != .means {
      lower = up ? problem.baseline : 0
      upper = up ? 1 : problem.baseline
    } else {
      lower = up ? 0 : -1e12 * problem.standardDeviation
      upper = up ? 1e12 * problem.standardDeviation : 0
    }
    guard
      let root = _MonotoneRoot.solve(
        lower: lower, upper: upper,
        { e in
          let v = evaluate(problem, effect: e, n: n, alpha: alpha) - pw
          return up ? v : -v
        })
    else { throw unreachable }
    return root
  }

  /// The solved problem with every quantity filled in; refuses a design beyond the sample-size limit.
  private static func result(_ problem: Problem, solvedFor unknown: Unknown, effect: Double, n: Double, alpha: Double)
    throws(StatsError) -> Result
  {
    var pw = evaluate(problem, effect: effect, n: n, alpha: alpha)
    if let given = problem.power { pw = unknown == .power ? pw : given }
    let prm = parameters(
      problem.method, baseline: problem.baseline, effect: effect, sd: problem.standardDeviation,
      ratio: problem.ratio)
    let absolute = problem.method != .means ? effect - problem.baseline : effect
    let n0 = n * problem.ratio
    // Both arms are bounded, so the total always fits an Int.
    guard let treatment = Int(rounding: n - 1e-9 * n, .up), let control = Int(rounding: n0 - 1e-9 * n0, .up),
      n <= StatsLimits.maxSampleSize, n0 <= StatsLimits.maxSampleSize
    else {
      throw StatsError(
        .invalidParameter, field: [.name(.sampleSize)],
        message: "the design needs \(n.isFinite && n0.isFinite ? "\(max(n, n0).rounded(.up))" : "infinitely many") users per arm, "
          + "more than the limit of \(Int64(StatsLimits.maxSampleSize))",
        hint: "the effect is too small to detect in practice; increase the effect, alpha or the ratio, or lower the power")
    }
    let total = treatment + control
    return Result(
      method: problem.method.rawValue, solvedFor: unknown, baseline: problem.baseline,
      effect: effect, absoluteEffect: absolute,
      relativeEffect: problem.baseline != 0 ? absolute / problem.baseline : nil,
      standardizedEffect: prm.d,
      sampleSize: n, controlSampleSize: n0, totalUsers: total,
      power: pw, alpha: alpha, ratio: problem.ratio, alternative: problem.alternative)
  }
}
