import FunnelLab

/// Writes CSV by RFC 4180: fields with a comma, quote, CR or LF are quoted and
/// their quotes doubled; lines end with CRLF.
package struct CSVWriter {
  /// The document so far: the header and every added row, each ended by CRLF.
  package private(set) var text = ""

  /// A document whose first line is `header`, escaped like any row.
  package init(header: [String]) { add(header) }

  /// Appends one row: each field through ``field(_:)``, separated by commas, ended by CRLF. Rows are not
  /// checked against the header's width.
  package mutating func add(_ fields: [String]) {
    text += fields.map(Self.field).joined(separator: ",") + "\r\n"
  }

  /// One field, quoted when it must be.
  package static func field(_ value: String) -> String {
    guard value.contains(where: { $0 == "," || $0 == "\"" || $0 == "\r" || $0 == "\n" || $0 == "\r\n" }) else { return value }
    var out = "\""
    for c in value {
      if c == "\"" { out.append("\"") }
      out.append(c)
    }
    return out + "\""
  }

  /// A number as in the JSON output (shortest exact text); empty when absent.
  package static func number(_ value: Double?) -> String {
    guard let value, value.isFinite else { return "" }
    return JSONValue.format(value)
  }
}
