/// Reads an event log of another shape than FunnelLab's taxonomy (``EventLogFormat``: a
/// clickstream of screen views, or an analytics tool's export) as walks through screens, and
/// counts them with ``FlowInference`` exactly as a log of FunnelLab's events.
///
/// **Walks.** A user's events, or a session's (``Options/sessionKey`` given, or the tool's
/// own session id with ``Options/walkBySession``); a walk ends at its last event, at a
/// completion, or after ``Options/idleMinutes`` without an event.
///
/// **Screens and outcomes.** An event that carries screen views names its screen in a
/// property (``Options/screenEvent``, or the tool's preset); where none is given, every event
/// is a screen view (in a clickstream, the screen column is the event). A completion event
/// ends the walk completed, a purchase event is a purchase on the screen the user is on (which
/// becomes a paywall), a side event is counted and leaves the walk alone. The move from one
/// screen to another is a `continue` to the next screen in order (first seen in the log, or
/// ``Options/screenOrder``), a `back` to an earlier one, a `skip` further ahead; a walk that ends
/// without completion is a `quit` where it stood. A view of the screen the user is on is the
/// same visit (a reload, or a view after a failed attempt the log does not show).
///
/// **Memory** holds the walks on the way (at most ``FlowInference/maximumOpenUsers``) and the
/// screens' order, never the events. A walk without a completion ends at its last event, which
/// a stream knows only at the end of the log; but while the log is sorted by user (or session:
/// no walk's events have come back after another's), a walk whose events were followed by
/// ``settledWalks`` other walks' is ended there, where it stands, as at the end of the log: a
/// log sorted by user holds about that many walks, whatever its size. A walk whose events come
/// back within that many others shows the log is not sorted so: from then on every walk is held
/// to its last event, exactly as before. (A walk's events that come back later than that, in a
/// log sorted by user, are a walk of their own.)
package struct ScreenViewLog: Sendable {
  /// How to read the log.
  package struct Options: Sendable {
    /// The log's shape; `nil`: told by the first event (FunnelLab's when no other fits).
    package var format: EventLogFormat?
    /// The user's column or property (default: the shape's, or a common name in a clickstream).
    package var userKey: String?
    /// The time's column or property.
    package var timeKey: String?
    /// A clickstream's screen column.
    package var screenKey: String?
    /// The session's column or property: walks are sessions.
    package var sessionKey: String?
    /// Walks are the tool's own sessions (``EventLogFormat`` names each tool's session id).
    package var walkBySession = false
    /// Minutes without an event that end a walk (`nil`: a walk ends at its last event).
    package var idleMinutes: Double?
    /// The event carrying screen views, with the property naming the screen.
    package var screenEvent: (name: String, property: String)?
    /// Events that are not screen views.
    package var sideEvents: Set<String> = []
    /// Events that end the walk completed.
    package var completionEvents: Set<String> = ["onboarding_completed"]
    /// Events that are a purchase on the screen the user is on.
    package var purchaseEvents: Set<String> = ["purchase_succeeded"]
    /// The screens' order (screens not listed follow in the order first seen).
    package var screenOrder: [String] = []

    /// The defaults.
    package init() {}

    /// Whether any option but ``format`` differs from its default: a shape's options, which a
    /// log of FunnelLab's own events does not read.
    package var readsAnotherShape: Bool {
      let defaults = Options()
      return userKey != nil || timeKey != nil || screenKey != nil || sessionKey != nil || walkBySession || idleMinutes != nil
        || screenEvent != nil || !sideEvents.isEmpty || completionEvents != defaults.completionEvents
        || purchaseEvents != defaults.purchaseEvents || !screenOrder.isEmpty
    }
  }

  /// The message that stops a log told to be FunnelLab's own events when a shape's options
  /// were given: they would be ignored without a word.
  static let ownShapeWithShapeOptions =
    "the log is FunnelLab's own events (told by its first record), which the options for another shape"
    + " (columns, walks, screen and outcome events, the screens' order) do not apply to;"
    + " name its shape with --log-format, or leave those options out"

  /// The counts, as for a log of FunnelLab's events.
  package internal(set) var inference: FlowInference
  /// How the log is read.
  package let options: Options
  /// The log's shape, once read from its first event.
  package internal(set) var format: EventLogFormat?
  /// How the log wrote its times: the events read in each way (a log may mix them; each
  /// time is read by its own shape).
  package internal(set) var timeFormats: [LogTimeFormat: UInt64] = [:]
  /// The fields read, once the first event told them.
  package internal(set) var fields: Fields?
  /// Screen views read (a repeated view of the screen a user is on included).
  package internal(set) var screenViews: UInt64 = 0
  /// Events that are not screen views, completions or purchases of a walk.
  package internal(set) var sideEvents: UInt64 = 0
  /// Completion events read.
  package internal(set) var completions: UInt64 = 0
  /// Purchase events read.
  package internal(set) var purchases: UInt64 = 0
  /// Walks ended because the user was idle for longer than ``Options/idleMinutes``.
  package internal(set) var idleEnds: UInt64 = 0
  /// Lines read that are not blank (CSV: records, the header included).
  package var lines: UInt64 { format == .funnellab ? inference.lines : ownLines }

  /// Where a record's fields are read (paths into a JSON object; in a CSV, columns).
  package struct Fields: Sendable, Hashable {
    /// The event's name.
    package var event: [[String]]
    /// The user.
    package var user: [[String]]
    /// The time.
    package var time: [[String]]
    /// The session, when walks are sessions.
    package var session: String? = nil
    /// Screen-view events and the property naming their screen; empty: every event is one.
    package var screens: [String: String]
  }

  private let inputFormat: EventIngest.Format
  var ownLines: UInt64 = 0
  var records: CSVRecordAssembler
  var header: [String]?
  var held: [(text: String, number: Int)] = []
  var open: [String: Walk] = [:]
  var walkCount = 0
  var order: [String: Int] = [:]
  /// The walks (by key) whose events were followed by others', oldest first from
  /// `settledStart`, while the log looks sorted by user.
  var settling: [String] = []
  var settlingStart = 0
  var settlingKeys: Set<String> = []
  /// The key of the last record read.
  var lastKey: String?
  /// Whether the log still looks sorted by user (no walk's events came back after another's).
  package internal(set) var sortedByWalk = true

  /// How many other walks' events must follow a walk's, in a log sorted by user, for it to end
  /// where it stands.
  package static let settledWalks = 1_000

  struct Walk: Sendable {
    var id: String
    var screen: String?
    var time: Double
    var purchase = false
    var carried: [(key: String, value: EventLineReader.Property)] = []
  }

  /// A log in `inputFormat` read with `options`, counted into `inference`.
  package init(_ inputFormat: EventIngest.Format, options: Options, inference: FlowInference) {
    self.inputFormat = inputFormat
    self.options = options
    self.inference = inference
    format = options.format
    records = CSVRecordAssembler(maximumRecordBytes: EventIngest.maximumRecordBytes)
    for (k, screen) in options.screenOrder.enumerated() where order[screen] == nil { order[screen] = k }
  }
}

