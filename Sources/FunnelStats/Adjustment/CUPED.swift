/// CUPED (Deng, Xu, Kohavi & Walker 2013) as GrowthBook's gbstats 0.8 computes it for an
/// absolute difference: one slope `θ` for both arms, fitted over all users pooled,
///
/// ```
/// θ = cov_pooled(x, y) / var_pooled(x),   ȳₐ′ = ȳₐ − θ·x̄ₐ,
/// vₐ = var(y) + θ²·var(x) − 2θ·cov(x, y)            (per user, within the arm)
/// Δ = ȳ₁′ − ȳ₀′,   V = v₁/n₁ + v₀/n₀,   t = Δ/√V with Welch–Satterthwaite ν
/// ```
/// from each arm's sums (`n`, `Σy`, `Σy²`, `Σx`, `Σx²`, `Σxy`). A mean's variance is
/// `(Σy² − (Σy)²/n)/(n − 1)`, a proportion's `p(1 − p)` (gbstats' two statistic types);
/// covariances always divide by `n − 1`. When either pooled variance is 0, `θ = 0` and
/// the result is the unadjusted Welch test (gbstats' fallback).
///
/// Compared with ``RegressionAdjustment`` (Lin): one pooled slope instead of one per
/// arm, and `t` with Welch's ν instead of the normal. The two agree to first order when
/// the arms' slopes are equal; Lin's is never less efficient asymptotically.
public enum CUPED {
  /// The method name carried by results.
  public static let methodName = "CUPED (gbstats)"

  /// One arm's sums. A `nil` sum of squares marks a proportion (0/1 values: `Σy² = Σy`,
  /// variance `p(1 − p)`).
  public struct Arm: Sendable, Hashable, Codable {
    /// Users.
    public var users: Double
    /// `Σy` of the outcome.
    public var outcomeSum: Double
    /// `Σy²`, `nil` for a 0/1 outcome.
    public var outcomeSumOfSquares: Double?
    /// `Σx` of the pre-period covariate.
    public var covariateSum: Double
    /// `Σx²`, `nil` for a 0/1 covariate.
    public var covariateSumOfSquares: Double?
    /// `Σxy`.
    public var sumOfProducts: Double

    /// An arm's sums.
    public init(
      users: Double, outcomeSum: Double, outcomeSumOfSquares: Double?, covariateSum: Double, covariateSumOfSquares: Double?,
      sumOfProducts: Double
    ) {
      self.users = users
      self.outcomeSum = outcomeSum
      self.outcomeSumOfSquares = outcomeSumOfSquares
      self.covariateSum = covariateSum
      self.covariateSumOfSquares = covariateSumOfSquares
      self.sumOfProducts = sumOfProducts
    }
  }

  /// The adjusted comparison beside the unadjusted one.
  public struct Result: Sendable, Hashable, Codable {
    /// The pooled slope (0 when either pooled variance is 0: no adjustment).
    public var theta: Double
    /// Adjusted means, control then treatment.
    public var adjustedMeans: [Double]
    /// Adjusted per-user variances, control then treatment.
    public var variances: [Double]
    /// `Δ` and its interval.
    public var difference: IntervalEstimate
    /// `√V`.
    public var standardError: Double
    /// `t`, ν and the p-value.
    public var test: TestResult
    /// The unadjusted difference of means.
    public var unadjustedDifference: Double
    /// Its standard error (Welch).
    public var unadjustedStandardError: Double
    /// `1 − V/V_unadjusted`.
    public var varianceReduction: Double
  }

