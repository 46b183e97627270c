import Foundation
import FunnelStats
import FunnelTestSupport
import Testing

@testable import FunnelLab

/// Drift in `infer`: a screen whose actions' shares move over the log's span is named with
/// the period, and a stable flow is not. The logs are clickstreams (screen views, purchases and
/// completions only) of `Tests/Fixtures/event-logs/drift-flow.json`, three weeks of one user a
/// minute: the control throughout, or the second week walked by `brokenGoal`, whose goal
/// question's quit probability is twice the control's.
@Suite struct DriftTests {
  static let flow = repositoryRoot.appendingPathComponent("Tests/Fixtures/event-logs/drift-flow.json").path
  /// A week of users, one a minute.
  static let week: UInt64 = 7 * 24 * 60
  /// 2026-01-12 00:00 and 2026-01-19 00:00 UTC: the broken week's start and end.
  static let brokenWeek = Double(TraceShape.epoch + week * TraceShape.spacing)..<Double(TraceShape.epoch + 2 * week * TraceShape.spacing)

  /// The report of three weeks of `drift-flow`'s users walked with `seed`, the second week by
  /// `brokenGoal` when `broken`; with `window`, of the walks that start in it.
  static func report(seed: UInt64, broken: Bool, window: Range<Double>? = nil) throws -> FlowInferenceReport {
    let experiment = try ExperimentLoader.load(contentsOf: flow)
    let control = try UserTrace.flow(of: experiment, variant: "control")
    let changed = try UserTrace.flow(of: experiment, variant: broken ? "brokenGoal" : "control")
    var options = ScreenViewLog.Options()
    options.completionEvents = ["onboarding_completed"]
    var log = ScreenViewLog(.csv, options: options, inference: FlowInference(format: .csv, window: window))
    var line = 1
    log.add(line: TraceShape.clickstreamHeader.joined(separator: ","), number: line)
    for (flow, users) in [(control, 0..<week), (changed, week..<2 * week), (control, 2 * week..<3 * week)] {
      UserTrace.walk(flow, users: users, seed: seed) { events in
        for row in TraceShape.clickstreamRows(events) {
          line += 1
          log.add(line: row.joined(separator: ","), number: line)
        }
      }
    }
    log.finish()
    #expect(log.badLines == 0, "\(log.firstBadLines)")
    var report = FlowInferenceReport(log.inference, completion: nil, purchase: nil, reach: [:])
    report.reading = LogReading(log)
    return report
  }

  /// The broken week is found on the goal question and no other screen: its period lies
  /// within a block (a day and a half here) of the true one, the action named is the quit, and
  /// its share during the period is about twice the share outside it.
  @Test func aBrokenWeekIsNamedWithItsPeriod() throws {
    let r = try Self.report(seed: 61, broken: true)
    #expect(r.driftFailures.map(\.id) == ["goal"], "\(r.screens.map { ($0.id, $0.drift?.test.pValue as Double?) })")
    let drift = try #require(r.screens.first { $0.id == "goal" }?.drift)
    let slack = 1.5 * 86_400_000.0
    #expect(abs(drift.period.lowerBound - Self.brokenWeek.lowerBound) < slack, "\(drift.period)")
    #expect(abs(drift.period.upperBound - Self.brokenWeek.upperBound) < slack, "\(drift.period)")
    #expect(drift.action == "quit")
    #expect(drift.during / drift.outside > 1.5 && drift.during / drift.outside < 2.5, "\(drift.during) against \(drift.outside)")
    #expect(r.reading?.timeFormats.map(\.format) == [.dateTime])
  }

  /// A window after the broken week (`--since`) holds no drift, and counts only the walks
  /// that start in it.
  @Test func aWindowAfterTheChangeIsStable() throws {
    let r = try Self.report(seed: 61, broken: true, window: Self.brokenWeek.upperBound..<FlowInference.timestamps.upperBound)
    #expect(r.driftFailures.isEmpty)
    #expect(r.users == Int(Self.week))
    #expect(r.outsideWindow == Int(2 * Self.week))
    #expect((r.span?.lowerBound ?? 0) >= Self.brokenWeek.upperBound)
  }

  /// A stable flow is not flagged. Over seeds (3 here, 100 in the long stage) the drift
  /// test's p-values of every screen tested are uniform enough: the share below 0.05 lies within
  /// 3 SE of 0.05, and at most 2 logs of 100 are flagged (the family's level is 0.001).
  @Test func aStableFlowIsNotFlagged() throws {
    let seeds = TestStage.size(fast: 1, long: 100)
    var pValues: [Double] = []
    var flagged = 0
    for seed in 0..<UInt64(seeds) {
      let r = try Self.report(seed: 1_000 + seed, broken: false)
      pValues += r.screens.compactMap { $0.drift?.test.pValue }
      if !r.driftFailures.isEmpty { flagged += 1 }
    }
    #expect(pValues.count == 3 * seeds, "every screen is tested")
    #expect(flagged <= (seeds >= 100 ? 2 : 0), "\(flagged) of \(seeds) stable logs flagged")
    if seeds >= 100 {
      let below = Double(pValues.filter { $0 < 0.05 }.count) / Double(pValues.count)
      let se = (0.05 * 0.95 / Double(pValues.count)).squareRoot()
      #expect(abs(below - 0.05) < 3 * se, "share of p below 0.05: \(below)")
    }
  }

  /// The buckets depend only on the earliest and latest times, not on the order events came
  /// in, and never pass the maximum, over a span of half a year.
  @Test func bucketsAreBoundedAndOrderFree() {
    var generator = SplitMix64(seed: 60)
    let start = 1_767_571_200_000.0
    let events = (0..<5_000).map { _ in
      (["continue", "quit", "back"][Int(generator.next() % 3)], start + Double(generator.next() % 15_768_000_000))
    }
    var inOrder = ActionTimeline()
    for e in events.sorted(by: { $0.1 < $1.1 }) { inOrder.add(e.0, at: e.1) }
    var shuffled = ActionTimeline()
    for e in events { shuffled.add(e.0, at: e.1) }
    #expect(inOrder.width == shuffled.width)
    #expect(inOrder.buckets.count <= ActionTimeline.maximumBuckets)
    let total = { (t: ActionTimeline) in t.buckets.values.reduce(0) { $0 + $1.reduce(0, +) } }
    #expect(total(inOrder) == events.count && total(shuffled) == events.count)
    func byAction(_ t: ActionTimeline) -> [String: [Int: Int]] {
      var out: [String: [Int: Int]] = [:]
      for (b, counts) in t.buckets { for (k, a) in t.actions.enumerated() { out[a, default: [:]][b] = counts[k] } }
      return out
    }
    #expect(byAction(inOrder) == byAction(shuffled))
  }
}
