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

  /// The most looks a design takes (a daily look for 100 days).
  public static let maxLooks = 100

  /// Information fractions of the looks, increasing, the last equal to 1 in a planned design.
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
    guard looks >= 1, looks <= Self.maxLooks else {
      throw StatsError(.invalidParameter, field: [.name(.looks)], message: "must be in 1...\(Self.maxLooks), got \(looks)")
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
      throw StatsError(.invalidParameter, field: [.name(.alpha)], message: "must be in (0, 1), got \(alpha)")
    }
    guard !informationFractions.isEmpty, informationFractions.count <= Self.maxLooks else {
      throw StatsError(.invalidParameter, field: [.name(.informationFractions)], message: "needs 1...\(Self.maxLooks) looks")
    }
    var previous = 0.0
    for (i, t) in informationFractions.enumerated() {
      guard t > previous, t <= 1 else {
        throw StatsError(
          .invalidParameter, field: [.name(.informationFractions), .index(i)],
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

  /// The sub-density of `Z_k` on the continuation region `(−c_k, c_k)` after look k.
  private struct State {
    var grid: [Double]
    var density: [Double]
    var t: Double
  }

  /// `P(continue through look k−1, |Z_k| ≥ c)` from `state` (look k−1) to fraction `t`, under
  /// drift θ (the mean of `Z` at full information): given `Z_{k−1} = u`, `Z_k` is normal with
  /// mean `u√(t_{k−1}/t) + θΔ/√t` and variance `Δ/t`, `Δ = t − t_{k−1}`.
  private static func exitProbability(from state: State?, to t: Double, boundary c: Double, drift: Double)
    -> Double
  {
    guard let state else {
      let m = drift * t.squareRoot()
      return Normal.standardCDF(-(c - m)) + Normal.standardCDF(-(c + m))
    }
    let delta = t - state.t
    let sdStep = (delta / t).squareRoot()
    let shrink = (state.t / t).squareRoot()
    let shift = drift * delta / t.squareRoot()
    let weights = simpsonWeights(state.grid)
    var total = 0.0
    // An index loop, not `enumerated()`: the boundary's root search calls this dozens of times a
    // look, and an unoptimised `enumerated()` looks up its tuple's type metadata at each point.
    var i = 0
    while i < state.grid.count {
      defer { i += 1 }
      guard state.density[i] > 0 else { continue }
      let m = state.grid[i] * shrink + shift
      total +=
        weights[i] * state.density[i]
        * (Normal.standardCDF(-(c - m) / sdStep) + Normal.standardCDF(-(c + m) / sdStep))
    }
    return total
  }

  /// The sub-density after look k (continuation region `(−c, c)`).
  private static func propagate(from state: State?, to t: Double, boundary c: Double, drift: Double) -> State {
    let grid = uniformGrid(-c, c)
    guard let state else {
      let m = drift * t.squareRoot()
      return State(grid: grid, density: grid.map { Normal.standard.pdf($0 - m) }, t: t)
    }
    let delta = t - state.t
    let sdStep = (delta / t).squareRoot()
    let shrink = (state.t / t).squareRoot()
    let shift = drift * delta / t.squareRoot()
    let weights = simpsonWeights(state.grid)
    let norm = 1 / (sdStep * (2 * Double.pi).squareRoot())
    // The kernel's terms beyond 10 standard deviations are below e⁻⁵⁰ of its peak: skipped.
    var means: [Double] = []
    var masses: [Double] = []
    for i in state.grid.indices where state.density[i] > 0 {
      means.append(state.grid[i] * shrink + shift)
      masses.append(weights[i] * state.density[i])
    }
    let reach = 10 * sdStep
    let inverse = 1 / sdStep
    // The means and the grid both increase (a rounded product and sum keep the order), so the
    // terms within reach of `z` are a window of the means that only moves right as `z` does:
    // `first` is the first mean with `z − m < reach`, the loop stops at the first `z − m ≤ −reach`.
    // The same terms in the same order as a scan of every mean, with no test of the others.
    var first = 0
    let density = means.withUnsafeBufferPointer { m in
      masses.withUnsafeBufferPointer { w in
        grid.map { z in
          while first < m.count, !(z - m[first] < reach) { first += 1 }
          var total = 0.0
          var i = first
          while i < m.count {
            let d = z - m[i]
            if !(d > -reach) { break }
            let r = d * inverse
            total += w[i] * exp(-0.5 * r * r)
            i += 1
          }
          return total * norm
        }
      }
    }
    return State(grid: grid, density: density, t: t)
  }

  private static func compute(fractions: [Double], alpha: Double, spending: Spending)
    -> (boundaries: [Double], cumulative: [Double])
  {
    var boundaries: [Double] = []
    var cumulative: [Double] = []
    var state: State?
    var previousSpent = 0.0
    for t in fractions {
      let spent = spending.spent(t, alpha: alpha)
      let increment = max(spent - previousSpent, 0)
      var c = 40.0
      if increment > 0 {
        if state == nil {
          c = -Normal.standardQuantile(p: increment / 2, q: 1 - increment / 2)
        } else {
          c =
            _MonotoneRoot.solve(lower: 0, upper: 40) { x in
              exitProbability(from: state, to: t, boundary: x, drift: 0) - increment
            } ?? 40
        }
      }
      boundaries.append(c)
      cumulative.append(spent)
      state = propagate(from: state, to: t, boundary: c, drift: 0)
      previousSpent = spent
    }
    return (boundaries, cumulative)
  }

  /// The probability of stopping (crossing `±boundaries[k]`) at each look, when the z-statistic
  /// at full information has mean `drift` (0 under H₀; `δ/σ·√n` under an alternative).
  /// Their sum is the design's type I error (drift 0) or power.
  ///
  /// - Complexity: O(K · G²).
  public static func exitProbabilities(
    boundaries: [Double], informationFractions: [Double], drift: Double = 0
  ) throws(StatsError) -> [Double] {
    guard boundaries.count == informationFractions.count, !boundaries.isEmpty else {
      throw StatsError(
        .dimensionMismatch, field: [.name(.boundaries)],
        message: "\(boundaries.count) boundaries for \(informationFractions.count) looks")
    }
    var previous = 0.0
    for (i, t) in informationFractions.enumerated() {
      guard t > previous, t <= 1 else {
        throw StatsError(
          .invalidParameter, field: [.name(.informationFractions), .index(i)], message: "must increase strictly within (0, 1]")
      }
      previous = t
    }
    for (i, c) in boundaries.enumerated() where !(c > 0 && c.isFinite) {
      throw StatsError(.invalidParameter, field: [.name(.boundaries), .index(i)], message: "must be positive and finite")
    }
    var state: State?
    var result: [Double] = []
    for (t, c) in zip(informationFractions, boundaries) {
      result.append(exitProbability(from: state, to: t, boundary: c, drift: drift))
      state = propagate(from: state, to: t, boundary: c, drift: drift)
    }
    return result
  }

  /// The power of this design against drift θ (see ``exitProbabilities(boundaries:informationFractions:drift:)``).
  public func power(drift: Double) -> Double {
    let exits =
      (try? Self.exitProbabilities(boundaries: boundaries, informationFractions: informationFractions, drift: drift))
      ?? []
    return min(1, exits.reduce(0, +))
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
