import Foundation
package import FunnelStats

/// What `funnellab infer` found, and how well the inferred spec holds the log: each
/// screen's observed reach against the exact engine's prediction from the inferred spec,
/// each action's probability with its interval, the test of the first-order assumption per
/// screen, and the screens seen too rarely to fit.
package struct FlowInferenceReport: Sendable {
  /// One action of the inferred spec.
  package struct ActionRow: Sendable, Hashable {
    /// The screen.
    package var screen: String
    /// The action's id in the spec.
    package var id: String
    /// Its kind.
    package var kind: String
    /// Where it leads (`completed`, `abandoned` or a screen).
    package var target: String
    /// Attempts in the log.
    package var count: Int
    /// Its probability per view, `count` over the screen's actions.
    package var probability: Double
    /// Its `1 − α` Wilson interval.
    package var interval: ConfidenceInterval
  }

  /// One screen.
  package struct ScreenRow: Sendable, Hashable {
    /// The id.
    package var id: String
    /// The kind inferred.
    package var kind: String
    /// Views.
    package var views: Int
    /// Users who viewed it.
    package var users: Int
    /// The share of users who viewed it.
    package var reach: Double
    /// Its `1 − α` Wilson interval.
    package var reachInterval: ConfidenceInterval
    /// The exact engine's reach on the inferred spec.
    package var predictedReach: Double?
    /// The dwell's median in seconds (`nil` without dwells above 0).
    package var dwellMedian: Double?
    /// Whether it was seen by fewer than ``FlowInferenceReport/minimumViews`` views: named, not trusted.
    package var tooRare: Bool
    /// The test of its actions on first views against later views (`nil` when too few of either).
    package var markov: TestResult?
    /// The test of its actions' shares over time (`nil` when too few actions).
    package var drift: Drift?
  }

  /// Screens with fewer views are reported as too rare to fit.
  package static let minimumViews = 30
  /// A Markov test below this p-value (before the Bonferroni split over screens) is a failure.
  package static let markovAlpha = 0.001

  /// The intervals are `1 − α`.
  package var alpha: Double
  /// Users whose walks ended.
  package var users: Int
  /// Users who completed.
  package var completed: Int
  /// The observed completion rate and its `1 − α` interval.
  package var completion: (rate: Double, interval: ConfidenceInterval)
  /// The exact engine's completion rate on the inferred spec.
  package var predictedCompletion: Double?
  /// Users who bought (a success, or a pending purchase approved).
  package var purchasers: Int
  /// The exact engine's purchase conversion.
  package var predictedPurchase: Double?
  /// Users seen again after their walk ended.
  package var returns: Int
  /// Users still on the way at the end of the log (left out).
  package var unfinished: Int
  /// The earliest and latest time of an event counted (milliseconds since the epoch).
  package var span: ClosedRange<Double>?
  /// The window walks had to start in (`nil`: every walk was counted).
  package var window: Range<Double>?
  /// Walks left out because they started outside ``window``.
  package var outsideWindow: Int
  /// How a log of another shape was read (set by the caller; `nil` for FunnelLab's events).
  package var reading: LogReading?
  /// With a segment property: each segment and its users (sorted by id).
  package var segments: [(id: String, users: Int)]
  /// With a segment property: each screen's test of whether segments act alike.
  package var segmentTests: [InferredSpec.SegmentTest]
  /// Screens only users who started elsewhere saw: left out of the spec, which has one start.
  package var leftOut: [String]
  /// Screens, in the spec's order.
  package var screens: [ScreenRow]
  /// Actions, screen by screen.
  package var actions: [ActionRow]

  /// The screens whose first-order test fails, at `markovAlpha / tested screens`.
  package var markovFailures: [ScreenRow] {
    let tested = screens.filter { $0.markov != nil }.count
    return screens.filter { s in (s.markov?.pValue).map { $0 < Self.markovAlpha / Double(max(tested, 1)) } ?? false }
  }

  /// The report of `f`, with the exact solve of its inferred spec (`screenIDs` in the
  /// compiled flow's order, `reach` per screen) when it was solved.
  package init(_ f: FlowInference, completion predicted: Double?, purchase: Double?, reach: [String: Double], alpha: Double = 0.05) {
    users = f.users
    completed = f.completed
    self.alpha = alpha
    let level = 1 - alpha
    func wilson(_ k: Int, _ n: Int) -> ConfidenceInterval {
      (try? ProportionCount(successes: min(k, max(n, 0)), trials: max(n, 0))).flatMap {
        try? ProportionInterval.wilson($0, confidenceLevel: level)
      }
        ?? ConfidenceInterval(lower: 0, upper: 1, confidenceLevel: level, method: "wilson")
    }
    completion = (f.users > 0 ? Double(f.completed) / Double(f.users) : 0, wilson(f.completed, f.users))
    predictedCompletion = predicted
    purchasers = f.store.successes + f.store.approvals
    predictedPurchase = purchase
    returns = f.returns
    unfinished = f.unfinished
    span = f.span
    window = f.window
    outsideWindow = f.outsideWindow
    reading = nil
    segments = f.segments.keys.sorted().map { ($0, f.segments[$0]?.users ?? 0) }
    segmentTests = InferredSpec.segmentTests(f)
    let kept = Set(InferredSpec.reachable(f).screens)
    leftOut = InferredSpec.order(f).filter { !kept.contains($0) }
    screens = []
    actions = []
    // A screen's users include walks still on the way: reach is out of every walk started.
    let walks = max(f.walks, f.users)
    for id in InferredSpec.order(f) {
      guard let s = f.screens[id] else { continue }
      let kind = InferredSpec.kind(s)
      screens.append(
        ScreenRow(
          id: id, kind: kind, views: s.views, users: s.users, reach: walks > 0 ? Double(s.users) / Double(walks) : 0,
          reachInterval: wilson(s.users, walks), predictedReach: reach[id],
          dwellMedian: s.logDwell.count > 0 ? (s.logDwell.sum / Double(s.logDwell.count)).exponential : nil,
          tooRare: s.views < Self.minimumViews, markov: Self.markov(s), drift: Self.drift(s.timeline)))
      let list = InferredSpec.actions(s, screenKind: kind)
      let total = list.reduce(0) { $0 + $1.count }
      for a in list where a.count > 0 {
        actions.append(
          ActionRow(
            screen: id, id: a.id, kind: a.kind, target: a.target.map(InferredSpec.name) ?? "abandoned", count: a.count,
            probability: Double(a.count) / Double(max(total, 1)), interval: wilson(a.count, total)))
      }
    }
  }

  /// The chi-square test of independence of a screen's actions (columns) and whether the view
  /// was the user's first of it (rows), when both rows have at least 20 actions and two
  /// actions were taken.
  static func markov(_ s: FlowInference.ScreenCount) -> TestResult? {
    let columns = s.actions.sorted { $0.key < $1.key }.map(\.value.byVisit).filter { $0[0] + $0[1] > 0 }
    guard columns.count >= 2 else { return nil }
    let first = columns.map { $0[0] }
    let later = columns.map { $0[1] }
    guard first.reduce(0, +) >= 20, later.reduce(0, +) >= 20 else { return nil }
    return try? ChiSquareIndependenceTest.test([first, later], yatesCorrection: false).test
  }
}

extension Double {
  fileprivate var exponential: Double { Foundation.exp(self) }
}
