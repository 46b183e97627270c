import Foundation
import FunnelLab

/// The options of `infer` that say how a log other than FunnelLab's taxonomy is read: its
/// shape, a clickstream's columns, what a walk is, and which events are screens and outcomes.
enum LogShapeOptions {
  /// The options, in `infer`'s help.
  static let options: [OptionSpec] = [
    OptionSpec(
      name: "log-format", valueName: "shape",
      help: "funnellab, clickstream, amplitude, mixpanel, segment, ga4 or posthog (default: told by the first event, else funnellab)."),
    OptionSpec(name: "user-column", valueName: "name", help: "The user's column or property (default: the shape's, or user_id, …)."),
    OptionSpec(name: "time-column", valueName: "name", help: "The time's column: epoch s/ms/µs, ISO 8601 or YYYY-MM-DD HH:MM:SS."),
    OptionSpec(
      name: "screen-column", valueName: "name", help: "A clickstream's screen column (default: screen, screen_name, page, event, …)."),
    OptionSpec(name: "session-column", valueName: "name", help: "Walks are sessions: the session's column or property."),
    OptionSpec(name: "walk", valueName: "unit", help: "user (default) or session (the tool's own session id)."),
    OptionSpec(name: "idle-minutes", valueName: "m", help: "A walk ends after m minutes without an event (default: at its last event)."),
    OptionSpec(name: "screen-event", valueName: "name", help: "The event carrying screen views (with --screen-property)."),
    OptionSpec(name: "screen-property", valueName: "key", help: "The property of --screen-event naming the screen."),
    OptionSpec(name: "side-event", valueName: "name", help: "An event that is not a screen view (counted).", repeatable: true),
    OptionSpec(
      name: "completion-event", valueName: "name", help: "An event that completes the walk (default: onboarding_completed).",
      repeatable: true),
    OptionSpec(
      name: "purchase-event", valueName: "name",
      help: "A purchase on the screen the user is on, a paywall (default: purchase_succeeded).", repeatable: true),
    OptionSpec(name: "screen-order", valueName: "a,b,c", help: "The screens' order (default: first seen): continue, back or skip."),
  ]

  /// The flags that only a shape other than FunnelLab's reads.
  static let shapeFlags = options.map(\.name).filter { $0 != "log-format" }

  /// How to read the log; `--events-map` means FunnelLab's taxonomy, so it is refused (64)
  /// with any other shape, as is a shape flag with `--log-format funnellab`.
  static func read(_ arguments: ParsedArguments) throws(UsageError) -> ScreenViewLog.Options {
    var o = ScreenViewLog.Options()
    o.format = try arguments.choice("log-format", EventLogFormat.allCases.map(\.rawValue)).flatMap(EventLogFormat.init)
    let given = shapeFlags.filter { arguments.value($0) != nil }
    if arguments.value("events-map") != nil {
      if let format = o.format, format != .funnellab {
        throw UsageError(
          message: "--events-map renames FunnelLab's events; --log-format \(format.rawValue) reads another shape",
          hint: "leave one out")
      }
      o.format = .funnellab
    }
    if o.format == .funnellab, let flag = given.first {
      throw UsageError(
        message: "--\(flag) reads a log of another shape than FunnelLab's events (--log-format funnellab or --events-map)",
        hint: "name the shape, e.g. --log-format clickstream")
    }
    o.userKey = try name("user-column", arguments)
    o.timeKey = try name("time-column", arguments)
    o.sessionKey = try name("session-column", arguments)
    o.screenKey = try name("screen-column", arguments)
    if o.screenKey != nil, let format = o.format, format != .clickstream {
      throw UsageError(
        message: "--screen-column reads a clickstream, not a \(format.rawValue) log", hint: "use --screen-event and --screen-property")
    }
    o.walkBySession = try arguments.choice("walk", ["user", "session"]) == "session"
    if o.walkBySession, o.sessionKey != nil {
      throw UsageError(message: "--walk session and --session-column both say where sessions are", hint: "give one")
    }
    o.idleMinutes = try arguments.number("idle-minutes", in: 0.001...1e6)
    let screenEvent = try name("screen-event", arguments)
    let screenProperty = try name("screen-property", arguments)
    switch (screenEvent, screenProperty) {
    case (let e?, let p?): o.screenEvent = (e, p)
    case (nil, nil): break
    case (_?, nil): throw UsageError(message: "--screen-event needs --screen-property KEY", hint: "the property naming the screen")
    case (nil, _?): throw UsageError(message: "--screen-property needs --screen-event NAME", hint: "the event carrying screen views")
    }
    o.sideEvents = Set(try names("side-event", arguments))
    let completions = try names("completion-event", arguments)
    let purchases = try names("purchase-event", arguments)
    if !completions.isEmpty { o.completionEvents = Set(completions) }
    if !purchases.isEmpty { o.purchaseEvents = Set(purchases) }
    if let both = o.completionEvents.intersection(o.purchaseEvents).union(
      o.sideEvents.intersection(o.completionEvents.union(o.purchaseEvents))
    ).first {
      throw UsageError(
        message: "the event '\(both.escapingControlCharacters)' is given two roles",
        hint: "give each event one of --side-event, --completion-event, --purchase-event")
    }
    if let order = arguments.value("screen-order") {
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

  private static func name(_ flag: String, _ arguments: ParsedArguments) throws(UsageError) -> String? {
    guard let value = arguments.value(flag) else { return nil }
    try check(value, flag)
    return value
  }

  private static func names(_ flag: String, _ arguments: ParsedArguments) throws(UsageError) -> [String] {
    let values = arguments.all(flag)
    for v in values { try check(v, flag) }
    return values
  }

  private static func check(_ value: String, _ flag: String) throws(UsageError) {
    if value.isEmpty || value.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) {
      throw UsageError(message: "--\(flag) is empty or holds a control character", hint: "give the name as the log writes it")
    }
  }
}
