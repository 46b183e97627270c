import Synchronization

/// The threshold rows of one screen under one segment, for every (intent bin, screens seen,
/// personalized), kept between compiles: a pure function of its key, so a block looked up
/// is bit for bit the block computed.
///
/// Calibration's and sensitivity's many compiles change one parameter at a time, and most
/// parameters touch a few screens (a base probability its own screen, the price sensitivity
/// the paywalls): the other screens' rows, most of a compile's `exp` calls, are found here.
package enum _ThresholdBlockMemo {
  /// Everything a block depends on, as bit patterns: the outcomes' utility terms and log
  /// shares, the segment's intent, the bins, the screens-seen levels and their cap.
  struct Key: Hashable, Sendable {
    let words: [UInt64]
  }

  /// The most threshold words kept (8 bytes each: 64 MiB); past it the memo starts over.
  static let capacity = 1 << 23
  private static let blocks = Mutex<(table: [Key: [UInt64]], words: Int)>(([:], 0))

  /// The block of `key`: looked up, or computed by `compute` and kept (a block larger than
  /// an eighth of the capacity is computed every time).
  static func block(_ key: Key, compute: () -> [UInt64]) -> [UInt64] {
    if let known = blocks.withLock({ $0.table[key] }) { return known }
    let computed = compute()
    guard computed.count <= capacity / 8 else { return computed }
    blocks.withLock { memo in
      if memo.words + computed.count > capacity { memo = ([:], 0) }
      if memo.table.updateValue(computed, forKey: key) == nil { memo.words += computed.count }
    }
    return computed
  }
}