  /// Compares treatment with control.
  /// - Throws: ``StatsError`` for an arm with fewer than 2 users, sums that are not finite,
  ///   or a confidence level outside (0, 1).
  public static func compare(treatment: Arm, control: Arm, confidenceLevel: Double = 0.95) throws(StatsError) -> Result {
    try checkLevel(confidenceLevel)
    for (arm, field) in [(control, StatsError.Field([.name(.control)])), (treatment, StatsError.Field([.name(.treatment)]))] {
      let values = [
        arm.users, arm.outcomeSum, arm.outcomeSumOfSquares ?? 0, arm.covariateSum, arm.covariateSumOfSquares ?? 0, arm.sumOfProducts,
      ]
      guard values.allSatisfy(\.isFinite) else { throw StatsError(.invalidParameter, field: field, message: "a sum is not finite") }
      guard arm.users >= 2 else {
        throw StatsError(
          .emptyArm, field: field.appending(.name(.users)), message: "\(arm.users) users", hint: "each arm needs at least 2 users")
      }
    }
    guard (control.outcomeSumOfSquares == nil) == (treatment.outcomeSumOfSquares == nil),
      (control.covariateSumOfSquares == nil) == (treatment.covariateSumOfSquares == nil)
    else {
      throw StatsError(
        .dimensionMismatch, field: [.name(.treatment)], message: "one arm's outcome or covariate is a proportion and the other's a mean",
        hint: "give both arms sums of squares, or neither")
    }
    let joint = Arm(
      users: control.users + treatment.users, outcomeSum: control.outcomeSum + treatment.outcomeSum,
      outcomeSumOfSquares: sum(control.outcomeSumOfSquares, treatment.outcomeSumOfSquares),
      covariateSum: control.covariateSum + treatment.covariateSum,
      covariateSumOfSquares: sum(control.covariateSumOfSquares, treatment.covariateSumOfSquares),
      sumOfProducts: control.sumOfProducts + treatment.sumOfProducts)
    let jointX = variance(joint.covariateSum, joint.covariateSumOfSquares, joint.users)
    let jointY = variance(joint.outcomeSum, joint.outcomeSumOfSquares, joint.users)
    let theta = jointX == 0 || jointY == 0 ? 0 : covariance(joint) / jointX
    let arms = [control, treatment]
    let means = arms.map { $0.outcomeSum / $0.users - theta * $0.covariateSum / $0.users }
    let variances = arms.map { a in
      variance(a.outcomeSum, a.outcomeSumOfSquares, a.users) + theta * theta * variance(a.covariateSum, a.covariateSumOfSquares, a.users)
        - 2 * theta * covariance(a)
    }
    let plain = arms.map { variance($0.outcomeSum, $0.outcomeSumOfSquares, $0.users) }
    let welch = welchTest(
      difference: means[1] - means[0], variances: variances, users: arms.map(\.users), confidenceLevel: confidenceLevel)
    let plainV = plain[0] / control.users + plain[1] / treatment.users
    let v = welch.standardError * welch.standardError
    return Result(
      theta: theta, adjustedMeans: means, variances: variances, difference: welch.difference, standardError: welch.standardError,
      test: welch.test, unadjustedDifference: treatment.outcomeSum / treatment.users - control.outcomeSum / control.users,
      unadjustedStandardError: plainV.squareRoot(), varianceReduction: plainV > 0 ? 1 - v / plainV : 0)
  }

  private static func sum(_ a: Double?, _ b: Double?) -> Double? {
    guard let a, let b else { return nil }
    return a + b
  }

  /// gbstats' per-user variance: a mean's `(Q − S²/n)/(n − 1)`, a proportion's `p(1 − p)`.
  static func variance(_ s: Double, _ q: Double?, _ n: Double) -> Double {
    guard let q else {
      let p = s / n
      return p * (1 - p)
    }
    return n > 1 ? (q - s * s / n) / (n - 1) : 0
  }

  static func covariance(_ a: Arm) -> Double {
    a.users > 1 ? (a.sumOfProducts - a.outcomeSum * a.covariateSum / a.users) / (a.users - 1) : 0
  }

  /// The t-test of `difference` with per-user `variances` over `users`, Welch's ν.
  static func welchTest(difference: Double, variances: [Double], users: [Double], confidenceLevel: Double) -> (
    test: TestResult, difference: IntervalEstimate, standardError: Double
  ) {
    let parts = zip(variances, users).map { $0 / $1 }
    let v = parts.reduce(0, +)
    guard variances.allSatisfy({ $0 > 0 }), v > 0 else {
      return (
        TestResult(statistic: 0, pValue: difference == 0 ? 1 : 0, alternative: .twoSided, method: methodName, diagnostic: .zeroVariance),
        IntervalEstimate(estimate: difference, interval: nil, diagnostic: .zeroVariance), 0
      )
    }
    let nu = v * v / zip(parts, users).reduce(0) { $0 + $1.0 * $1.0 / ($1.1 - 1) }
    let t = difference / v.squareRoot()
    let student = StudentT(degreesOfFreedom: nu)
    let half = student.ppf(1 - (1 - confidenceLevel) / 2) * v.squareRoot()
    return (
      TestResult(statistic: t, pValue: min(1, 2 * student.sf(abs(t))), alternative: .twoSided, degreesOfFreedom: nu, method: methodName),
      IntervalEstimate(
        estimate: difference,
        interval: ConfidenceInterval(
          lower: difference - half, upper: difference + half, confidenceLevel: confidenceLevel, method: "welch")),
      v.squareRoot()
    )
  }
}
