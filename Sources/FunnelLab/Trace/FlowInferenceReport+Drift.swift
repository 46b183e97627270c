package import FunnelStats

/// Drift: whether a screen's actions kept their shares over the log's span, and where not,
/// the period that differs.
extension FlowInferenceReport {
  /// The test of one screen's drift.
  package struct Drift: Sendable, Hashable {
    /// The chi-square test of independence of the screen's actions (columns) and the time
    /// blocks (rows).
    package var test: TestResult
    /// The equal-count time blocks the span was cut into.
    package var blocks: Int
    /// The run of blocks whose shares differ most from the others' (milliseconds since the
    /// epoch, its first block's start to its last block's end).
    package var period: Range<Double>
    /// The action whose share moved most in that period.
    package var action: String
    /// Its share during the period.
    package var during: Double
    /// Its share outside the period.
    package var outside: Double
  }

  /// A screen's drift is a failure below this p-value, before the Bonferroni split over the
  /// screens tested (as the Markov test).
  package static let driftAlpha = 0.001
  /// The fewest actions a screen needs for its drift to be tested.
  package static let driftMinimumActions = 400
  /// The most time blocks a screen's span is cut into.
  package static let driftMaximumBlocks = 16
  /// The shortest span of a screen's actions whose drift is tested: one day, in milliseconds.
  /// A shorter log has no period to fit a window to, and a log whose times count from each
  /// user's start (as `trace` writes FunnelLab's events) would read the order of a walk as drift.
  package static let driftMinimumSpan = 86_400_000.0

  /// The screens whose drift test fails, at `driftAlpha / tested screens`.
  package var driftFailures: [ScreenRow] {
    let tested = screens.filter { $0.drift != nil }.count
    return screens.filter { s in (s.drift?.test.pValue).map { $0 < Self.driftAlpha / Double(max(tested, 1)) } ?? false }
  }

  /// The test of `timeline`'s drift: its actions cut into equal-count time blocks (one per
  /// ``driftMinimumActions`` actions, 2 to ``driftMaximumBlocks``; a bucket is never split),
  /// actions with fewer than 10 a block folded into one column, then the chi-square test of
  /// independence of blocks and actions. `nil` with fewer than ``driftMinimumActions``
  /// actions, a span under ``driftMinimumSpan``, two blocks or two columns.
  static func drift(_ timeline: ActionTimeline) -> Drift? {
    let buckets = timeline.ordered
    let total = buckets.reduce(0) { $0 + $1.counts.reduce(0, +) }
    guard total >= driftMinimumActions, let first = buckets.first, let last = buckets.last,
      last.start + timeline.width - first.start >= driftMinimumSpan
    else { return nil }
    let wanted = min(driftMaximumBlocks, max(2, total / driftMinimumActions))
    let columns = self.columns(buckets, actions: timeline.actions, blocks: wanted)
    guard columns.count >= 2 else { return nil }
    var rows: [[Int]] = []
    var starts: [Double] = []
    var ends: [Double] = []
    var running = 0
    for bucket in buckets {
      let counts = columns.map { c in c.members.reduce(0) { $0 + bucket.counts[$1] } }
      if rows.isEmpty || running * wanted >= rows.count * total {
        rows.append(Array(repeating: 0, count: columns.count))
        starts.append(bucket.start)
        ends.append(bucket.start)
      }
      running += bucket.counts.reduce(0, +)
      rows[rows.count - 1] = zip(rows[rows.count - 1], counts).map { $0 + $1 }
      ends[rows.count - 1] = bucket.start + timeline.width
    }
    let kept = rows.indices.filter { rows[$0].reduce(0, +) > 0 }
    guard kept.count >= 2, let test = try? ChiSquareIndependenceTest.test(kept.map { rows[$0] }, yatesCorrection: false).test else {
      return nil
    }
    let period = self.period(kept.map { rows[$0] })
    let inside = Array(kept[period])
    let during = columnShares(inside.map { rows[$0] })
    let outsideRows = kept.filter { !inside.contains($0) }.map { rows[$0] }
    let outside = columnShares(outsideRows)
    let contributions = self.contributions(columnSums(inside.map { rows[$0] }), columnSums(outsideRows))
    let moved = columns.indices.max { contributions[$0] < contributions[$1] } ?? 0
    return Drift(
      test: test, blocks: kept.count, period: starts[inside.first ?? 0]..<ends[inside.last ?? 0], action: columns[moved].name,
      during: during[moved], outside: outside[moved])
  }

  /// The columns of the test: each action with at least 10 a block, the others folded into
  /// one (`other`, kept when it has as many).
  private static func columns(
    _ buckets: [(start: Double, counts: [Int])], actions: [String], blocks: Int
  ) -> [(name: String, members: [Int])] {
    let totals = actions.indices.map { a in buckets.reduce(0) { $0 + $1.counts[a] } }
    var columns: [(name: String, members: [Int])] = []
    var rare: [Int] = []
    for a in actions.indices.sorted(by: { actions[$0] < actions[$1] }) {
      if totals[a] >= 10 * blocks { columns.append((actions[a], [a])) } else if totals[a] > 0 { rare.append(a) }
    }
    if rare.reduce(0, { $0 + totals[$1] }) >= 10 * blocks { columns.append(("other", rare)) }
    return columns
  }

  /// The run of blocks that differs most from the rest: of every run of consecutive blocks
  /// but all of them, the one whose chi-square test against the other blocks has the largest
  /// statistic (an epidemic change-point, as in Levin and Kline's alternative: a change that
  /// starts and may end).
  private static func period(_ rows: [[Int]]) -> Range<Int> {
    var best = 0..<1
    var largest = -1.0
    for lower in rows.indices {
      for upper in lower + 1...rows.count where upper - lower < rows.count {
        let inside = columnSums(Array(rows[lower..<upper]))
        let outside = columnSums(Array(rows[..<lower]) + Array(rows[upper...]))
        let used = inside.indices.filter { inside[$0] + outside[$0] > 0 }
        let table = [used.map { inside[$0] }, used.map { outside[$0] }]
        guard let statistic = try? ChiSquareIndependenceTest.test(table, yatesCorrection: false).test.statistic else { continue }
        if statistic > largest {
          largest = statistic
          best = lower..<upper
        }
      }
    }
    return best
  }

  /// Each column's share of the chi-square statistic of the two rows `inside` and `outside`
  /// (`Σ (observed − expected)² / expected` over its two cells): the action that moved most
  /// for its size.
  private static func contributions(_ inside: [Int], _ outside: [Int]) -> [Double] {
    let rowTotals = [inside.reduce(0, +), outside.reduce(0, +)].map(Double.init)
    let total = rowTotals[0] + rowTotals[1]
    guard total > 0 else { return inside.map { _ in 0 } }
    return inside.indices.map { c in
      let column = Double(inside[c] + outside[c])
      var sum = 0.0
      for (observed, rowTotal) in [(Double(inside[c]), rowTotals[0]), (Double(outside[c]), rowTotals[1])] {
        let expected = rowTotal * column / total
        if expected > 0 { sum += (observed - expected) * (observed - expected) / expected }
      }
      return sum
    }
  }

  private static func columnSums(_ rows: [[Int]]) -> [Int] {
    guard let first = rows.first else { return [] }
    return rows.dropFirst().reduce(first) { zip($0, $1).map { $0 + $1 } }
  }

  private static func columnShares(_ rows: [[Int]]) -> [Double] {
    let sums = columnSums(rows)
    let total = sums.reduce(0, +)
    return sums.map { total > 0 ? Double($0) / Double(total) : 0 }
  }
}
