/// Turns an analytics event log into the counts ``Calibration`` reads (views per screen,
/// actions per screen and action, per variant when the events carry one), one event at a
/// time: memory grows with the screens and actions named, never with the events.
///
/// **Which events count.** FunnelLab's own taxonomy (what ``UserTrace`` writes), or a
/// team's, renamed through an ``EventNameMap``:
///
/// | event | counts | screen from | action, when the event has no `action` property |
/// |---|---|---|---|
/// | `onboarding_screen_viewed` | a view | `screen_name` | |
/// | `onboarding_continued` | an action | `screen_name` | `continue` |
/// | `onboarding_skipped` | an action | `from_screen` | `skip` |
/// | `onboarding_back_pressed` | an action | `from_screen` | `back` |
/// | `goal_selected` | an action | `screen_name` | `select` |
/// | `pro_upgrade_tapped` | an action | `screen_name` | `purchase` |
/// | `pro_maybe_later_tapped` | an action | `screen_name` | `dismiss` |
/// | `purchase_restore_tapped` | an action | `screen_name` | `restore` |
/// | `onboarding_action_failed` | an action | `screen_name` | (required) |
/// | `onboarding_abandoned` with `reason` `quit` or none | an action | `last_screen` | `quit` |
///
/// Every other event of the taxonomy carries no count (``uncounted``); a name outside it is
/// counted in ``outside``. Summed over a trace's users these are exactly the views and
/// action counts of `run` with the same seed (tested).
///
/// **Lines.** NDJSON: one JSON object per line, the event's name in `event` (or
/// Amplitude's `event_type`), its properties in the object `properties` (or
/// `event_properties`). CSV: a header with an `event` column; every other column is a
/// property, an empty cell an absent one; a quoted field may span lines. A line that is
/// not an event, or an event that counts but lacks what it needs, is a *bad line*:
/// counted in ``badLines``, the first ones kept with their line and what was wrong
/// (``firstBadLines``), never dropped silently.
package struct EventIngest: Sendable {
  /// How the log is written.
  package enum Format: String, Sendable, CaseIterable {
    /// One JSON object per line.
    case ndjson
    /// A header, then one event per record.
    case csv
  }

  /// A line that gave no count, and why.
  package struct BadLine: Sendable, Hashable {
    /// The 1-based line in the log (a CSV record's first line).
    package var line: Int
    /// What was wrong, e.g. `no "screen_name" property`.
    package var message: String

    /// A bad line.
    package init(line: Int, message: String) {
      self.line = line
      self.message = message
    }
  }

  /// The bad lines kept with their message (the rest are only counted).
  package static let maximumBadLinesKept = 5
  /// Event names outside the taxonomy kept by name (the rest are counted together).
  package static let maximumNamesKept = 20
  /// Distinct (variant, screen, action) counts: a log naming more is not a log of screens.
  package static let maximumKeys = 100_000
  /// The longest screen, action or variant id, in UTF-8 bytes (bytes, not characters: one
  /// character may combine any number of scalars).
  package static let maximumIDBytes = 800
  /// The longest CSV record, in bytes (a quoted field that never closes would grow without bound).
  package static let maximumRecordBytes = 1 << 20

  /// The counts per variant id (`""` when no variant property is read).
  package private(set) var counts: [String: ObservedCounts] = [:]
  /// Views counted.
  package private(set) var views: UInt64 = 0
  /// Actions counted.
  package private(set) var actions: UInt64 = 0
  /// Events of the taxonomy that carry no count, by their FunnelLab name.
  package private(set) var uncounted: [String: UInt64] = [:]
  /// Events outside the taxonomy (under the map), by name, for ``maximumNamesKept`` names.
  package private(set) var outside: [String: UInt64] = [:]
  /// Events outside the taxonomy whose names were not kept.
  package private(set) var otherOutside: UInt64 = 0
  /// Lines that gave no event, or an event that counts but lacks what it needs.
  package var badLines: UInt64 { reader.badLines }
  /// The first ``maximumBadLinesKept`` of them.
  package var firstBadLines: [BadLine] { reader.firstBadLines }
  /// A problem that makes the rest of the log unreadable (a CSV header without an event
  /// column); once set, lines are no longer read.
  package var fatal: BadLine? { reader.fatal }

  /// Emitted name → FunnelLab name.
  private let names: [String: String]
  private let variantProperty: String?
  private var reader: EventLineReader
  private var keys = 0

  /// An empty tally of a log written in `format`, its event names under `names`; with
  /// `variantProperty`, every event that counts must name its variant in that property.
  package init(format: Format, names: EventNameMap = EventNameMap(), variantProperty: String? = nil) {
    reader = EventLineReader(format: format, maximumRecordBytes: Self.maximumRecordBytes)
    self.names = names.funnelLabNames
    self.variantProperty = variantProperty
  }

  /// Reads one line of the log (without its line end); `number` is its 1-based line.
  package mutating func add(line text: String, number: Int) {
    if let e = reader.event(text, number: number) { addEvent(e.name, e.line, e.property) }
  }

  /// Counts a line the reader could not turn into text (not UTF-8, too long).
  package mutating func addBadLine(_ message: String, number: Int) { reader.badLine(message, number: number) }

  /// Ends the log: a CSV record whose quoted field never closed is a bad line (the header:
  /// the log cannot be read).
  package mutating func finish() { reader.end() }

  /// Lines read that are not blank; in a CSV, records (a quoted field may span lines), the
  /// header included.
  package var lines: UInt64 { reader.lines }

  /// Events that gave a count.
  package var counted: UInt64 { views &+ actions }

  private mutating func bad(_ line: Int, _ message: String) { reader.bad(line, message) }

  /// A property of an event.
  typealias Property = EventLineReader.Property

  /// What an event of the taxonomy counts: a view, or an action (its default id when
  /// the event has no `action` property; `nil`: the property is required).
  private enum Counts {
    case view
    case action(screen: String, default: String?)
  }

  private static let counting: [String: Counts] = [
    "onboarding_screen_viewed": .view,
    "onboarding_continued": .action(screen: "screen_name", default: "continue"),
    "onboarding_skipped": .action(screen: "from_screen", default: "skip"),
    "onboarding_back_pressed": .action(screen: "from_screen", default: "back"),
    "goal_selected": .action(screen: "screen_name", default: "select"),
    "pro_upgrade_tapped": .action(screen: "screen_name", default: "purchase"),
    "pro_maybe_later_tapped": .action(screen: "screen_name", default: "dismiss"),
    "purchase_restore_tapped": .action(screen: "screen_name", default: "restore"),
    "onboarding_action_failed": .action(screen: "screen_name", default: nil),
    "onboarding_abandoned": .action(screen: "last_screen", default: "quit"),
  ]

  private mutating func addEvent(_ emitted: String, _ number: Int, _ property: (String) -> Property) {
    guard let event = names[emitted] else {
      let shown = emitted.utf8.count <= 100 ? emitted : String(String.UnicodeScalarView(emitted.unicodeScalars.prefix(100))) + "…"
      if outside[shown] != nil || outside.count < Self.maximumNamesKept {
        outside[shown, default: 0] &+= 1
      } else {
        otherOutside &+= 1
      }
      return
    }
    guard let counts = Self.counting[event] else {
      uncounted[event, default: 0] &+= 1
      return
    }
    if event == "onboarding_abandoned", case .text(let reason) = property("reason"), reason != "quit" {
      uncounted[event, default: 0] &+= 1
      return
    }
    var screenKey = "screen_name"
    if case .action(let key, _) = counts { screenKey = key }
    let screen: String
    switch id(property(screenKey), screenKey) {
    case .failure(let problem): return bad(number, problem.message)
    case .success(nil): return bad(number, "no \"\(screenKey)\" property")
    case .success(let s?): screen = s
    }
    var action = ""
    if case .action(_, let defaultAction) = counts {
      switch id(property("action"), "action") {
      case .failure(let problem): return bad(number, problem.message)
      case .success(let given?): action = given
      case .success(nil):
        guard let defaultAction else { return bad(number, "no \"action\" property") }
        action = defaultAction
      }
      if action == "views" { return bad(number, "an action may not be named \"views\"") }
    }
    var variant = ""
    if let variantProperty {
      switch id(property(variantProperty), variantProperty) {
      case .failure(let problem): return bad(number, problem.message)
      case .success(nil):
        // Before anything was counted, a misspelt --variant-property is likelier than bad data.
        let hint = self.counted == 0 ? ", and no event counted before it had one: is --variant-property the name the events use?" : ""
        return bad(number, "no \"\(variantProperty)\" property (the variant, --variant-property)\(hint)")
      case .success(let v?): variant = v
      }
    }
    tally(variant: variant, screen: screen, action: action, number)
  }

  /// A property read as an id: `nil` when absent; a failure when it is not text, is
  /// empty, too long or holds control characters.
  func id(_ value: Property, _ key: String) -> Result<String?, IDProblem> {
    Self.id(value, key)
  }

  /// A property read as an id (see ``id(_:_:)``).
  static func id(_ value: Property, _ key: String) -> Result<String?, IDProblem> {
    switch value {
    case .absent: return .success(nil)
    case .notText(let type): return .failure(IDProblem("\"\(key)\" is \(type), not text"))
    case .text(let text):
      if text.isEmpty { return .failure(IDProblem("\"\(key)\" is empty")) }
      if text.utf8.count > Self.maximumIDBytes {
        return .failure(IDProblem("\"\(key)\" is longer than \(Self.maximumIDBytes) bytes"))
      }
      if Self.hasControlCharacter(text) { return .failure(IDProblem("\"\(key)\" holds a control character")) }
      if text.first?.isWhitespace == true || text.last?.isWhitespace == true {
        return .failure(IDProblem("\"\(key)\" begins or ends with a space"))
      }
      return .success(text)
    }
  }

  /// Whether `text` is empty or only JSON's whitespace (space, tab, CR), read on its bytes.
  static func isBlank(_ text: String) -> Bool { text.utf8.allSatisfy { $0 == 0x20 || $0 == 0x09 || $0 == 0x0D } }

  /// Whether `text` holds a control character (general category Cc: U+0000–U+001F,
  /// U+007F–U+009F), read on its UTF-8 bytes (U+0080–U+009F are `C2 80`–`C2 9F`).
  static func hasControlCharacter(_ text: String) -> Bool {
    var previous: UInt8 = 0
    for byte in text.utf8 {
      if byte < 0x20 || byte == 0x7F || (previous == 0xC2 && (0x80...0x9F).contains(byte)) { return true }
      previous = byte
    }
    return false
  }

  /// Why a property is not an id, in words.
  struct IDProblem: Error {
    var message: String
    init(_ message: String) { self.message = message }
  }

  private mutating func tally(variant: String, screen: String, action: String, _ number: Int) {
    let isNew =
      action.isEmpty ? counts[variant]?.views[screen] == nil : counts[variant]?.actions[screen]?[action] == nil
    if isNew {
      guard keys < Self.maximumKeys else {
        return bad(number, "more than \(Self.maximumKeys) distinct screens and actions (are the screen properties ids?)")
      }
      keys += 1
    }
    // Counted in place: a copy of the counts per event would cost their size each time.
    if let error = counts[variant, default: ObservedCounts()].add(1, screen: screen, action: action, line: number) {
      return bad(number, error.message)
    }
    if action.isEmpty { views &+= 1 } else { actions &+= 1 }
  }
}
