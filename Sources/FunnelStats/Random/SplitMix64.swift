/// SplitMix64 (Steele, Lea & Flood, "Fast splittable pseudorandom number
/// generators", OOPSLA 2014): a 64-bit state advanced by a Weyl increment and
/// finalised by a bijective mixer. FunnelLab uses it to turn seeds into the state
/// of ``Xoshiro256StarStar`` generators, never to draw results directly.
public struct SplitMix64: RandomNumberGenerator, Sendable, Hashable {
  /// The counter: advanced by ``increment`` (wrapping) before each output is mixed.
  public var state: UInt64

  /// A generator with this exact state; its first output is `mix(state + increment)`.
  public init(state: UInt64) { self.state = state }

  /// A generator whose first output is `mix(seed + increment)`.
  public init(seed: UInt64) { state = seed }

  /// The golden-ratio increment `⌊2⁶⁴/φ⌋`, odd.
  public static let increment: UInt64 = 0x9E37_79B9_7F4A_7C15

  /// Adds ``increment`` to ``state`` (wrapping) and returns ``mix(_:)`` of the new state.
  @inlinable
  public mutating func next() -> UInt64 {
    state &+= SplitMix64.increment
    return SplitMix64.mix(state)
  }

  /// The SplitMix64 finaliser: a bijection of `UInt64` with good avalanche.
  @inlinable
  public static func mix(_ value: UInt64) -> UInt64 {
    var z = value
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }
}
