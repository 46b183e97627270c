/// The shape of an event log `infer` reads: FunnelLab's own taxonomy, a clickstream of screen
/// views, or an analytics tool's export. Each tool's fields are those of its documentation
/// (docs/guide-event-logs.md cites them):
///
/// | shape | event | user | time | session | screen view |
/// |---|---|---|---|---|---|
/// | `clickstream` | the screen column | a user column | a time column | a session column | every row |
/// | `amplitude` (Export API) | `event_type` | `user_id`, else `device_id` | `event_time` (UTC) | `session_id` | `[Amplitude] Screen Viewed` / `[Amplitude] Screen Name` |
/// | `mixpanel` (raw export) | `event` | `properties.distinct_id` | `properties.time` (s) | — | the team's event (`--screen-event`) |
/// | `segment` (Spec) | `event` of a `track` call, else its `type` | `userId`, else `anonymousId` | `timestamp` (ISO 8601) | — | `screen` and `page` calls / `name` |
/// | `ga4` (BigQuery export) | `event_name` | `user_pseudo_id` | `event_timestamp` (µs) | `ga_session_id` | `screen_view` / `firebase_screen` |
/// | `posthog` | `event` | `distinct_id` | `timestamp` (ISO 8601) | `$session_id` | `$screen` / `$screen_name`, `$pageview` / `$current_url` |
///
/// Properties are read from `properties`, `event_properties`, GA4's `event_params` list
/// (`{key, value: {string_value | int_value | double_value | float_value}}`), then the top
/// level; in a CSV, every column is a property.
package enum EventLogFormat: String, Sendable, CaseIterable {
  /// FunnelLab's taxonomy (what `trace` writes by default), read by ``FlowInference``.
  case funnellab
  /// One row per screen view: user, time, screen, perhaps a session.
  case clickstream
  /// Amplitude's Export API.
  case amplitude
  /// Mixpanel's raw event export.
  case mixpanel
  /// Segment's track, screen and page calls.
  case segment
  /// Google Analytics 4 / Firebase's BigQuery export, as JSON.
  case ga4
  /// PostHog's events.
  case posthog

  /// Where a preset finds each field: paths into a JSON object (the first present wins).
  struct Preset: Sendable {
    var event: [[String]]
    var user: [[String]]
    var time: [[String]]
    var session: [String]
    /// Screen-view events, each with the property naming its screen; empty: every event.
    var screens: [String: String]
  }

  /// The preset of a tool's shape (`clickstream`'s fields are found among common names instead).
  var preset: Preset {
    switch self {
    case .funnellab, .clickstream:
      Preset(event: [["event"]], user: [["user_id"]], time: [["timestamp_ms"]], session: [], screens: [:])
    case .amplitude:
      Preset(
        event: [["event_type"]], user: [["user_id"], ["device_id"]], time: [["event_time"]], session: ["session_id"],
        screens: ["[Amplitude] Screen Viewed": "[Amplitude] Screen Name"])
    case .mixpanel:
      Preset(event: [["event"]], user: [["properties", "distinct_id"]], time: [["properties", "time"]], session: [], screens: [:])
    case .segment:
      Preset(
        event: [["event"], ["type"]], user: [["userId"], ["anonymousId"]], time: [["timestamp"]], session: [],
        screens: ["screen": "name", "page": "name"])
    case .ga4:
      Preset(
        event: [["event_name"]], user: [["user_pseudo_id"], ["user_id"]], time: [["event_timestamp"]], session: ["ga_session_id"],
        screens: ["screen_view": "firebase_screen"])
    case .posthog:
      Preset(
        event: [["event"]], user: [["distinct_id"]], time: [["timestamp"]], session: ["$session_id"],
        screens: ["$screen": "$screen_name", "$pageview": "$current_url"])
    }
  }

  /// The shape a first NDJSON object shows, when only one fits.
  package static func detect(json value: JSONValue) -> EventLogFormat? {
    func has(_ key: String) -> Bool { value[key] != nil }
    var found: [EventLogFormat] = []
    if has("event"), has("user_id"), has("timestamp_ms") { found.append(.funnellab) }
    if has("event_type"), has("event_time") { found.append(.amplitude) }
    if has("event"), value["properties"]?["time"] != nil, value["properties"]?["distinct_id"] != nil { found.append(.mixpanel) }
    if has("type"), has("timestamp"), has("userId") || has("anonymousId") { found.append(.segment) }
    if has("event_name"), has("event_timestamp") { found.append(.ga4) }
    if has("event"), has("distinct_id"), has("timestamp") { found.append(.posthog) }
    return found.count == 1 ? found[0] : nil
  }

  /// The shape a CSV header shows: FunnelLab's with `event` and `timestamp_ms`, else a clickstream.
  package static func detect(header: [String]) -> EventLogFormat {
    header.contains("timestamp_ms") && (header.contains("event") || header.contains("event_type")) ? .funnellab : .clickstream
  }

  /// Column names a clickstream's user is looked for under, in order.
  package static let userColumns = ["user_id", "userId", "user", "distinct_id", "user_pseudo_id", "visitor_id", "customer_id", "uid"]
  /// Column names a clickstream's time is looked for under, in order.
  package static let timeColumns = ["timestamp", "time", "event_time", "event_timestamp", "ts", "datetime", "timestamp_ms", "date"]
  /// Column names a clickstream's screen is looked for under, in order.
  package static let screenColumns = [
    "screen", "screen_name", "page", "page_name", "event", "event_name", "event_type", "page_url", "url",
  ]
  /// Column names a clickstream's session is looked for under, in order.
  package static let sessionColumns = ["session_id", "sessionId", "session", "ga_session_id", "$session_id"]
}
