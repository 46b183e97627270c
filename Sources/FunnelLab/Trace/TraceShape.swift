/// A simulated user's events (``TraceEvent``) in the shape of another event log
/// (``EventLogFormat``), so that `trace` writes what `infer` reads in every shape.
///
/// Times are wall-clock: user `u` starts at 2026-01-05 00:00:00 UTC plus `u` minutes, plus
/// the event's simulated milliseconds. A screen view (`onboarding_screen_viewed`) is the
/// tool's screen view (its preset event and property); every other event keeps its FunnelLab
/// name as a tracked event with its properties. A clickstream row holds only screen views, the
/// purchase (`purchase_succeeded`) and the completion (`onboarding_completed`): the screen
/// column holds the screen, or the event's name for those two.
package enum TraceShape {
  /// The first user's start: 2026-01-05 00:00:00 UTC, in milliseconds since the epoch.
  package static let epoch: UInt64 = 1_767_571_200_000
  /// The time between two users' starts (one minute).
  package static let spacing: UInt64 = 60_000
  /// A clickstream's columns.
  package static let clickstreamHeader = ["user_id", "session_id", "timestamp", "screen"]

  /// The event's wall-clock time, in milliseconds since the epoch.
  static func time(_ e: TraceEvent) -> UInt64 { epoch &+ e.user &* spacing &+ e.millis }

  /// The screen an event views, if it is a screen view.
  static func screen(_ e: TraceEvent) -> String? {
    guard e.name == "onboarding_screen_viewed" else { return nil }
    if case .string(let s)? = e.properties.first(where: { $0.0 == "screen_name" })?.1.kind { return s }
    return nil
  }

  /// A clickstream's rows of one user's events (``clickstreamHeader``'s columns).
  package static func clickstreamRows(_ events: [TraceEvent]) -> [[String]] {
    events.compactMap { e in
      guard let shown = screen(e) ?? (["purchase_succeeded", "onboarding_completed"].contains(e.name) ? e.name : nil) else {
        return nil
      }
      return ["u\(e.user)", "s\(e.user)", LogTimestamp.text(milliseconds: time(e), iso: false), shown]
    }
  }

  /// One user's events as `format`'s JSON objects (one per event; `clickstream` and
  /// `funnellab` are written elsewhere).
  package static func records(_ events: [TraceEvent], format: EventLogFormat) -> [JSONValue] {
    events.map { e -> JSONValue in
      let t = time(e)
      let session = epoch &+ e.user &* spacing
      let user = JSONValue.string("u\(e.user)")
      let screenView = screen(e)
      var properties = e.properties
      let shape = screenShape(format)
      if let screenView { properties = [(shape.property, .string(screenView))] }
      let name = screenView != nil ? shape.event : e.name
      switch format {
      case .amplitude:
        return .object([
          ("event_type", .string(name)), ("user_id", user), ("event_time", .string(amplitudeTime(t))),
          ("session_id", .integer(session)), ("event_properties", .object(properties)),
        ])
      case .mixpanel:
        return .object([
          ("event", .string(name)), ("properties", .object([("time", .integer(t / 1000)), ("distinct_id", user)] + properties)),
        ])
      case .segment:
        if let screenView {
          return .object([
            ("type", .string("screen")), ("name", .string(screenView)), ("userId", user),
            ("timestamp", .string(LogTimestamp.text(milliseconds: t, iso: true))),
          ])
        }
        return .object([
          ("type", .string("track")), ("event", .string(e.name)), ("userId", user),
          ("timestamp", .string(LogTimestamp.text(milliseconds: t, iso: true))), ("properties", .object(properties)),
        ])
      case .ga4:
        let params = (properties + [("ga_session_id", .integer(session / 1000))]).map { p in
          JSONValue.object([("key", .string(p.0)), ("value", gaValue(p.1))])
        }
        return .object([
          ("event_timestamp", .string(String(t &* 1000))), ("event_name", .string(name)), ("event_params", .array(params)),
          ("user_pseudo_id", user),
        ])
      case .posthog, .funnellab, .clickstream:
        return .object([
          ("event", .string(name)), ("distinct_id", user),
          ("timestamp", .string(LogTimestamp.text(milliseconds: t, iso: true))),
          ("properties", .object(properties + [("$session_id", .string("s\(e.user)"))])),
        ])
      }
    }
  }

  /// Amplitude's `event_time`: `YYYY-MM-DD HH:MM:SS.ffffff`.
  static func amplitudeTime(_ t: UInt64) -> String { LogTimestamp.text(milliseconds: t, iso: false) + "000" }

  /// The screen-view event `trace` writes in `format`, and the property naming its screen
  /// (Mixpanel has none of its own: `Screen Viewed` / `screen`, read with `--screen-event`).
  package static func screenShape(_ format: EventLogFormat) -> (event: String, property: String) {
    switch format {
    case .amplitude: ("[Amplitude] Screen Viewed", "[Amplitude] Screen Name")
    case .segment: ("screen", "name")
    case .ga4: ("screen_view", "firebase_screen")
    case .posthog: ("$screen", "$screen_name")
    case .mixpanel, .funnellab, .clickstream: ("Screen Viewed", "screen")
    }
  }

  /// A GA4 parameter's value: `{"int_value": "…"}` (BigQuery's JSON writes 64-bit integers as
  /// strings), `{"double_value": …}`, or `{"string_value": "…"}`.
  static func gaValue(_ v: JSONValue) -> JSONValue {
    switch v.kind {
    case .number(let x, let literal):
      x == x.rounded() && !literal.contains(".") ? .object([("int_value", .string(literal))]) : .object([("double_value", v)])
    case .string: .object([("string_value", v)])
    case .bool(let b): .object([("string_value", .string(b ? "true" : "false"))])
    default: .object([("string_value", .null)])
    }
  }
}
