import FunnelStats

/// Assigns users to arms by hashing (salt, user id), as feature-flag systems do.
///
/// `h = mix(mix(fnv1a64(salt)) ⊕ userID)` with the SplitMix64 finaliser `mix`; the
/// top 53 bits of `h` give a uniform `u ∈ [0, 1)`, and the user joins the first arm
/// whose cumulative allocation weight exceeds `u`. The same user id always gets the
/// same arm for a salt, independent of the experiment's seed (the seed drives
/// behavior; the salt drives assignment), and a new salt reshuffles everyone.
package struct HashAssignment: Sendable, Hashable {
  /// The arms' variant ids in assignment order; ``arm(of:)`` returns an index into this list.
  package let arms: [String]
  /// The planned share of each arm, `weight / total weight` (one division, so five equal arms get 0.2 each).
  package let shares: [Double]
  /// Cumulative shares, the last exactly 1.
  let cumulative: [Double]
  let saltKey: UInt64

  /// - Parameters:
  ///   - weights: relative weight per arm (missing: 1; all zero: an equal split, though
  ///     runs refuse an all-zero allocation before they get here).
  package init(salt: String, arms: [String], weights: [String: Double] = [:]) {
    self.arms = arms
    var w = arms.map { weights[$0] ?? 1 }
    if w.reduce(0, +) <= 0 { w = arms.map { _ in 1 } }
    let total = w.reduce(0, +)
    shares = w.map { $0 / total }
    var running = 0.0
    cumulative = w.enumerated().map { k, x in
      running += x
      return k == w.count - 1 ? 1 : running / total
    }
    saltKey = SplitMix64.mix(Self.fnv1a64(salt))
  }

  /// The arm index of `user`.
  package func arm(of user: UInt64) -> Int {
    let u = Double(SplitMix64.mix(saltKey ^ user) >> 11) * 0x1.0p-53
    var k = 0
    while k < cumulative.count - 1, u >= cumulative[k] { k += 1 }
    return k
  }

  /// FNV-1a, 64-bit, of the UTF-8 bytes of `text`.
  static func fnv1a64(_ text: String) -> UInt64 {
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    for byte in text.utf8 {
      hash ^= UInt64(byte)
      hash &*= 0x0000_0100_0000_01B3
    }
    return hash
  }
}
