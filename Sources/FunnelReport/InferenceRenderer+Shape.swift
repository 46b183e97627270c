package import FunnelLab

extension InferenceRenderer {
  /// How a log of another shape was read, one sentence: the shape, what a walk is, how times
  /// were written (each way, when the log mixed them), and what the events were.
  package static func readingNote(_ r: LogReading) -> String {
    func name(_ f: LogTimeFormat) -> String {
      switch f {
      case .epochSeconds: "epoch seconds"
      case .epochMilliseconds: "epoch milliseconds"
      case .epochMicroseconds: "epoch microseconds"
      case .iso8601: "ISO 8601"
      case .dateTime: "YYYY-MM-DD HH:MM:SS (UTC)"
      }
    }
    let times: String =
      switch r.timeFormats.count {
      case 0: "none read"
      case 1: name(r.timeFormats[0].format)
      default:
        "mixed, each read by its own shape: "
          + NumberText.list(r.timeFormats.map { "\(name($0.format)) (\(Vocabulary.plural($0.events, "event")))" })
      }
    let walk = r.session.map { "sessions (\"\($0.escapingControlCharacters)\")" } ?? "users"
    let idle = r.idleMinutes.map { ", ended after \(NumberText.bound($0, 1)) idle minutes (\(NumberText.grouped(r.idleEnds)) walks)" } ?? ""
    func count(_ n: UInt64, _ word: String) -> String { Vocabulary.plural(n, word) }
    return "Read as the \(r.shape.rawValue) shape: walks are \(walk)\(idle); times as \(times);"
      + " \(count(r.screenViews, "screen view")), \(count(r.completions, "completion")),"
      + " \(count(r.purchases, "purchase")), \(count(r.sideEvents, "other event"))."
  }

  /// A time of the log to the minute, in UTC: `2026-01-12 02:00`.
  static func minute(_ milliseconds: Double) -> String {
    String(LogTimestamp.text(milliseconds: UInt64(max(milliseconds, 0)), iso: false).prefix(16))
  }

  /// The drift sentence: each screen whose actions' shares moved, with the period and the
  /// shares during and outside it; or that none did on the screens tested.
  static func driftSentence(_ r: FlowInferenceReport) -> String? {
    let tested = r.screens.filter { $0.drift != nil }.count
    let failures = r.driftFailures
    guard !failures.isEmpty else {
      guard tested > 0, let span = r.span else { return nil }
      return "No drift: the actions' shares held from \(minute(span.lowerBound)) to \(minute(span.upperBound)) (UTC)"
        + " on the \(Vocabulary.plural(tested, "screen")) with enough actions to test."
    }
    let clauses = failures.compactMap { s -> String? in
      guard let d = s.drift else { return nil }
      return (failures.count > 1 ? "on \(s.id), " : "")
        + "\(d.action) was \(percent(d.during)) of its actions from \(minute(d.period.lowerBound)) to \(minute(d.period.upperBound))"
        + " (UTC) against \(percent(d.outside)) outside that period"
    }
    return Tone.warning.mark("The flow drifted on \(NumberText.list(failures.map(\.id)))") + ": " + clauses.joined(separator: "; ")
      + "; one spec averages both, so fit a stable window with --since and --until."
  }

  /// The window sentence, when walks had to start in one.
  static func windowSentence(_ r: FlowInferenceReport) -> String? {
    guard let w = r.window else { return nil }
    let from = w.lowerBound > 0 ? "from \(minute(w.lowerBound)) " : ""
    let to = w.upperBound < FlowInference.timestamps.upperBound ? "before \(minute(w.upperBound)) " : ""
    return
      "Only walks that started \(from)\(to)(UTC) are counted; \(Vocabulary.plural(r.outsideWindow, "walk")) outside that window were left out."
  }
}
