/// One record of an event log (an NDJSON object, or a CSV record under its header), read by
/// path or by property name: what ``ScreenViewLog`` turns into screen views.
struct LogRecord {
  private let json: JSONValue?
  private let header: [String]
  private let fields: [String]

  /// A JSON object's record.
  init(json: JSONValue) {
    self.json = json
    header = []
    fields = []
  }

  /// A CSV record's, under `header` (as many fields as columns).
  init(header: [String], fields: [String]) {
    json = nil
    self.header = header
    self.fields = fields
  }

  /// The names a record may use: the JSON object's top-level keys, or the CSV header.
  var keys: [String] {
    if case .object(let members)? = json?.kind { return members.map(\.key) }
    return header
  }

  /// The value at `path` (in a CSV, the column named by its last component).
  func value(_ path: [String]) -> EventLineReader.Property {
    guard let json else {
      guard let last = path.last, let k = header.firstIndex(of: last), !fields[k].isEmpty else { return .absent }
      return .text(fields[k])
    }
    var current: JSONValue? = json
    for key in path { current = current?[key] }
    return current.map(Self.property) ?? .absent
  }

  /// The first present of `paths` (a one-key path also as a property, ``property(_:)``).
  func first(_ paths: [[String]]) -> EventLineReader.Property {
    for p in paths {
      let v = p.count == 1 ? property(p[0]) : value(p)
      if v != .absent { return v }
    }
    return .absent
  }

  /// The property `key`: in `properties`, `event_properties`, GA4's `event_params` list, then
  /// at the top level (in a CSV, the column).
  func property(_ key: String) -> EventLineReader.Property {
    guard let json else { return value([key]) }
    for container in ["properties", "event_properties"] {
      if let v = json[container]?[key] { return Self.property(v) }
    }
    if case .array(let params)? = json["event_params"]?.kind {
      for p in params {
        guard case .string(key)? = p["key"]?.kind, let v = p["value"] else { continue }
        for field in ["string_value", "int_value", "double_value", "float_value"] {
          if let x = v[field], x.kind != .null { return Self.property(x) }
        }
        return .absent
      }
    }
    return json[key].map(Self.property) ?? .absent
  }

  static func property(_ value: JSONValue) -> EventLineReader.Property {
    switch value.kind {
    case .string(let s): .text(s)
    case .number(_, let literal): .text(literal)
    case .bool(let b): .text(b ? "true" : "false")
    case .null: .absent
    case .array, .object: .notText(value.typeName)
    }
  }
}
