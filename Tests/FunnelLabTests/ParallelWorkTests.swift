import Synchronization
import Testing

@testable import FunnelLab

/// The one parallel helper: results in index (or worker) order whatever the scheduling, each
/// item once, and no item started past the first failure.
@Suite struct ParallelWorkTests {
  @Test(arguments: [1, 2, 3, 8])
  func mapKeepsTheOrderOfItsIndices(threads: Int) {
    let calls = Atomic<Int>(0)
    // Uneven work: late items are cheap, so they finish before early ones on several threads.
    let values = ParallelWork.map(200, threads: threads) { k -> Int in
      calls.add(1, ordering: .relaxed)
      var x = UInt64(k)
      for _ in 0..<((200 - k) * 50) { x = x &* 6_364_136_223_846_793_005 &+ 1 }
      return k * k + Int(x % 1)
    }
    #expect(values == (0..<200).map { $0 * $0 })
    #expect(calls.load(ordering: .relaxed) == 200)
    #expect(ParallelWork.map(0, threads: threads) { $0 }.isEmpty)
  }

  struct Failed: Error, Equatable { var k: Int }

  @Test(arguments: [1, 2])
  func mapUntilFailureEndsAtTheFirstFailure(threads: Int) {
    let started = Mutex<[Int]>([])
    let results = ParallelWork.mapUntilFailure(1_000, threads: threads) { k -> Result<Int, Failed> in
      started.withLock { $0.append(k) }
      return k == 10 ? .failure(Failed(k: 10)) : .success(k)
    }
    #expect(results.prefix(10).map { try? $0.get() } == (0..<10).map { $0 })
    guard results.count > 10, case .failure(let error) = results[10] else {
      Issue.record("\(results.prefix(12))")
      return
    }
    #expect(error == Failed(k: 10))
    // On one worker nothing past the failure starts; on more, only what was under way when
    // it was seen (how much depends on the scheduler, so it is not bounded here).
    if threads == 1 {
      #expect(results.count == 11 && started.withLock { $0 } == Array(0...10))
    }
  }

  @Test func eachWorkerReturnsItsPartsInWorkerOrder() {
    #expect(ParallelWork.eachWorker(4) { $0 * 10 } == [0, 10, 20, 30])
    #expect(ParallelWork.eachWorker(1) { $0 + 7 } == [7])
    #expect(ParallelWork.workers(for: 3, threads: 8) == 3 && ParallelWork.workers(for: 0, threads: 8) == 1)
  }
}
