/// One analytics event of a simulated user, as an app would send it.
package struct TraceEvent: Sendable, Hashable {
  /// The user's index in the seed's user streams (the same user as in `run`).
  package var user: UInt64
  /// Simulated milliseconds since the user's `onboarding_started`.
  package var millis: UInt64
  /// The event name (after any ``EventNameMap``).
  package var name: String
  /// Properties in a fixed order.
  package var properties: [(String, JSONValue)]

  /// An event; `properties` keep the order given.
  package init(user: UInt64, millis: UInt64, name: String, properties: [(String, JSONValue)] = []) {
    self.user = user
    self.millis = millis
    self.name = name
    self.properties = properties
  }

  /// The event with one more property, last (replacing a property of that name).
  package func adding(_ key: String, _ value: JSONValue) -> TraceEvent {
    var event = self
    event.properties.removeAll { $0.0 == key }
    event.properties.append((key, value))
    return event
  }

  /// Equal when user, time, name and every property (key and value, in order) are equal.
  package static func == (a: TraceEvent, b: TraceEvent) -> Bool {
    a.user == b.user && a.millis == b.millis && a.name == b.name && a.properties.map(\.0) == b.properties.map(\.0)
      && a.properties.map(\.1) == b.properties.map(\.1)
  }

  /// Hashes user, time and name: a subset of what ``==(_:_:)`` compares.
  package func hash(into h: inout Hasher) {
    h.combine(user)
    h.combine(millis)
    h.combine(name)
  }

  /// The property names FunnelLab's events carry (a variant property must be another).
  package static let propertyNames: Set<String> = [
    "segment", "screen_number", "screen_name", "action", "option", "from_screen", "to_screen", "goal", "plan", "trial", "reason",
    "approved_after_pending", "time_spent", "completion_path", "last_screen",
  ]

  /// The event names FunnelLab emits, in the vocabulary of the onboarding seed documents.
  package static let names: [String] = [
    "onboarding_started", "onboarding_screen_viewed", "onboarding_continued", "onboarding_skipped",
    "onboarding_back_pressed", "pro_upsell_viewed", "pro_upgrade_tapped", "pro_maybe_later_tapped", "goal_selected",
    "onboarding_completed", "onboarding_abandoned", "purchase_started", "purchase_succeeded", "purchase_cancelled",
    "purchase_failed", "purchase_pending", "purchase_restored", "onboarding_action_failed", "purchase_restore_tapped",
  ]
}
