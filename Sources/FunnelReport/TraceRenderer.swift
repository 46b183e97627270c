package import FunnelLab

/// Renders a ``UserTrace`` as NDJSON: one event per line,
/// `{"user_id":…,"timestamp_ms":…,"event":…,"properties":{…}}`, keys in that order
/// (documented in docs/json-output.md).
package enum TraceRenderer {
  /// Every user's events of `trace`, user by user in the order they happened, one JSON object per line.
  package static func ndjson(_ trace: UserTrace) -> String { ndjson(trace.events) }

  /// Events as NDJSON lines (one user's, when streaming).
  package static func ndjson(_ events: [TraceEvent]) -> String {
    var out = ""
    for event in events {
      let line: JSONValue = .object([
        ("user_id", .integer(event.user)),
        ("timestamp_ms", .integer(event.millis)),
        ("event", .string(event.name)),
        ("properties", .object(event.properties)),
      ])
      out += JSONWriter.write(line, pretty: false)
    }
    return out
  }

  /// Records of another shape (``TraceShape``), one JSON object per line.
  package static func lines(_ records: [JSONValue]) -> String {
    var out = ""
    for record in records { out += JSONWriter.write(record, pretty: false) }
    return out
  }

  /// A clickstream's rows as CSV lines (RFC 4180, ``CSVWriter/field(_:)``).
  package static func csv(_ rows: [[String]]) -> String {
    var out = ""
    for row in rows { out += row.map(CSVWriter.field).joined(separator: ",") + "\r\n" }
    return out
  }
}
