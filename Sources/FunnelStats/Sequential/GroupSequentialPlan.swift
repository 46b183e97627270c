import Foundation

/// A planned group-sequential test beside the fixed-sample test it replaces: K equally spaced
/// looks, their boundaries, and what the looks cost and save in users.
///
/// With the fixed test's drift `θ` (the mean of `Z` at its size, solving
/// `Φ(θ − z₁₋α/₂) + Φ(−θ − z₁₋α/₂) = power`), the design at the same maximum size has
/// power `P_θ(crossing at some look)` (lower); for the fixed test's power it needs the drift
/// `θ_GS` solving `P_θ_GS(crossing) = power`, hence `(θ_GS/θ)²` times the users (the
/// *inflation factor*, Jennison & Turnbull 2000, ch. 2: about 1.025 for 5 O'Brien–Fleming-type looks
/// at α = 0.05 and 80 % power). It stops early with probability `Σ exitₖ` before the last
/// look, so the *expected* users are `N_max · Σₖ exitₖ tₖ` (plus the rest at `t = 1`): below
/// the fixed size when the effect is real, close to the maximum when there is none.
///
/// - Complexity: O(K · G²) per power evaluation, about ten evaluations.
public struct GroupSequentialPlan: Sendable, Hashable, Codable {
  /// The design (equally spaced looks).
  public var design: GroupSequentialDesign
  /// Users per arm of the fixed-sample test.
  public var fixedUsersPerArm: Double
  /// The fixed test's power at its size (the target).
  public var power: Double
  /// The fixed test's drift θ.
  public var drift: Double
  /// The design's power when its last look is at the fixed size.
  public var powerAtFixedSize: Double
  /// Maximum users over fixed users for the same power.
  public var inflation: Double
  /// Users per arm at the last look, `fixedUsersPerArm · inflation`.
  public var maxUsersPerArm: Double
  /// Probability of stopping at each look when the effect is real (at the maximum size).
  public var stopProbabilities: [Double]
  /// Probability of stopping at each look when there is no effect (their sum is α).
  public var stopProbabilitiesWithoutEffect: [Double]
  /// Expected users per arm when the effect is real.
  public var expectedUsersPerArm: Double
  /// Expected users per arm when there is no effect.
  public var expectedUsersPerArmWithoutEffect: Double

  /// The most looks a plan takes (each power evaluation is O(K · G²)).
  public static let maxLooks = 20

  /// Plans `looks` equally spaced looks replacing a two-sided fixed test of `usersPerArm`
  /// users per arm with power `power` at level `alpha`.
  ///
  /// - Throws: ``StatsError`` for looks outside 1…``maxLooks``, α or power outside (0, 1),
  ///   a power not above α, or a non-positive size.
  public init(looks: Int, spending: GroupSequentialDesign.Spending, alpha: Double, power: Double, usersPerArm: Double)
    throws(StatsError)
  {
    guard looks >= 1, looks <= Self.maxLooks else {
      throw StatsError(.invalidParameter, field: [.name(.looks)], message: "must be in 1...\(Self.maxLooks), got \(looks)")
    }
    guard power > alpha, power < 1 else {
      throw StatsError(.invalidParameter, field: [.name(.power)], message: "must be in (α, 1), got \(power)")
    }
    guard usersPerArm > 0, usersPerArm.isFinite else {
      throw StatsError(.invalidParameter, field: [.name(.usersPerArm)], message: "must be positive")
    }
    let design = try GroupSequentialDesign(looks: looks, alpha: alpha, spending: spending)
    let z = -Normal.standardQuantile(p: alpha / 2, q: 1 - alpha / 2)
    func fixedPower(_ theta: Double) -> Double { Normal.standardCDF(theta - z) + Normal.standardCDF(-theta - z) }
    let theta = Self.solve(from: 0, { fixedPower($0) - power })
    let thetaGS = Self.solve(from: theta, { design.power(drift: $0) - power })
    let fractions = design.informationFractions
    let underEffect =
      (try? GroupSequentialDesign.exitProbabilities(boundaries: design.boundaries, informationFractions: fractions, drift: thetaGS)) ?? []
    let underNull =
      (try? GroupSequentialDesign.exitProbabilities(boundaries: design.boundaries, informationFractions: fractions, drift: 0)) ?? []
    func expected(_ exits: [Double]) -> Double {
      let stopped = zip(exits, fractions).reduce(0) { $0 + $1.0 * $1.1 }
      return stopped + max(0, 1 - exits.reduce(0, +))
    }
    self.design = design
    self.fixedUsersPerArm = usersPerArm
    self.power = power
    self.drift = theta
    self.powerAtFixedSize = design.power(drift: theta)
    self.inflation = (thetaGS / theta) * (thetaGS / theta)
    self.maxUsersPerArm = usersPerArm * inflation
    self.stopProbabilities = underEffect
    self.stopProbabilitiesWithoutEffect = underNull
    self.expectedUsersPerArm = maxUsersPerArm * expected(underEffect)
    self.expectedUsersPerArmWithoutEffect = maxUsersPerArm * expected(underNull)
  }

  /// The root of increasing `f` above `from`: bracketed by doubling, then the Illinois variant
  /// of regula falsi to 1e-12 (about ten evaluations of a smooth power curve).
  static func solve(from start: Double, _ f: (Double) -> Double) -> Double {
    var lo = start
    var flo = f(lo)
    var hi = max(start, 0.5) * 1.5
    var fhi = f(hi)
    var doublings = 0
    while fhi < 0, doublings < 60 {
      lo = hi
      flo = fhi
      hi *= 2
      fhi = f(hi)
      doublings += 1
    }
    guard flo < 0, fhi > 0 else { return flo >= 0 ? lo : hi }
    var side = 0
    for _ in 0..<100 {
      let x = (lo * fhi - hi * flo) / (fhi - flo)
      let fx = f(x)
      if abs(fx) < 1e-13 || hi - lo < 1e-12 { return x }
      if fx < 0 {
        lo = x
        flo = fx
        if side == -1 { fhi /= 2 }
        side = -1
      } else {
        hi = x
        fhi = fx
        if side == 1 { flo /= 2 }
        side = 1
      }
    }
    return (lo + hi) / 2
  }
}
