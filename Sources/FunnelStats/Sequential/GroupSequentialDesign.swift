import Foundation

/// Group-sequential boundaries by Lan–DeMets alpha spending, for K planned looks at a
/// two-sided z-statistic.
///
/// The cumulative type I error spent by information fraction `t ∈ (0, 1]` is
///
/// ```
/// O'Brien–Fleming type:  α(t) = 4 − 4Φ(Φ⁻¹(1 − α/4) / √t)
/// Pocock type:           α(t) = α · log(1 + (e − 1) t)
/// ```
/// (Lan & DeMets 1983), for a symmetric two-sided design in which each side spends the
/// one-sided level α/2 (the convention of `gsDesign` and of Jennison & Turnbull's tables;
/// K = 5 O'Brien–Fleming-type boundaries 4.877, 3.357, 2.680, 2.290, 2.031). The boundary `c_k` at look k solves
/// `P(|Z_j| < c_j for j < k, |Z_k| ≥ c_k) = α(t_k) − α(t_{k−1})` under H₀, where the joint law of
/// the Z's is that of Brownian motion sampled at `t_1 < … < t_K`. The sub-density of `Z_k` on
/// the continuation region is propagated by the recursive numerical integration of Armitage,
/// McPherson & Rowe (1969) (Jennison & Turnbull 2000, ch. 19), here with composite Simpson's
/// rule on 801 points per look; boundaries are accurate to ~1e-6.
///
/// Use it when looks are planned (a weekly readout, a few interim analyses) and you want the
/// classical fixed-α guarantee with early stopping. O'Brien–Fleming spends little early and
/// keeps the final boundary near the fixed-sample 1.96; Pocock spends evenly and stops
/// earlier on large effects but pays at the end. For continuous, unplanned monitoring use
/// ``AlwaysValidProportionTest`` instead.
///
/// - Complexity: O(K · G²) normal-cdf evaluations for G = 801 grid points.
public struct GroupSequentialDesign: Sendable, Hashable, Codable {
  /// The spending function family.
  public enum Spending: String, Sendable, Hashable, Codable, CaseIterable {
    /// O'Brien–Fleming-type spending: conservative early, ~1.96-like at the end.
    case obrienFleming = "O'Brien-Fleming-type"
    /// Pocock-type spending: roughly constant boundaries.
    case pocock = "Pocock-type"

    /// Cumulative α spent by information fraction `t`.
    public func spent(_ t: Double, alpha: Double) -> Double {
      if t <= 0 { return 0 }
      if t >= 1 { return alpha }
      switch self {
      case .obrienFleming:
        // Each side spends the one-sided α/2 version: 2 − 2Φ(z_{α/4}/√t) per side.
        let z = -Normal.standardQuantile(p: alpha / 4, q: 1 - alpha / 4)
        return 4 * Normal.standardCDF(-z / t.squareRoot())
      case .pocock:
        return alpha * log(1 + (M_E - 1) * t)
      }
    }
  }

  /// Information fractions of the looks, increasing, the last equal to 1.
  public var informationFractions: [Double]
  /// Overall two-sided α.
  public var alpha: Double
  /// The spending function.
  public var spending: Spending
  /// Two-sided z boundaries: stop and reject at look k when `|Z_k| ≥ boundaries[k]`.
  public var boundaries: [Double]
  /// Cumulative α spent at each look.
  public var cumulativeAlpha: [Double]
  /// Nominal two-sided p-value threshold at each look, `2Φ(−c_k)`.
  public var nominalPValues: [Double]
  /// The method's name.
  public var method: String

  /// Builds the design for `looks` equally spaced looks.
  ///
  /// - Throws: ``StatsError`` for fewer than one look or α outside (0, 1).
  public init(looks: Int, alpha: Double = 0.05, spending: Spending = .obrienFleming) throws(StatsError) {
    guard looks >= 1, looks <= 100 else {
      throw StatsError(.invalidParameter, field: "looks", message: "must be in 1...100, got \(looks)")
    }
    try self.init(
      informationFractions: (1...looks).map { Double($0) / Double(looks) }, alpha: alpha,
      spending: spending)
  }

