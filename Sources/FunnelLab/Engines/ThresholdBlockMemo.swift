import Synchronization

/// The threshold rows of one screen under one segment, for every (intent bin, screens seen,
/// personalized), kept between compiles by the caller that owns the memo: a pure function of
/// its key, so a block looked up is bit for bit the block computed.
///
/// Calibration's and sensitivity's many compiles change one parameter at a time, and most
/// parameters touch a few screens (a base probability its own screen, the price sensitivity
/// the paywalls): the other screens' rows, most of a compile's `exp` calls, are found here;
/// the variants of one spec share the screens they do not patch. The library keeps no memo
/// of its own: ``FlowCompiler/compileAll(_:memo:)`` makes one for its call when given none,
/// ``Sensitivity`` one per run, the likelihood of a calibration one per model, and a caller
/// that compiles the same specs again (a test process, an app) may pass one it keeps, of the
/// size it chooses. A memo is safe to share between threads.
///
/// - Complexity: a lookup hashes the key, `O(screen's outcomes)`; memory at most
///   ``capacity`` threshold words (8 bytes each) while the memo lives.
package final class ThresholdBlockMemo: Sendable {
  /// Everything a block depends on, as bit patterns: the outcomes' utility terms and log
  /// shares, the segment's intent, the bins, the screens-seen levels and their cap.
  struct Key: Hashable, Sendable {
    let words: [UInt64]
  }

  /// The default ``capacity``: 2²³ words, 64 MiB.
  package static let defaultCapacity = 1 << 23

  /// The most threshold words kept; past it the memo starts over, and a block larger than an
  /// eighth of it is computed every time.
  package let capacity: Int

  private let blocks = Mutex<(table: [Key: [UInt64]], words: Int)>(([:], 0))

  /// An empty memo that keeps at most `capacity` threshold words (8 bytes each).
  package init(capacity: Int = ThresholdBlockMemo.defaultCapacity) {
    self.capacity = max(capacity, 0)
  }

  /// The threshold words kept now.
  package var words: Int { blocks.withLock { $0.words } }

  /// The block of `key`: looked up, or computed by `compute` and kept.
  func block(_ key: Key, compute: () -> [UInt64]) -> [UInt64] {
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