extension ScreenViewLog: EventLogReading {
  /// Bad lines (of the log's shape and of its walks).
  package var badLines: UInt64 { inference.badLines }
  /// The first bad lines.
  package var firstBadLines: [EventIngest.BadLine] { inference.firstBadLines }
  /// A problem that stops the reading.
  package var fatal: EventIngest.BadLine? { inference.fatal }

  /// Reads line `number`.
  package mutating func add(line text: String, number: Int) {
    guard fatal == nil else { return }
    if format == .funnellab { return inference.add(line: text, number: number) }
    switch inputFormat {
    case .ndjson: json(text, number)
    case .csv: csv(text, number)
    }
  }

  /// A line the line reader could not give as text.
  package mutating func addBadLine(_ message: String, number: Int) {
    if format == .funnellab { return inference.addBadLine(message, number: number) }
    ownLines &+= 1
    inference.bad(number, message)
  }

  /// Ends the log: every walk still open ends where it stands (a quit, or the target of its
  /// purchase), in the order of their ids.
  package mutating func finish() {
    if format != .funnellab {
      if let line = records.finish() {
        ownLines &+= 1
        if header == nil {
          inference.stop(line, "the header: a quoted field never closes")
        } else {
          inference.bad(line, "a quoted field never closes")
        }
      }
      for key in open.keys.sorted() {
        if let walk = open.removeValue(forKey: key) { end(walk, line: 0) }
      }
    }
    inference.finish()
  }

