/// The lines of an analytics event log read as events, one line at a time: what
/// ``EventIngest`` counts and ``FlowInference`` follows user by user.
///
/// NDJSON: one JSON object per line, the event's name in `event` (or Amplitude's
/// `event_type`), its properties in the object `properties` (or `event_properties`), the
/// user in `user_id` and the time in `timestamp_ms` (top level). CSV: a header with an
/// `event` column; every other column is a property (`user_id` and `timestamp_ms` too), an
/// empty cell an absent one; a quoted field may span lines.
package struct EventLineReader: Sendable {
  /// A property of an event.
  package enum Property: Sendable, Equatable {
    /// Not on the event (or `null`, or an empty CSV cell).
    case absent
    /// Text, or a number or a boolean as written.
    case text(String)
    /// An array or an object: its type's name.
    case notText(String)
  }

  /// One event.
  package struct Event: Sendable {
    /// The event's name as the log writes it.
    package var name: String
    /// The line it starts on.
    package var line: Int
    /// `user_id`, as text.
    package var user: Property
    /// `timestamp_ms`, as text.
    package var timestamp: Property
    fileprivate var members: [(key: String, value: Property)]

    /// An event of `name` on `line`, with `members` as its properties (the first of a key wins).
    package init(name: String, line: Int, user: Property, timestamp: Property, members: [(key: String, value: Property)]) {
      self.name = name
      self.line = line
      self.user = user
      self.timestamp = timestamp
      self.members = members
    }

    /// The property `key` (`absent` when the event has none).
    package func property(_ key: String) -> Property {
      members.first { $0.key == key }?.value ?? .absent
    }
  }

  /// What one line gave.
  package enum Step: Sendable {
    /// Nothing yet (a blank line, a CSV header, a record that goes on).
    case none
    /// An event.
    case event(Event)
    /// A line that is not an event, and why.
    case bad(line: Int, message: String)
    /// A problem that makes the rest unreadable (a CSV header without an event column).
    case fatal(line: Int, message: String)
  }

  /// The log's format.
  package let format: EventIngest.Format
  /// Lines that gave no event, or an event its reader could not use (``bad(_:_:)``).
  package private(set) var badLines: UInt64 = 0
  /// The first ``EventIngest/maximumBadLinesKept`` of them, with what was wrong.
  package private(set) var firstBadLines: [EventIngest.BadLine] = []
  /// A problem that makes the rest of the log unreadable; once set, nothing more is read.
  package private(set) var fatal: EventIngest.BadLine?
  /// Lines read that are not blank; in a CSV, records (the header included).
  package private(set) var lines: UInt64 = 0
  private var header: [String]?
  private var records: CSVRecordAssembler

  /// A reader of a log in `format`, CSV records of at most `maximumRecordBytes`.
  package init(format: EventIngest.Format, maximumRecordBytes: Int = 1 << 20) {
    self.format = format
    records = CSVRecordAssembler(maximumRecordBytes: maximumRecordBytes)
  }

  /// The event on line `number` (without its line end), if it holds one; a bad line or a
  /// fatal problem is tallied here.
  package mutating func event(_ text: String, number: Int) -> Event? {
    guard fatal == nil else { return nil }
    return take(read(text, number: number))
  }

  /// A line the line reader could not give as text (not UTF-8, too long): a bad line.
  package mutating func badLine(_ message: String, number: Int) {
    guard fatal == nil else { return }
    lines &+= 1
    bad(number, message)
  }

  /// Ends the log: a CSV record whose quoted field never closed is a bad line (in the
  /// header, a fatal problem).
  package mutating func end() {
    if fatal == nil { _ = take(finish()) }
  }

  /// Tallies a bad line: counted, and kept with its message among the first ones.
  package mutating func bad(_ line: Int, _ message: String) {
    badLines &+= 1
    if firstBadLines.count < EventIngest.maximumBadLinesKept {
      firstBadLines.append(EventIngest.BadLine(line: line, message: message))
    }
  }

  /// Stops the reading at `line`, for `message`.
  package mutating func stop(_ line: Int, _ message: String) {
    if fatal == nil { fatal = EventIngest.BadLine(line: line, message: message) }
  }

  private mutating func take(_ step: Step) -> Event? {
    switch step {
    case .none: return nil
    case .event(let e): return e
    case .bad(let line, let message): bad(line, message)
    case .fatal(let line, let message): stop(line, message)
    }
    return nil
  }

  /// Reads line `number` (without its line end).
  package mutating func read(_ text: String, number: Int) -> Step {
    switch format {
    case .ndjson: json(text, number)
    case .csv: csv(text, number)
    }
  }

  /// Ends the log: a CSV record whose quoted field never closed.
  package mutating func finish() -> Step {
    guard let line = records.finish() else { return .none }
    lines &+= 1
    return header == nil
      ? .fatal(line: line, message: "the header: a quoted field never closes") : .bad(line: line, message: "a quoted field never closes")
  }

  private static func property(_ value: JSONValue) -> Property { LogRecord.property(value) }

  private mutating func json(_ text: String, _ number: Int) -> Step {
    if EventIngest.isBlank(text) { return .none }
    lines &+= 1
    let value: JSONValue
    do {
      value = try JSONParser.parse(text)
    } catch {
      return .bad(line: number, message: "not JSON (column \(error.column): \(error.message))")
    }
    guard case .object = value.kind else { return .bad(line: number, message: "not a JSON object but \(value.typeName)") }
    guard let name = value["event"] ?? value["event_type"] else { return .bad(line: number, message: "no \"event\" name") }
    guard case .string(let event) = name.kind else {
      return .bad(line: number, message: "the event name is \(name.typeName), not a string")
    }
    var members: [(key: String, value: Property)] = []
    if let properties = value["properties"] ?? value["event_properties"] {
      switch properties.kind {
      case .object(let m): members = m.map { ($0.key, Self.property($0.value)) }
      case .null: break
      default: return .bad(line: number, message: "\"properties\" is \(properties.typeName), not an object")
      }
    }
    return .event(
      Event(
        name: event, line: number, user: value["user_id"].map(Self.property) ?? .absent,
        timestamp: value["timestamp_ms"].map(Self.property) ?? .absent, members: members))
  }

  private mutating func csv(_ text: String, _ number: Int) -> Step {
    let fields: [String]
    let first: Int
    switch records.add(text, number: number) {
    case .blank, .pending: return .none
    case .problem(let message, let line):
      lines &+= 1
      return header == nil ? .fatal(line: line, message: "the header: " + message) : .bad(line: line, message: message)
    case .record(let record, let line):
      lines &+= 1
      (fields, first) = (record, line)
    }
    guard let header else { return readHeader(fields, first) }
    guard fields.count == header.count else {
      return .bad(line: first, message: "expected \(header.count) fields, found \(fields.count)")
    }
    guard let eventColumn = header.firstIndex(of: "event") ?? header.firstIndex(of: "event_type") else { return .none }
    guard !fields[eventColumn].isEmpty else { return .bad(line: first, message: "no event name") }
    var members: [(key: String, value: Property)] = []
    for (k, key) in header.enumerated() where k != eventColumn {
      members.append((key, fields[k].isEmpty ? .absent : .text(fields[k])))
    }
    func column(_ key: String) -> Property { members.first { $0.key == key }?.value ?? .absent }
    return .event(
      Event(name: fields[eventColumn], line: first, user: column("user_id"), timestamp: column("timestamp_ms"), members: members))
  }

  private mutating func readHeader(_ fields: [String], _ number: Int) -> Step {
    guard fields.contains("event") || fields.contains("event_type") else {
      return .fatal(line: number, message: "the header has no \"event\" column; name the event column \"event\"")
    }
    if let repeated = fields.first(where: { name in fields.filter { $0 == name }.count > 1 }) {
      return .fatal(line: number, message: "the header names the column \"\(repeated)\" twice; give each column its own name")
    }
    header = fields
    return .none
  }
}
