package import FunnelLab

extension InferenceRenderer {
  /// How a log of another shape was read, one line for standard error: the shape, what a walk
  /// is, how times were written, and what the events were (screen views, outcomes, others).
  package static func shapeNote(_ log: ScreenViewLog) -> String {
    let times: String =
      switch log.timeFormat {
      case .epochSeconds?: "epoch seconds"
      case .epochMilliseconds?: "epoch milliseconds"
      case .epochMicroseconds?: "epoch microseconds"
      case .iso8601?: "ISO 8601"
      case .dateTime?: "YYYY-MM-DD HH:MM:SS (UTC)"
      case nil: "none read"
      }
    let walk =
      log.fields?.session.map { "sessions (\"\($0.escapingControlCharacters)\")" } ?? "users"
    let idle =
      log.options.idleMinutes.map { ", ended after \(NumberText.bound($0, 1)) idle minutes (\(NumberText.grouped(log.idleEnds)) walks)" }
      ?? ""
    func count(_ n: UInt64, _ word: String) -> String { Vocabulary.plural(n, word) }
    return "Read as the \(log.format?.rawValue ?? "funnellab") shape: walks are \(walk)\(idle); times as \(times);"
      + " \(count(log.screenViews, "screen view")), \(count(log.completions, "completion")),"
      + " \(count(log.purchases, "purchase")), \(count(log.sideEvents, "other event")).\n"
  }
}
