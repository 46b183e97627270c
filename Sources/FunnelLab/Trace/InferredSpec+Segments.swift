package import FunnelStats

/// Segments in an inferred spec: each segment's users weighed by their share of the log,
/// and its own probabilities on the screens where the data says segments act differently.
extension InferredSpec {
  /// Whether one screen's actions depend on the segment.
  package struct SegmentTest: Sendable, Hashable {
    /// The screen.
    package var screen: String
    /// Chi-square independence of segment (rows, those with enough views) and action.
    package var test: TestResult
    /// Whether it fails, below 0.001 split over the screens tested (Bonferroni).
    package var differ: Bool
  }

  /// The test of every screen of the spec where two or more segments have
  /// ``FlowInferenceReport/minimumViews`` views and two actions were taken.
  package static func segmentTests(_ f: FlowInference) -> [SegmentTest] {
    guard f.segments.count >= 2 else { return [] }
    var found: [(String, TestResult)] = []
    for id in reachable(f).screens {
      guard let s = f.screens[id] else { continue }
      let list = actions(s, screenKind: kind(s))
      var rows: [[Int]] = []
      for segment in f.segments.keys.sorted() {
        guard let counts = f.segments[segment]?.screens[id], counts.views >= FlowInferenceReport.minimumViews else { continue }
        rows.append(list.map { $0.count(in: counts, screenKind: kind(s)) })
      }
      let columns = list.indices.filter { j in rows.contains { $0[j] > 0 } }
      guard rows.count >= 2, columns.count >= 2 else { continue }
      let table = rows.map { row in columns.map { row[$0] } }
      if let test = try? ChiSquareIndependenceTest.test(table, yatesCorrection: false).test { found.append((id, test)) }
    }
    let level = FlowInferenceReport.markovAlpha / Double(max(found.count, 1))
    return found.map { SegmentTest(screen: $0.0, test: $0.1, differ: $0.1.pValue < level) }
  }

  /// The spec's `population`: every segment by its share of the users, with its own
  /// probabilities on the screens where segments differ; `nil` without two segments.
  static func population(_ f: FlowInference) -> JSONValue? {
    guard f.segments.count >= 2, f.users > 0 else { return nil }
    let differing = segmentTests(f).filter(\.differ).map(\.screen)
    var segments: [JSONValue] = []
    for id in f.segments.keys.sorted() {
      guard let segment = f.segments[id], segment.users > 0 else { continue }
      var overrides: [(String, JSONValue)] = []
      for screen in differing {
        guard let s = f.screens[screen], let counts = segment.screens[screen], counts.views >= FlowInferenceReport.minimumViews
        else { continue }
        let screenKind = kind(s)
        let list = actions(s, screenKind: screenKind).filter { $0.count > 0 || $0.base.isEmpty }
        let own = list.map { $0.count(in: counts, screenKind: screenKind) }
        let total = own.reduce(0, +)
        guard total > 0 else { continue }
        overrides.append((screen, .object(zip(list, own).map { ($0.id, probability($1, total)) })))
      }
      var members: [(String, JSONValue)] = [("id", .string(id)), ("weight", .number(Double(segment.users) / Double(f.users)))]
      if !overrides.isEmpty { members.append(("screens", .object(overrides))) }
      segments.append(.object(members))
    }
    return segments.count >= 2 ? .object([("segments", .array(segments))]) : nil
  }
}
