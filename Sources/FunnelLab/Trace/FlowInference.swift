import Foundation

/// Follows each user of an analytics event log through the screens (``EventLineReader``,
/// FunnelLab's event taxonomy, renamed through an ``EventNameMap``) and counts what a spec
/// needs: views per screen, each action with the screen it led to, failed attempts, dwell
/// times, the paywall's plans and store outcomes, and for the test of the first-order
/// (Markov) assumption, each action split by whether the user had seen the screen before.
///
/// **Users.** A user's events must come in time order; users may interleave (a log sorted
/// by time) or follow one another (a log sorted by user). Only users whose walk has not
/// ended are held (their screen and the action waiting for its target), at most
/// ``maximumOpenUsers``: memory grows with the users on the way, never with the events. A
/// user seen again after the end of their walk is a return when among the last
/// ``rememberedUsers`` whose walks ended.
///
/// **Problems.** A line that is not an event, or an event that breaks its user's walk (an
/// action on a screen the user is not on, time going back), is a bad line, counted, the
/// first ones kept with their line, as in ``EventIngest``.
package struct FlowInference: Sendable {
  /// Where an action led.
  package enum Target: Hashable, Sendable, Comparable {
    /// A screen.
    case screen(String)
    /// The end of the flow, completed.
    case completed
    /// The end of the flow, abandoned (a quit, or an exit without completing).
    case abandoned
  }

  /// How the log wrote an action: the event tells the kind the spec needs.
  package enum Event: String, Sendable, Hashable, Comparable {
    case continued, skipped, back, selected, purchase, dismiss, restore, quit

    package static func < (a: Event, b: Event) -> Bool { a.rawValue < b.rawValue }
  }

  /// One action on one screen.
  package struct ActionCount: Sendable, Hashable {
    /// The event that wrote it.
    package var event: Event
    /// Taken, by where it led (a failed attempt led nowhere: ``failures``).
    package var targets: [Target: Int] = [:]
    /// Attempts that failed (validation, a task, a store failure or a cancel) and kept the user on the screen.
    package var failures = 0
    /// Taken on a first view of the screen, and on a later one (for the Markov test).
    package var byVisit = [0, 0]
    /// The options chosen (a choice's `goal` or `option`), by id.
    package var options: [String: Int] = [:]
    /// Purchases: taps by plan.
    package var plans: [String: Int] = [:]

    /// Every attempt: the successes and the failures.
    package var attempts: Int { targets.values.reduce(0, +) + failures }
  }

  /// One screen.
  package struct ScreenCount: Sendable {
    /// Views (a view after a failed attempt is a view).
    package var views = 0
    /// Views that were the user's first of the screen.
    package var firstViews = 0
    /// Users who viewed it at least once.
    package var users = 0
    /// Actions by id.
    package var actions: [String: ActionCount] = [:]
    /// `Σ ln(seconds)` and `Σ ln²(seconds)` of the dwells above 0, and their number; dwells of 0.
    package var logDwell = (sum: 0.0, squares: 0.0, count: 0)
    /// Dwells of exactly 0 ms.
    package var zeroDwells = 0
    /// The mean of the trace's `screen_number`, for the order of screens.
    package var numberSum = 0.0
    /// Views with a `screen_number`.
    package var numbered = 0
    /// The order it was first seen in, for ties.
    package var firstSeen = 0
    /// Whether its views were `pro_upsell_viewed` too, or it had a purchase: a paywall.
    package var paywall = false
    /// Its actions over time, for the test of drift.
    package var timeline = ActionTimeline()
  }

  /// The store's outcomes, over every purchase tap of a user not yet entitled.
  package struct StoreCount: Sendable, Hashable {
    package var taps = 0
    package var successes = 0
    package var cancels = 0
    package var failures = 0
    package var pendings = 0
    package var approvals = 0
    package var restoreTaps = 0
    package var restores = 0
    /// `Σ` of the milliseconds between a tap and its result.
    package var latency = 0.0
  }

  /// The most users whose walk may be open at once.
  package static let maximumOpenUsers = 1_000_000
  /// The most users whose ended walk is remembered, to tell a return (the most recent ones).
  package static let rememberedUsers = 50_000
  /// The most screens a log may name.
  package static let maximumScreens = 63

  /// Screens by id.
  package internal(set) var screens: [String: ScreenCount] = [:]
  /// The screens users started on, by id.
  package internal(set) var starts: [String: Int] = [:]
  /// The store.
  package internal(set) var store = StoreCount()
  /// Users whose walk ended (completed or abandoned).
  package internal(set) var users = 0
  /// Users who completed.
  package internal(set) var completed = 0
  /// Users whose walk came back after it ended (a quit user returning): a history the
  /// first-order model cannot hold.
  package internal(set) var returns = 0
  /// Users still on the way at the end of the log.
  package internal(set) var unfinished = 0
  /// Walks started: the ended ones and the unfinished (the denominator of reach, since a
  /// screen's users include those still on the way).
  package internal(set) var walks = 0
  /// Ended walks with a pending purchase and no success: what an approval is out of.
  package internal(set) var pendingWalks = 0
  /// Events read.
  package internal(set) var events: UInt64 = 0
  /// Walks left out because they started outside ``window``.
  package internal(set) var outsideWindow = 0
  /// The earliest and the latest time of an event counted (milliseconds since the epoch);
  /// `nil` before one.
  package internal(set) var span: ClosedRange<Double>?
  /// Bad lines.
  package var badLines: UInt64 { reader.badLines }
  /// The first bad lines, with what was wrong.
  package var firstBadLines: [EventIngest.BadLine] { reader.firstBadLines }
  /// A problem that stops the reading.
  package var fatal: EventIngest.BadLine? { reader.fatal }

  private var reader: EventLineReader
  private let names: [String: String]
  private var open: [String: Walk] = [:]
  private var ended: Set<String> = []
  private var endedOrder: [String] = []

  /// One user on the way.
  struct Walk {
    var screen: String?
    var viewedAt = 0.0
    var time = 0.0
    var seen: Set<String> = []
    /// The action waiting for the view (or end) that tells its target.
    var pending: (screen: String, action: String, repeated: Bool)?
    /// The action failed: the next view of its screen is the same visit's retry.
    var retrying = false
    var purchaseStart: Double?
    var entitled = false
    /// Whether the current view is a return to a screen seen before.
    var repeatedVisit = false
    /// Whether a purchase of this walk was pending.
    var hadPending = false
    /// Whether the walk started outside the window: followed to its end, never counted.
    var outside = false
  }

  /// Only the events whose property `property` is `value` (one variant of a log of several).
  package let variant: (property: String, value: String)?
  /// Events of other variants, left out.
  package private(set) var otherVariants: UInt64 = 0
  /// The variants those events named (at most ``EventIngest/maximumNamesKept``), to say which
  /// a log holds when the one asked for is not among them.
  package private(set) var otherVariantIDs: Set<String> = []

  /// The property naming each user's segment (on any of their events: a trace writes it on
  /// `onboarding_started`), when the counts are kept per segment too.
  package let segmentProperty: String?
  /// The counts of each segment's users, by segment id (at most ``maximumSegments``).
  package private(set) var segments: [String: FlowInference] = [:]
  /// The most segments a log may name.
  package static let maximumSegments = 32
  private var userSegment: [String: String] = [:]
  /// Events whose segment property was there but named no segment: empty, or an array or an
  /// object (by its type's name); a log where no event names one is refused by the caller.
  package private(set) var unusableSegments: [String: UInt64] = [:]

  /// The `timestamp_ms` a log may give: from the epoch to the last millisecond of year 9999.
  package static let timestamps: ClosedRange<Double> = 0...253_402_300_799_999

  /// Only the walks that start in this span of times (milliseconds since the epoch) are
  /// counted; a walk that starts in it keeps its later events. `nil`: every walk.
  package let window: Range<Double>?

  /// An empty count of a log in `format`, its names under `names`; with `variant`, of the
  /// events of that variant only; with `segmentProperty`, per segment too; with `window`, of
  /// the walks that start in it.
  package init(
    format: EventIngest.Format, names: EventNameMap = EventNameMap(), variant: (property: String, value: String)? = nil,
    segmentProperty: String? = nil, window: Range<Double>? = nil
  ) {
    reader = EventLineReader(format: format, maximumRecordBytes: EventIngest.maximumRecordBytes)
    self.names = names.funnelLabNames
    self.variant = variant
    self.segmentProperty = segmentProperty
    self.window = window
  }

  /// One segment's counts, fed the events of its users.
  private init(segmentOf parent: FlowInference) {
    reader = EventLineReader(format: parent.reader.format)
    names = parent.names
    variant = nil
    segmentProperty = nil
    window = parent.window
  }

  /// Lines read that are not blank.
  package var lines: UInt64 { reader.lines }

  /// Reads line `number`.
  package mutating func add(line text: String, number: Int) {
    if let e = reader.event(text, number: number) { read(e) }
  }

  /// A line the line reader could not give as text.
  package mutating func addBadLine(_ message: String, number: Int) { reader.badLine(message, number: number) }

  /// Ends the log: the users still on the way are counted as unfinished and left out.
  package mutating func finish() {
    guard fatal == nil else { return }
    reader.end()
    let outside = open.values.filter(\.outside).count
    outsideWindow += outside
    unfinished = open.count - outside
    open.removeAll()
    walks = users + unfinished
    for key in segments.keys.sorted() { segments[key]?.finish() }
  }

  mutating func bad(_ line: Int, _ message: String) { reader.bad(line, message) }

  /// Stops the reading at `line`, for `message` (a log whose shape cannot be read on).
  mutating func stop(_ line: Int, _ message: String) { reader.stop(line, message) }

  mutating func read(_ e: EventLineReader.Event) {
    guard let event = names[e.name] else { return }
    if let variant {
      let named = Self.text(e.property(variant.property))
      if named != variant.value {
        otherVariants &+= 1
        if let named, otherVariantIDs.count < EventIngest.maximumNamesKept { otherVariantIDs.insert(named) }
        return
      }
    }
    events &+= 1
    guard let user = Self.text(e.user) else { return bad(e.line, "no \"user_id\": infer follows each user's events") }
    let time: Double
    switch Self.milliseconds(e.timestamp) {
    case .success(let t): time = t
    case .failure(let problem): return bad(e.line, problem.message)
    }
    if let segmentProperty { follow(e, user: user, property: segmentProperty) }
    if open[user] == nil {
      if event.hasPrefix("purchase_") {
        // The store's answer after the walk ended (an approval of a pending purchase): not a return.
        if event == "purchase_succeeded", case .text("true") = e.property("approved_after_pending") { store.approvals += 1 }
        return
      }
      if ended.contains(user) {
        // A user back after the end of the walk: their later events are history the model cannot hold.
        returns += 1
        ended.remove(user)
      }
      guard open.count < Self.maximumOpenUsers else {
        reader.stop(e.line, "more than \(Self.maximumOpenUsers) users on the way at once; sort the log by user")
        return
      }
      open[user] = Walk(time: time, outside: !(window?.contains(time) ?? true))
      if event == "onboarding_started" { return }
    } else if event == "onboarding_started", var restarted = open[user] {
      // A new walk while one is open: the open one ended there, abandoned.
      if restarted.outside {
        outsideWindow += 1
      } else {
        abandon(&restarted)
        close(user, restarted)
      }
      open[user] = Walk(time: time, outside: !(window?.contains(time) ?? true))
      return
    }
    guard var walk = open[user] else { return }
    guard time >= walk.time else {
      return bad(e.line, "time goes back for user \(user.escapingControlCharacters); sort each user's events by time")
    }
    walk.time = time
    if walk.outside {
      // Followed to its end, so that its later events are not read as a walk of their own.
      open[user] = event == "onboarding_completed" || event == "onboarding_abandoned" ? nil : walk
      if open[user] == nil { outsideWindow += 1 }
      return
    }
    span = span.map { min($0.lowerBound, time)...max($0.upperBound, time) } ?? time...time
    if let message = step(&walk, event: event, e, time: time) { bad(e.line, message) }
    if walk.screen == nil, walk.pending == nil, event == "onboarding_completed" || event == "onboarding_abandoned" {
      close(user, walk)
    } else {
      open[user] = walk
    }
  }

  /// `timestamp_ms` as a number of milliseconds within ``timestamps``, or why it is not one
  /// (absent, not a number, or out of range, with the bound).
  static func milliseconds(_ stamp: EventLineReader.Property) -> Result<Double, EventIngest.IDProblem> {
    let why = "infer orders each user's events by it"
    guard let text = text(stamp) else {
      return .failure(EventIngest.IDProblem("no \"timestamp_ms\" (a number of milliseconds): \(why)"))
    }
    let shown = text.count <= 40 ? text : String(text.prefix(40)) + "…"
    guard let time = Double(text), !time.isNaN else {
      return .failure(EventIngest.IDProblem("\"timestamp_ms\" '\(shown)' is not a number of milliseconds: \(why)"))
    }
    guard timestamps.contains(time) else {
      return .failure(
        EventIngest.IDProblem(
          "\"timestamp_ms\" \(shown) is out of range (0 to 253402300799999, the last millisecond of year 9999): \(why)"))
    }
    return .success(time)
  }

  /// Ends `user`'s walk: counted among the users, and among the pending purchases left to approve.
  private mutating func close(_ user: String, _ walk: Walk) {
    open[user] = nil
    if walk.hadPending, !walk.entitled { pendingWalks += 1 }
    end(user)
  }

  /// Hands `e` to the counts of its user's segment, once an event of the user named it.
  private mutating func follow(_ e: EventLineReader.Event, user: String, property: String) {
    if userSegment[user] == nil {
      switch e.property(property) {
      case .text(""): unusableSegments["empty", default: 0] &+= 1
      case .notText(let type): unusableSegments[type, default: 0] &+= 1
      default: break
      }
    }
    if userSegment[user] == nil, let segment = Self.text(e.property(property)) {
      if let problem = Self.problem(segment, "segment") { return bad(e.line, problem) }
      guard segments[segment] != nil || segments.count < Self.maximumSegments else {
        return bad(e.line, "more than \(Self.maximumSegments) segments; is \"\(property)\" a segment?")
      }
      userSegment[user] = segment
    }
    guard let segment = userSegment[user] else { return }
    if segments[segment] == nil { segments[segment] = FlowInference(segmentOf: self) }
    segments[segment]?.read(e)
    if let name = names[e.name], name == "onboarding_completed" || name == "onboarding_abandoned" { userSegment[user] = nil }
  }

  private mutating func end(_ user: String) {
    users += 1
    // The ended users are remembered (for returns) up to a bound: a log sorted by user
    // never needs them, a log sorted by time needs the recent ones.
    ended.insert(user)
    endedOrder.append(user)
    if endedOrder.count > 2 * Self.rememberedUsers {
      let drop = endedOrder.prefix(endedOrder.count - Self.rememberedUsers)
      for u in drop { ended.remove(u) }
      endedOrder.removeFirst(drop.count)
    }
  }
}