  private mutating func json(_ text: String, _ number: Int) {
    if EventIngest.isBlank(text) { return }
    ownLines &+= 1
    let value: JSONValue
    do {
      value = try JSONParser.parse(text)
    } catch {
      return inference.bad(number, "not JSON (column \(error.column): \(error.message))")
    }
    guard case .object = value.kind else { return inference.bad(number, "not a JSON object but \(value.typeName)") }
    if format == nil {
      format = EventLogFormat.detect(json: value) ?? .funnellab
      if format == .funnellab {
        if options.readsAnotherShape { return inference.stop(number, Self.ownShapeWithShapeOptions) }
        ownLines = 0
        return inference.add(line: text, number: number)
      }
    }
    read(LogRecord(json: value), number)
  }

  private mutating func csv(_ text: String, _ number: Int) {
    switch records.add(text, number: number) {
    case .blank: return
    case .pending: if header == nil { held.append((text, number)) }
    case .problem(let message, let line):
      ownLines &+= 1
      if header == nil {
        inference.stop(line, "the header: " + message)
      } else {
        inference.bad(line, message)
      }
    case .record(let fields, let line):
      ownLines &+= 1
      guard let header else { return readHeader(fields, text, line, number) }
      guard fields.count == header.count else {
        return inference.bad(line, "expected \(header.count) fields, found \(fields.count)")
      }
      read(LogRecord(header: header, fields: fields), line)
    }
  }

  private mutating func readHeader(_ fields: [String], _ text: String, _ line: Int, _ number: Int) {
    if format == nil {
      format = EventLogFormat.detect(header: fields)
      if format == .funnellab, options.readsAnotherShape { return inference.stop(line, Self.ownShapeWithShapeOptions) }
    }
    if format == .funnellab {
      ownLines = 0
      for h in held { inference.add(line: h.text, number: h.number) }
      held = []
      return inference.add(line: text, number: number)
    }
    held = []
    if let repeated = fields.first(where: { name in fields.filter { $0 == name }.count > 1 }) {
      return inference.stop(line, "the header names the column \"\(repeated)\" twice; give each column its own name")
    }
    header = fields
  }
}

extension ScreenViewLog {
  /// Where the log's records hold each field, from the first record's names: the shape's
  /// preset, the options, and in a clickstream the first common name present.
  func resolve(_ r: LogRecord) -> Result<Fields, EventIngest.IDProblem> {
    let format = format ?? .funnellab
    let keys = r.keys
    let listed = keys.prefix(12).map { "\"\($0.escapingControlCharacters)\"" }.joined(separator: ", ") + (keys.count > 12 ? ", …" : "")
    func column(_ given: String?, _ names: [String], _ flag: String) -> Result<String, EventIngest.IDProblem> {
      if let given {
        return keys.contains(given)
          ? .success(given)
          : .failure(EventIngest.IDProblem("no column \"\(given.escapingControlCharacters)\" (--\(flag)); the columns are \(listed)"))
      }
      if let found = names.first(where: keys.contains) { return .success(found) }
      return .failure(
        EventIngest.IDProblem(
          "no column named \(names.prefix(4).joined(separator: ", ")) or alike; name it with --\(flag) (the columns are \(listed))"))
    }
    let preset = format.preset
    var f: Fields
    if format == .clickstream {
      var names: [String] = []
      for picked in [
        column(options.userKey, EventLogFormat.userColumns, "user-column"),
        column(options.timeKey, EventLogFormat.timeColumns, "time-column"),
        column(options.screenKey, EventLogFormat.screenColumns, "screen-column"),
      ] {
        switch picked {
        case .success(let name): names.append(name)
        case .failure(let problem): return .failure(problem)
        }
      }
      f = Fields(event: [[names[2]]], user: [[names[0]]], time: [[names[1]]], screens: [:])
    } else {
      f = Fields(
        event: preset.event, user: options.userKey.map { [[$0]] } ?? preset.user, time: options.timeKey.map { [[$0]] } ?? preset.time,
        screens: preset.screens)
    }
    if let s = options.screenEvent { f.screens = [s.name: s.property] }
    if let s = options.sessionKey {
      f.session = s
    } else if options.walkBySession {
      if format == .clickstream {
        guard let found = EventLogFormat.sessionColumns.first(where: keys.contains) else {
          return .failure(EventIngest.IDProblem("no session column (session_id or alike); name it with --session-column"))
        }
        f.session = found
      } else {
        guard let own = preset.session.first else {
          return .failure(
            EventIngest.IDProblem("a \(format.rawValue) log has no session id of its own; name the property with --session-column"))
        }
        f.session = own
      }
    }
    return .success(f)
  }
}
