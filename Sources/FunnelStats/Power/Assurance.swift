/// Assurance (O'Hagan & Stevens, 2001): the probability that a planned two-arm test of
/// proportions reaches significance **in the direction of the true effect**, averaged over
/// what is uncertain about the true rates.
///
/// Power answers "if the effect is exactly this, how often does the test find it?";
/// assurance answers "given what we know about the effect, how often will this test
/// succeed?". The uncertainty comes as draws of the true rates `(p₀, p₁)` (e.g. the
/// exact rates of a flow solved at draws of its behavior parameters), each draw weighted
/// equally.
///
/// For one draw the directional power of the two-sided pooled z-test at level α with `n`
/// users per arm is the one tail of ``PowerAnalysis``'s pooled formula on the side of
/// `d = p₁ − p₀`:
///
/// ```
/// d > 0:  Φ̄((c·σ₀ − d·√n)/σ₁)      d < 0:  Φ((−c·σ₀ − d·√n)/σ₁)      c = Φ⁻¹(1 − α/2)
/// ```
///
/// A draw with `p₁ = p₀` has no right direction and counts as 0 (any significant result
/// there is a false positive). The directional power of every draw rises with `n`, so the
/// assurance does too, and ``usersPerArm(reaching:draws:alpha:)`` finds the smallest size
/// by bisection. Unlike power it need not approach 1: it does, slowly, only because every
/// draw with an effect has one; draws near no effect make a high target expensive.
///
/// - Complexity: O(draws) per evaluation; a size search O(draws · log n).
public enum Assurance {
  /// The true rates of the control and the variant in one draw, each in 0…1.
  public struct Draw: Sendable, Hashable {
    /// The control's rate.
    public var control: Double
    /// The variant's rate.
    public var variant: Double

    /// A draw of the two rates.
    public init(control: Double, variant: Double) {
      self.control = control
      self.variant = variant
    }
  }

  /// The probability that the two-sided pooled z-test at `alpha` with `usersPerArm` users
  /// in each arm rejects with the sign of `variant − control`; 0 when the rates are equal or
  /// an input is outside its domain (rates in 0…1, `n > 0`, `alpha` in (0, 1)).
  public static func directionalPower(_ draw: Draw, usersPerArm n: Double, alpha: Double) -> Double {
    let (p0, p1) = (draw.control, draw.variant)
    guard (0...1).contains(p0), (0...1).contains(p1), p0 != p1, n > 0, n.isFinite, alpha > 0, alpha < 1 else { return 0 }
    let prm = PowerAnalysis.parameters(.pooledNormal, baseline: p0, effect: p1, sd: 1, ratio: 1)
    // Rates of exactly 0 and 1 leave no variance under the alternative: the observed
    // difference is the true one, significant or not whatever the draw.
    guard prm.sigmaAlt > 0 else {
      let c = -Normal.standardQuantile(p: alpha / 2, q: 1 - alpha / 2)
      return abs(prm.d) * n.squareRoot() > c * prm.sigmaNull ? 1 : 0
    }
    return PowerAnalysis.power(
      d: prm.d, n: n, alpha: alpha / 2, sigmaNull: prm.sigmaNull, sigmaAlt: prm.sigmaAlt, alternative: prm.d > 0 ? .greater : .less)
  }

  /// The mean of ``directionalPower(_:usersPerArm:alpha:)`` over `draws` (0 when there are none).
  public static func assurance(_ draws: [Draw], usersPerArm n: Double, alpha: Double) -> Double {
    guard !draws.isEmpty else { return 0 }
    var sum = 0.0
    for draw in draws { sum += directionalPower(draw, usersPerArm: n, alpha: alpha) }
    return sum / Double(draws.count)
  }

  /// The smallest whole number of users per arm whose assurance is at least `target`, or
  /// `nil` when even ``StatsLimits/maxSampleSize`` users fall short (or `target` is not in (0, 1)).
  public static func usersPerArm(reaching target: Double, draws: [Draw], alpha: Double) -> Int? {
    guard target > 0, target < 1, assurance(draws, usersPerArm: StatsLimits.maxSampleSize, alpha: alpha) >= target else { return nil }
    var low = 0.0  // assurance below the target (or no users)
    var high = 1.0
    while assurance(draws, usersPerArm: high, alpha: alpha) < target { (low, high) = (high, min(high * 2, StatsLimits.maxSampleSize)) }
    while high - low > 1 {
      let mid = ((low + high) / 2).rounded(.down)
      if assurance(draws, usersPerArm: mid, alpha: alpha) >= target { high = mid } else { low = mid }
    }
    return Int(exactly: high)
  }
}
