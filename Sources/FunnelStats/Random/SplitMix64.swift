/// SplitMix64 (Steele, Lea & Flood 2014): a tiny generator used here to expand one seed into
/// the state of ``Xoshiro256StarStar``.
///
/// ```
/// state += 0x9E3779B97F4A7C15
/// z = state; z = (z ^ (z >> 30)) · 0xBF58476D1CE4E5B9; z = (z ^ (z >> 27)) · 0x94D049BB133111EB
/// return z ^ (z >> 31)
/// ```
///
/// - Complexity: `next()` O(1).
public struct SplitMix64: RandomNumberGenerator, Sendable, Hashable {
  /// The current state.
  public private(set) var state: UInt64

  /// Creates the generator from a seed.
  public init(seed: UInt64) { state = seed }

  /// The next 64 random bits.
  public mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }
}
