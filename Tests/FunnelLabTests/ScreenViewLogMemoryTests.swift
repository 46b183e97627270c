import Foundation
import FunnelTestSupport
import Testing

@testable import FunnelLab

/// A clickstream's walks without a completion end at their last event, which a stream knows
/// only at the end of the log; in a log sorted by user they end once ``ScreenViewLog/settledWalks``
/// other walks followed, so memory stays flat. Early or at the end, the counts are the same.
@Suite struct ScreenViewLogMemoryTests {
  /// The clickstream rows of `users` users of `drift-flow`'s control, sorted by user (as `trace` writes them).
  static func rows(users: UInt64) throws -> [[String]] {
    let experiment = try ExperimentLoader.load(contentsOf: DriftTests.flow)
    var rows: [[String]] = []
    UserTrace.walk(try UserTrace.flow(of: experiment, variant: "control"), users: 0..<users, seed: 62) { events in
      rows += TraceShape.clickstreamRows(events)
    }
    return rows
  }

  /// Reads `rows` as a clickstream; the most walks held at once.
  static func read(_ rows: [[String]]) -> (log: ScreenViewLog, mostOpen: Int) {
    var log = ScreenViewLog(.csv, options: ScreenViewLog.Options(), inference: FlowInference(format: .csv))
    log.add(line: TraceShape.clickstreamHeader.joined(separator: ","), number: 1)
    var mostOpen = 0
    for (k, row) in rows.enumerated() {
      log.add(line: row.joined(separator: ","), number: k + 2)
      mostOpen = max(mostOpen, log.open.count)
    }
    log.finish()
    return (log, mostOpen)
  }

  /// Sorted by user, at most ``ScreenViewLog/settledWalks`` + 1 walks are held; sorted by
  /// time (users interleave), the log is seen not to be sorted by user and nothing ends early;
  /// both give the same counts, action by action.
  @Test func aLogSortedByUserHoldsFewWalksAndCountsTheSame() throws {
    let users = TestStage.size(fast: 3_000, long: 20_000)
    let byUser = try Self.rows(users: UInt64(users))
    let byTime = byUser.enumerated().sorted { a, b in (a.element[2], a.offset) < (b.element[2], b.offset) }.map(\.element)
    #expect(byTime != byUser, "users interleave in time")
    let sorted = Self.read(byUser)
    let interleaved = Self.read(byTime)
    #expect(sorted.log.sortedByWalk && !interleaved.log.sortedByWalk)
    #expect(sorted.mostOpen <= ScreenViewLog.settledWalks + 1, "\(sorted.mostOpen)")
    #expect(interleaved.log.badLines == 0 && sorted.log.badLines == 0)
    let a = sorted.log.inference
    let b = interleaved.log.inference
    #expect(a.users == users && b.users == users)
    #expect(a.completed == b.completed)
    #expect(a.screens.keys.sorted() == b.screens.keys.sorted())
    for (id, screen) in a.screens {
      #expect(screen.views == b.screens[id]?.views, "\(id)")
      #expect(screen.actions.mapValues(\.targets) == b.screens[id]?.actions.mapValues(\.targets), "\(id)")
    }
  }
}
