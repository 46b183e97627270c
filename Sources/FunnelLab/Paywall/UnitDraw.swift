/// The exact probability of the simulator's Bernoulli draws.
///
/// Every yes/no draw in the purchase layer and the lifecycle is
/// `rng.nextUnitDouble() < p` with `nextUnitDouble() = k · 2⁻⁵³`, `k` uniform on
/// `0..<2⁵³`. It succeeds for the `⌈p · 2⁵³⌉` values of `k` below `p · 2⁵³` (exact:
/// scaling a double by a power of two does not round), so
/// ```
/// P(nextUnitDouble() < p) = min(⌈p · 2⁵³⌉, 2⁵³) / 2⁵³,
/// ```
/// which differs from `p` by less than `2⁻⁵³`.
enum UnitDraw {
  static let scale = 0x1.0p53

  /// `P(nextUnitDouble() < p)`.
  @inline(__always) static func probabilityBelow(_ p: Double) -> Double {
    guard p > 0 else { return 0 }
    return min((p * scale).rounded(.up), scale) / scale
  }
}