  /// Builds the design for given information fractions (e.g. users so far / planned users).
  ///
  /// - Throws: ``StatsError`` for fractions not strictly increasing in (0, 1] or α outside (0, 1).
  public init(informationFractions: [Double], alpha: Double = 0.05, spending: Spending = .obrienFleming)
    throws(StatsError)
  {
    guard alpha > 0, alpha < 1 else {
      throw StatsError(.invalidParameter, field: "alpha", message: "must be in (0, 1), got \(alpha)")
    }
    guard !informationFractions.isEmpty, informationFractions.count <= 100 else {
      throw StatsError(.invalidParameter, field: "informationFractions", message: "needs 1...100 looks")
    }
    var previous = 0.0
    for (i, t) in informationFractions.enumerated() {
      guard t > previous, t <= 1 else {
        throw StatsError(
          .invalidParameter, field: "informationFractions[\(i)]",
          message: "must increase strictly within (0, 1], got \(t)")
      }
      previous = t
    }
    self.informationFractions = informationFractions
    self.alpha = alpha
    self.spending = spending
    self.method = "Lan-DeMets alpha spending (\(spending.rawValue)), Armitage-McPherson-Rowe recursion"
    let computed = Self.compute(fractions: informationFractions, alpha: alpha, spending: spending)
    self.boundaries = computed.boundaries
    self.cumulativeAlpha = computed.cumulative
    self.nominalPValues = computed.boundaries.map { 2 * Normal.standardCDF(-$0) }
  }

  /// Whether to stop and reject at look `look` (0-based) given the z-statistic there.
  public func rejects(z: Double, atLook look: Int) -> Bool {
    guard boundaries.indices.contains(look) else { return false }
    return abs(z) >= boundaries[look]
  }

  static let gridPoints = 801

  private static func compute(fractions: [Double], alpha: Double, spending: Spending)
    -> (boundaries: [Double], cumulative: [Double])
  {
    var boundaries: [Double] = []
    var cumulative: [Double] = []
    // Sub-density of Z_{k−1} on its grid.
    var grid: [Double] = []
    var density: [Double] = []
    var previousSpent = 0.0
    var previousT = 0.0
    for (k, t) in fractions.enumerated() {
      let spent = spending.spent(t, alpha: alpha)
      let increment = max(spent - previousSpent, 0)
      let c: Double
      if k == 0 {
        c = increment > 0 ? -Normal.standardQuantile(p: increment / 2, q: 1 - increment / 2) : 40
      } else {
        let tPrev = previousT
        let delta = t - tPrev
        let sdStep = (delta / t).squareRoot()
        let shrink = (tPrev / t).squareRoot()
        let weights = simpsonWeights(grid)
        // Exit probability beyond ±x at this look.
        func exit(_ x: Double) -> Double {
          var total = 0.0
          for (i, u) in grid.enumerated() where density[i] > 0 {
            let m = u * shrink
            total +=
              weights[i] * density[i]
              * (Normal.standardCDF(-(x - m) / sdStep) + Normal.standardCDF(-(x + m) / sdStep))
          }
          return total
        }
        if increment <= 0 {
          c = 40
        } else {
          c = _MonotoneRoot.solve(lower: 0, upper: 40, { x in exit(x) - increment }) ?? 40
        }
        // Propagate the density to this look's continuation region.
        let newGrid = uniformGrid(-c, c)
        var newDensity = [Double](repeating: 0, count: newGrid.count)
        for (j, z) in newGrid.enumerated() {
          var total = 0.0
          for (i, u) in grid.enumerated() where density[i] > 0 {
            let r = (z - u * shrink) / sdStep
            total += weights[i] * density[i] * exp(-0.5 * r * r)
          }
          newDensity[j] = total / (sdStep * (2 * Double.pi).squareRoot())
        }
        boundaries.append(c)
        cumulative.append(spent)
        grid = newGrid
        density = newDensity
        previousSpent = spent
        previousT = t
        continue
      }
      boundaries.append(c)
      cumulative.append(spent)
      grid = uniformGrid(-c, c)
      density = grid.map { Normal.standard.pdf($0) }
      previousSpent = spent
      previousT = t
    }
    return (boundaries, cumulative)
  }

  private static func uniformGrid(_ a: Double, _ b: Double) -> [Double] {
    let n = gridPoints
    return (0..<n).map { a + (b - a) * Double($0) / Double(n - 1) }
  }

  /// Composite Simpson weights for a uniform grid with an odd number of points.
  private static func simpsonWeights(_ grid: [Double]) -> [Double] {
    let n = grid.count
    guard n >= 3, let first = grid.first, let last = grid.last else { return grid.map { _ in 0 } }
    let h = (last - first) / Double(n - 1)
    return (0..<n).map { i in
      let w: Double = (i == 0 || i == n - 1) ? 1 : (i % 2 == 1 ? 4 : 2)
      return w * h / 3
    }
  }
}
