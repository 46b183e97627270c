/// A screen's actions counted in time buckets, for the test of drift (whether the shares of
/// its actions move over the log's span).
///
/// Buckets start ``baseWidth`` wide and double, merging neighbours, whenever the span would
/// need more than ``maximumBuckets``: memory is bounded by the bucket count and the screen's
/// actions, never by the events. A bucket is `⌊time / width⌋`, and `width` is the base times a
/// power of two, so the final buckets depend only on the earliest and latest times, not on the
/// order the events came in.
package struct ActionTimeline: Sendable, Hashable {
  /// The most buckets a span is cut into.
  package static let maximumBuckets = 1024
  /// The narrowest bucket: one minute, in milliseconds.
  package static let baseWidth = 60_000.0

  /// A bucket's width, in milliseconds.
  package private(set) var width = baseWidth
  /// The actions' ids, in the order first counted (the index of ``buckets``' counts).
  package private(set) var actions: [String] = []
  /// Counts by bucket (`⌊time / width⌋`), one per action of ``actions``.
  package private(set) var buckets: [Int: [Int]] = [:]
  private var lowest = 0
  private var highest = -1

  /// An empty timeline.
  package init() {}

  /// Counts `action` at `time` (milliseconds since the epoch, at least 0).
  package mutating func add(_ action: String, at time: Double) {
    let index = actions.firstIndex(of: action) ?? actions.count
    if index == actions.count {
      actions.append(action)
      for b in buckets.keys { buckets[b]?.append(0) }
    }
    var b = Self.bucket(time, width)
    if highest < lowest {
      lowest = b
      highest = b
    }
    while max(highest, b) - min(lowest, b) >= Self.maximumBuckets {
      coarsen()
      b = Self.bucket(time, width)
    }
    lowest = min(lowest, b)
    highest = max(highest, b)
    buckets[b, default: Array(repeating: 0, count: actions.count)][index] += 1
  }

  /// The buckets in time order: each one's start (milliseconds) and counts per action.
  package var ordered: [(start: Double, counts: [Int])] {
    buckets.keys.sorted().map { b in (Double(b) * width, buckets[b] ?? []) }
  }

  private static func bucket(_ time: Double, _ width: Double) -> Int { Int(max(time, 0) / width) }

  /// Doubles the width: bucket `b` becomes `b / 2` (times are not negative).
  private mutating func coarsen() {
    width *= 2
    var merged: [Int: [Int]] = [:]
    for (b, counts) in buckets {
      if let old = merged[b / 2] {
        merged[b / 2] = zip(old, counts).map { $0 + $1 }
      } else {
        merged[b / 2] = counts
      }
    }
    buckets = merged
    lowest /= 2
    highest /= 2
  }
}
