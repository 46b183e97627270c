/// xoshiro256** (Blackman & Vigna 2018): the generator behind every seeded computation in
/// FunnelStats (bootstrap). Seeded through ``SplitMix64`` as its authors recommend.
///
/// Golden outputs never depend on the standard library's sampling algorithms: unit doubles
/// and bounded integers are derived here (``nextUnitDouble()``, ``nextBounded(_:)``).
///
/// - Complexity: `next()` O(1).
public struct Xoshiro256StarStar: RandomNumberGenerator, Sendable, Hashable {
  private var s0: UInt64
  private var s1: UInt64
  private var s2: UInt64
  private var s3: UInt64

  /// Creates the generator; the 256-bit state is four SplitMix64 outputs of `seed`.
  public init(seed: UInt64) {
    var sm = SplitMix64(seed: seed)
    s0 = sm.next()
    s1 = sm.next()
    s2 = sm.next()
    s3 = sm.next()
  }

  @inline(__always)
  private static func rotl(_ x: UInt64, _ k: UInt64) -> UInt64 { (x << k) | (x >> (64 - k)) }

  /// The next 64 random bits.
  public mutating func next() -> UInt64 {
    let result = Self.rotl(s1 &* 5, 7) &* 9
    let t = s1 << 17
    s2 ^= s0
    s3 ^= s1
    s1 ^= s2
    s0 ^= s3
    s2 ^= t
    s3 = Self.rotl(s3, 45)
    return result
  }

  /// A double uniform on [0, 1) from the top 53 bits: `(next() >> 11) · 2⁻⁵³`.
  public mutating func nextUnitDouble() -> Double {
    Double(next() >> 11) * 0x1.0p-53
  }

  /// An integer uniform on `0..<bound` (`bound > 0`) by Lemire's multiply-and-reject method,
  /// exactly unbiased. Returns 0 for `bound ≤ 0`.
  public mutating func nextBounded(_ bound: UInt64) -> UInt64 {
    guard bound > 0 else { return 0 }
    var m = next().multipliedFullWidth(by: bound)
    if m.low < bound {
      let threshold = (0 &- bound) % bound
      while m.low < threshold {
        m = next().multipliedFullWidth(by: bound)
      }
    }
    return m.high
  }
}
