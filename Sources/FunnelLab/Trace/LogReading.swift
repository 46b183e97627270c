/// How a log of another shape than FunnelLab's events was read: its shape, what a walk was,
/// how its times were written, and what its events were. Carried by the report, so that every
/// format says it.
package struct LogReading: Sendable {
  /// The shape.
  package var shape: EventLogFormat
  /// The session column or property when walks were sessions; `nil`: walks were users.
  package var session: String?
  /// The minutes without an event that ended a walk, if given.
  package var idleMinutes: Double?
  /// Walks ended that way.
  package var idleEnds: UInt64
  /// How times were written, the most used first, with the events read so.
  package var timeFormats: [(format: LogTimeFormat, events: UInt64)]
  /// Screen views read.
  package var screenViews: UInt64
  /// Completion events read.
  package var completions: UInt64
  /// Purchase events read.
  package var purchases: UInt64
  /// Other events.
  package var sideEvents: UInt64

  /// How `log` was read; `nil` for FunnelLab's own events.
  package init?(_ log: ScreenViewLog) {
    guard let shape = log.format, shape != .funnellab else { return nil }
    self.shape = shape
    session = log.fields?.session
    idleMinutes = log.options.idleMinutes
    idleEnds = log.idleEnds
    let order = Dictionary(uniqueKeysWithValues: LogTimeFormat.allCases.enumerated().map { ($1, $0) })
    timeFormats = log.timeFormats.map { ($0.key, $0.value) }.sorted { a, b in
      a.events != b.events ? a.events > b.events : (order[a.format] ?? 0) < (order[b.format] ?? 0)
    }
    screenViews = log.screenViews
    completions = log.completions
    purchases = log.purchases
    sideEvents = log.sideEvents
  }

}
