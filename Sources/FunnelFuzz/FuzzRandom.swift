/// SplitMix64: a small seeded generator, so a case is reproducible from its number
/// on every platform (the standard library's algorithms may change).
public struct FuzzRandom: RandomNumberGenerator, Sendable {
  var state: UInt64

  public init(seed: UInt64) { state = seed }

  public mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }

  /// A number in `0..<n` (`n` > 0).
  public mutating func below(_ n: Int) -> Int { Int(next() % UInt64(max(n, 1))) }

  public mutating func pick<T>(_ items: [T]) -> T { items[below(items.count)] }

  public mutating func chance(_ percent: Int) -> Bool { below(100) < percent }

  /// An item drawn with integer weights.
  public mutating func weighted<T>(_ items: [(T, Int)]) -> T {
    var r = below(items.reduce(0) { $0 + $1.1 })
    for (item, weight) in items {
      if r < weight { return item }
      r -= weight
    }
    return items[0].0
  }
}
