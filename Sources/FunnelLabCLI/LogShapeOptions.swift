import Foundation
import FunnelLab

/// The options of `infer` that say how a log other than FunnelLab's taxonomy is read: its
/// shape, a clickstream's columns, what a walk is, and which events are screens and outcomes.
enum LogShapeOptions {
  static let logFormat = Option<String?>.choice(
    "log-format", valueName: "shape",
    help: "funnellab, clickstream, amplitude, mixpanel, segment, ga4 or posthog (default: told by the first event, else funnellab).",
    EventLogFormat.allCases.map(\.rawValue))
  static let userColumn = Option<String?>.text(
    "user-column", valueName: "name", help: "The user's column or property (default: the shape's, or user_id, …).")
  static let timeColumn = Option<String?>.text(
    "time-column", valueName: "name", help: "The time's column: epoch s/ms/µs, ISO 8601 or YYYY-MM-DD HH:MM:SS.")
  static let screenColumn = Option<String?>.text(
    "screen-column", valueName: "name", help: "A clickstream's screen column (default: screen, screen_name, page, event, …).")
  static let sessionColumn = Option<String?>.text(
    "session-column", valueName: "name", help: "Walks are sessions: the session's column or property.")
  static let walk = Option<String?>.choice(
    "walk", valueName: "unit", help: "user (default) or session (the tool's own session id).", ["user", "session"])
  static let idleMinutes = Option<Double?>.number(
    "idle-minutes", valueName: "m", help: "A walk ends after m minutes without an event (default: at its last event).", in: 0.001...1e6)
  static let screenEvent = Option<String?>.text(
    "screen-event", valueName: "name", help: "The event carrying screen views (with --screen-property).")
  static let screenProperty = Option<String?>.text(
    "screen-property", valueName: "key", help: "The property of --screen-event naming the screen.")
  static let sideEvent = Option<[String]>.repeatable(
    "side-event", valueName: "name", help: "An event that is not a screen view (counted).")
  static let completionEvent = Option<[String]>.repeatable(
    "completion-event", valueName: "name", help: "An event that completes the walk (default: onboarding_completed).")
  static let purchaseEvent = Option<[String]>.repeatable(
    "purchase-event", valueName: "name", help: "A purchase on the screen the user is on, a paywall (default: purchase_succeeded).")
  static let screenOrder = Option<String?>.text(
    "screen-order", valueName: "a,b,c", help: "The screens' order (default: first seen): continue, back or skip.")

  /// The flags that only a shape other than FunnelLab's reads.
  static let shapeFlags: [any OptionKey] = [
    userColumn, timeColumn, screenColumn, sessionColumn, walk, idleMinutes, screenEvent, screenProperty, sideEvent, completionEvent,
    purchaseEvent, screenOrder,
  ]

  /// The options, in `infer`'s help.
  static let options: [any OptionKey] = [logFormat] + shapeFlags

  /// `--screen-event` and `--screen-property` go together.
  static let requirements = [
    OptionRequirement(
      screenEvent, needs: screenProperty, message: "--screen-event needs --screen-property KEY", hint: "the property naming the screen"),
    OptionRequirement(
      screenProperty, needs: screenEvent, message: "--screen-property needs --screen-event NAME", hint: "the event carrying screen views"),
  ]

  /// How to read the log; `--events-map` means FunnelLab's taxonomy, so it is refused (64)
  /// with any other shape, as is a shape flag with `--log-format funnellab`.
  static func read(_ arguments: ParsedArguments) throws(UsageError) -> ScreenViewLog.Options {
    var o = ScreenViewLog.Options()
    o.format = try arguments[logFormat].flatMap(EventLogFormat.init)
    if arguments.isGiven(EventOptions.eventsMap) {
      if let format = o.format, format != .funnellab {
        throw UsageError(
          message: "--events-map renames FunnelLab's events; --log-format \(format.rawValue) reads another shape",
          hint: "leave one out")
      }
      o.format = .funnellab
    }
    if o.format == .funnellab, let flag = arguments.firstGiven(shapeFlags)?.spec.name {
      throw UsageError(
        message: "--\(flag) reads a log of another shape than FunnelLab's events (--log-format funnellab or --events-map)",
        hint: "name the shape, e.g. --log-format clickstream")
    }
    o.userKey = try name(userColumn, arguments)
    o.timeKey = try name(timeColumn, arguments)
    o.sessionKey = try name(sessionColumn, arguments)
    o.screenKey = try name(screenColumn, arguments)
    if o.screenKey != nil, let format = o.format, format != .clickstream {
      throw UsageError(
        message: "--screen-column reads a clickstream, not a \(format.rawValue) log", hint: "use --screen-event and --screen-property")
    }
    o.walkBySession = try arguments[walk] == "session"
    if o.walkBySession, o.sessionKey != nil {
      throw UsageError(message: "--walk session and --session-column both say where sessions are", hint: "give one")
    }
    o.idleMinutes = try arguments[idleMinutes]
    // Each needs the other (``requirements``, checked by the parser).
    if let e = try name(screenEvent, arguments), let p = try name(screenProperty, arguments) { o.screenEvent = (e, p) }
    o.sideEvents = Set(try names(sideEvent, arguments))
    let completions = try names(completionEvent, arguments)
    let purchases = try names(purchaseEvent, arguments)
    if !completions.isEmpty { o.completionEvents = Set(completions) }
    if !purchases.isEmpty { o.purchaseEvents = Set(purchases) }
    if let both = o.completionEvents.intersection(o.purchaseEvents).union(
      o.sideEvents.intersection(o.completionEvents.union(o.purchaseEvents))
    ).first {
      throw UsageError(
        message: "the event '\(both.escapingControlCharacters)' is given two roles",
        hint: "give each event one of --side-event, --completion-event, --purchase-event")
    }
    if let order = try arguments[screenOrder] {
      let screens = order.split(separator: ",", omittingEmptySubsequences: false).map { String($0).trimmingCharacters(in: .whitespaces) }
      guard !screens.contains(where: \.isEmpty), Set(screens).count == screens.count, screens.count <= FlowInference.maximumScreens else {
        throw UsageError(
          message: "--screen-order: give each screen once, comma-separated, at most \(FlowInference.maximumScreens)",
          hint: "e.g. --screen-order welcome,goals,paywall")
      }
      o.screenOrder = screens
    }
    return o
  }

  private static func name(_ option: Option<String?>, _ arguments: ParsedArguments) throws(UsageError) -> String? {
    guard let value = try arguments[option] else { return nil }
    try check(value, option.spec.name)
    return value
  }

  private static func names(_ option: Option<[String]>, _ arguments: ParsedArguments) throws(UsageError) -> [String] {
    let values = try arguments[option]
    for v in values { try check(v, option.spec.name) }
    return values
  }

  private static func check(_ value: String, _ flag: String) throws(UsageError) {
    if value.isEmpty || value.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) {
      throw UsageError(message: "--\(flag) is empty or holds a control character", hint: "give the name as the log writes it")
    }
  }
}
