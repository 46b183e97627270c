/// xoshiro256** (Blackman & Vigna, "Scrambled linear pseudorandom number
/// generators", ACM TOMS 2021): 256 bits of state, period 2²⁵⁶ − 1, fast and
/// statistically strong in all 64 output bits.
///
/// Every result of FunnelLab is drawn from one of these, each seeded from
/// (experiment seed, stream index) through ``SplitMix64``, so that a user's draws
/// depend on nothing but the seed and the user's index: not on threads, shards or
/// scheduling. Its output is the same on every platform.
public struct Xoshiro256StarStar: RandomNumberGenerator, Sendable, Hashable {
  @usableFromInline var s0, s1, s2, s3: UInt64

  /// A generator with this exact state (not all zero), e.g. to check reference vectors.
  /// Inlinable: the Monte Carlo engine sets a constant placeholder state once per user.
  @inlinable
  public init(state: (UInt64, UInt64, UInt64, UInt64)) {
    precondition(state != (0, 0, 0, 0), "the all-zero state is a fixed point")
    (s0, s1, s2, s3) = state
  }

  /// A generator whose state is four successive SplitMix64 outputs from `seed`.
  /// Always inlined: the Monte Carlo engine seeds one per user.
  @inlinable @inline(__always)
  public init(seed: UInt64) {
    var sm = SplitMix64(state: seed)
    s0 = sm.next()
    s1 = sm.next()
    s2 = sm.next()
    s3 = sm.next()
  }

  /// The generator of stream `stream` under `seed` (a user, a replicate, a bootstrap).
  ///
  /// The stream key `mix(mix(seed) ⊕ stream)` is a bijection of `stream` for a fixed
  /// seed, so distinct streams start from distinct SplitMix64 states.
  @inlinable
  public init(seed: UInt64, stream: UInt64) {
    self.init(seed: SplitMix64.mix(SplitMix64.mix(seed) ^ stream))
  }

  /// The next 64 bits: the `**` scrambler `rotl(s1 · 5, 7) · 9` of the current state, then
  /// one step of the xoshiro256 linear engine.
  @inlinable
  public mutating func next() -> UInt64 {
    let result = ((s1 &* 5) << 7 | (s1 &* 5) >> 57) &* 9
    let t = s1 << 17
    s2 ^= s0
    s3 ^= s1
    s1 ^= s2
    s0 ^= s3
    s2 ^= t
    s3 = s3 << 45 | s3 >> 19
    return result
  }
}

extension RandomNumberGenerator {
  /// A double uniform on [0, 1) built from the top 53 bits of one draw:
  /// `(x >> 11) · 2⁻⁵³`. Exact, platform-independent, never 1.
  @inlinable
  public mutating func nextUnitDouble() -> Double {
    Double(next() >> 11) * 0x1.0p-53
  }

  /// A whole number uniform on `0..<bound` (Lemire's multiply-and-reject method, exactly unbiased),
  /// defined here rather than taken from the standard library, whose algorithm may
  /// change between Swift versions.
  /// Returns 0 when `bound` is 0.
  @inlinable
  public mutating func nextBounded(_ bound: UInt64) -> UInt64 {
    guard bound > 0 else { return 0 }
    var product = next().multipliedFullWidth(by: bound)
    if product.low < bound {
      let threshold = (0 &- bound) % bound
      while product.low < threshold {
        product = next().multipliedFullWidth(by: bound)
      }
    }
    return product.high
  }
}
