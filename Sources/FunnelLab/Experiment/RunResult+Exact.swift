import Dispatch
import Synchronization

extension RunResult {
  /// Solves every variant's compiled flow with ``ExactEngine`` and keeps the
  /// solution in ``VariantRun/exact``: the noise-free value of every metric, which
  /// every "true" value and every verdict of FunnelLab is graded against.
  ///
  /// The variants are solved independently (one worker per variant, up to
  /// `threads`), so the result does not depend on scheduling. A run with a custom
  /// ``PaywallManager`` has no exact counterpart: leave ``VariantRun/exact`` `nil`
  /// there (see ``RunOptions/solveExact``).
  ///
  /// - Complexity: one ``ExactEngine/solve(_:)`` per variant.
  public mutating func solveExact(threads: Int? = nil) {
    let flows = variants.map(\.flow)
    let solutions = ExactTruth.solve(flows, threads: threads)
    for i in variants.indices { variants[i].exact = solutions[i] }
  }

  /// The exact difference variant − control of `metric` (``ExactEngine``), `nil`
  /// when either exact value is undefined or was not solved. Variants whose
  /// compiled tables are identical differ by exactly zero (the solver is
  /// deterministic), which grades their significant results as false positives.
  public func exactDifference(_ metric: FunnelMetric, variant id: String) -> Double? {
    guard let v = variant(id), let c = control, let ev = v.exact, let ec = c.exact else { return nil }
    guard let a = ev.value(of: metric), let b = ec.value(of: metric) else { return nil }
    return a - b
  }
}

/// Exact solutions of several compiled flows, solved in parallel in a fixed order.
enum ExactTruth {
  static func solve(_ flows: [CompiledFlow], threads: Int? = nil) -> [ExactFunnel] {
    let workers = min(max(threads ?? MonteCarloEngine(threads: nil).threads, 1), flows.count)
    guard workers > 1 else { return flows.map { ExactEngine.solve($0) } }
    let slots = Mutex<[ExactFunnel?]>(Array(repeating: nil, count: flows.count))
    let next = Atomic<Int>(0)
    DispatchQueue.concurrentPerform(iterations: workers) { _ in
      while true {
        let k = next.add(1, ordering: .relaxed).oldValue
        if k >= flows.count { break }
        let solution = ExactEngine.solve(flows[k])
        slots.withLock { $0[k] = solution }
      }
    }
    return slots.withLock { $0.compactMap { $0 } }
  }
}
