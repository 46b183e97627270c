import Synchronization

/// A process-wide memo of the exact engine's walks, for a test process that solves the
/// same flows again and again (a debug build walks Klick's five variants in seconds, and
/// hundreds of command-line tests ask for them). Off unless such a process turns it on
/// (``turnOn()``): the library itself never caches, and a result looked up is the very
/// value the same walk of the same flow and cells returned before, bit for bit.
///
/// - Complexity: a lookup hashes the flow's tables, `O(table size)`; at most ``capacity``
///   walks are kept (all are dropped when it is reached).
package enum _ExactWalkMemo {
  /// One walk's inputs: the compiled flow and the population cells, in order.
  struct Key: Hashable, Sendable {
    let flow: CompiledFlow
    let segments: [Int]
    let bins: [Int]
    let weights: [Double]

    /// A sample of the flow's tables (its variant, sizes and every 61st threshold): hashing
    /// all of Klick's 112,896 thresholds on every lookup cost the test suite a tenth of its
    /// time. Equality still compares everything, so a collision is only slower.
    func hash(into hasher: inout Hasher) {
      hasher.combine(flow.variantID)
      hasher.combine(flow.thresholds.count)
      for i in Swift.stride(from: 0, to: flow.thresholds.count, by: 61) { hasher.combine(flow.thresholds[i]) }
      hasher.combine(flow.outcomeTarget)
      hasher.combine(segments)
      hasher.combine(bins)
      hasher.combine(weights)
    }
  }

  /// The most walks kept.
  static let capacity = 256
  private static let isOn = Atomic<Bool>(false)
  private static let walks = Mutex<[Key: _ExactAccumulators]>([:])

  /// Turns the memo on for the rest of the process (tests only).
  package static func turnOn() { isOn.store(true, ordering: .relaxed) }

  /// The walk of `flow` over `cells`: looked up when the memo is on and has it, else computed
  /// by `compute` (and kept, when the memo is on).
  static func walk(
    _ flow: CompiledFlow, cells: [(segment: Int, bin: Int, weight: Double)], compute: () -> _ExactAccumulators
  ) -> _ExactAccumulators {
    guard isOn.load(ordering: .relaxed) else { return compute() }
    let key = Key(flow: flow, segments: cells.map(\.segment), bins: cells.map(\.bin), weights: cells.map(\.weight))
    if let known = walks.withLock({ $0[key] }) { return known }
    let computed = compute()
    walks.withLock { table in
      if table.count >= capacity { table.removeAll() }
      table[key] = computed
    }
    return computed
  }
}
