import Dispatch
import Synchronization

/// The one way FunnelLab fans work out to threads. Every result is in a fixed order (an
/// index's, or a worker's), never in the order threads finish, so a caller that combines
/// them in that order gets the same bytes for any thread count.
package enum ParallelWork {
  /// The number of workers for `items` items on up to `threads` threads (`nil`: the
  /// engine's default): at least 1, at most `items`.
  package static func workers(for items: Int, threads: Int?) -> Int {
    max(1, min(threads ?? MonteCarloEngine.defaultThreadCount, items))
  }

  /// `body(k)` for every `k` in `0..<count`, each once, on up to `threads` workers that take
  /// the next index when they finish one (dynamic scheduling: items of uneven cost keep every
  /// worker busy); the results in the order of `k`. `progress(1)` follows each item. One
  /// worker runs on the calling thread.
  package static func map<T: Sendable>(
    _ count: Int, threads: Int?, progress: (@Sendable (Int) -> Void)? = nil, _ body: @Sendable (Int) -> T
  ) -> [T] {
    let results = mapUntilFailure(count, threads: threads, progress: progress) { k -> Result<T, Never> in .success(body(k)) }
    return results.map { result in
      switch result {
      case .success(let value): value
      }
    }
  }

  /// ``map(_:threads:progress:_:)`` for work that can fail: after a failure at `k`, no index
  /// above `k` is started, so the results end at the first failure or a little after (all a
  /// caller reads past it).
  package static func mapUntilFailure<Success: Sendable, Failure: Error>(
    _ count: Int, threads: Int?, progress: (@Sendable (Int) -> Void)? = nil, _ body: @Sendable (Int) -> Result<Success, Failure>
  ) -> [Result<Success, Failure>] {
    guard count > 0 else { return [] }
    let slots = Mutex<[Result<Success, Failure>?]>(Array(repeating: nil, count: count))
    let next = Atomic<Int>(0)
    let failed = Atomic<Int>(Int.max)
    eachWorker(workers(for: count, threads: threads)) { _ in
      while true {
        let k = next.add(1, ordering: .relaxed).oldValue
        if k >= count || k > failed.load(ordering: .relaxed) { break }
        let result = body(k)
        if case .failure = result { failed.min(k, ordering: .relaxed) }
        slots.withLock { $0[k] = result }
        progress?(1)
      }
    }
    return slots.withLock { $0.compactMap { $0 } }
  }

  /// `body(w)` once for every worker `w` in `0..<workers`, in parallel (inline when there is
  /// one), each returning its part; the parts in worker order. For workers that share a
  /// queue of chunks and keep their own accumulator: the caller combines the parts with an
  /// operation whose result does not depend on which worker took which chunk (sums of counts).
  package static func eachWorker<T: Sendable>(_ workers: Int, _ body: @Sendable (Int) -> T) -> [T] {
    guard workers > 1 else { return [body(0)] }
    let parts = Mutex<[T?]>(Array(repeating: nil, count: workers))
    DispatchQueue.concurrentPerform(iterations: workers) { w in
      let part = body(w)
      parts.withLock { $0[w] = part }
    }
    return parts.withLock { $0.compactMap { $0 } }
  }

  /// ``eachWorker(_:_:)`` for work that returns nothing.
  package static func eachWorker(_ workers: Int, _ body: @Sendable (Int) -> Void) {
    let _: [Bool] = eachWorker(workers) { w in
      body(w)
      return true
    }
  }
}
