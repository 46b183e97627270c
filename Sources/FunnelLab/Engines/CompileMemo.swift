import Synchronization

/// What a compile computes that depends on a few inputs only, kept between compiles by the
/// caller that owns the memo: each screen's threshold rows under one segment (for every intent
/// bin, screens seen and personalized) and each dwell table. Both are pure functions of their
/// keys, so a block looked up is bit for bit the block computed.
///
/// Calibration's and sensitivity's many compiles change one parameter at a time, and most
/// parameters touch a few screens (a base probability its own screen, the price sensitivity
/// the paywalls): the other screens' rows, most of a compile's `exp` calls, are found here;
/// the variants of one spec share the screens they do not patch, and every compile of a spec
/// shares its screens' dwell tables (a thousand `exp` calls each, which no fitted parameter
/// moves). The library keeps no memo of its own: ``FlowCompiler/compileAll(_:memo:)`` makes
/// one for its call when given none, ``Sensitivity`` one per run, the likelihood of a
/// calibration one per model, and a caller that compiles the same specs again (a test
/// process, an app) may pass one it keeps, of the size it chooses. A memo is safe to share
/// between threads.
///
/// - Complexity: a lookup hashes the key, `O(screen's outcomes)`; memory at most
///   ``capacity`` words (8 bytes each: a threshold, or two dwell times) while the memo lives.
package final class CompileMemo: Sendable {
  /// Everything a block depends on, as bit patterns: for threshold rows, the outcomes' utility
  /// terms and log shares, the segment's intent, the bins, the screens-seen levels and their
  /// cap; for a dwell table, its median and σ.
  struct Key: Hashable, Sendable {
    let words: [UInt64]
  }

  /// The default ``capacity``: 2²³ words, 64 MiB.
  package static let defaultCapacity = 1 << 23

  /// The most words kept; past it the memo starts over, and a block larger than an eighth of
  /// it is computed every time.
  package let capacity: Int

  private let blocks = Mutex<Tables>(Tables())

  /// The memo's contents and the words they take.
  private struct Tables {
    var thresholds: [Key: [UInt64]] = [:]
    var dwell: [Key: [UInt32]] = [:]
    var words = 0
  }

  /// An empty memo that keeps at most `capacity` words (8 bytes each).
  package init(capacity: Int = CompileMemo.defaultCapacity) {
    self.capacity = max(capacity, 0)
  }

  /// The words kept now.
  package var words: Int { blocks.withLock { $0.words } }

  /// The threshold block of `key`: looked up, or computed by `compute` and kept.
  func block(_ key: Key, compute: () -> [UInt64]) -> [UInt64] {
    kept(key, in: \.thresholds, words: { $0.count }, compute: compute)
  }

  /// The dwell table of a screen with this median and σ
  /// (``Discretisation/dwellTable(medianSeconds:sigma:)``): looked up, or computed and kept.
  func dwellTable(medianSeconds: Double, sigma: Double) -> [UInt32] {
    kept(Key(words: [medianSeconds.bitPattern, sigma.bitPattern]), in: \.dwell, words: { ($0.count + 1) / 2 }) {
      Discretisation.dwellTable(medianSeconds: medianSeconds, sigma: sigma)
    }
  }

  /// The value of `key` in `table`: looked up, or computed by `compute` and kept while the
  /// memo has room for its `words`.
  private func kept<Value: Sendable>(
    _ key: Key, in table: WritableKeyPath<Tables, [Key: Value]>, words size: (Value) -> Int, compute: () -> Value
  ) -> Value {
    if let known = blocks.withLock({ $0[keyPath: table][key] }) { return known }
    let computed = compute()
    let words = size(computed)
    guard words <= capacity / 8 else { return computed }
    blocks.withLock { memo in
      if memo.words + words > capacity { memo = Tables() }
      if memo[keyPath: table].updateValue(computed, forKey: key) == nil { memo.words += words }
    }
    return computed
  }
}
