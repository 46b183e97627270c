import FunnelLab

/// Writes CSV by RFC 4180: fields with a comma or a quote are quoted and their quotes
/// doubled; lines end with CRLF. Fields are text from input, escaped by ``field(_:)``.
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

  /// One field, quoted when it must be, as text from input is written in CSV: control
  /// characters but tab escaped as in messages (`\n`, `\u{1B}`: a field never spans two physical
  /// lines, so no line can start inside it), the two `#` of `##[` and `##vso[` split by a
  /// backslash (`#\#[`, read as a command anywhere in a line), and a field whose first
  /// non-blank character is `:` quoted (the value kept, its line starting with `"`, never with
  /// the `::` of a workflow command). See ``UntrustedText``.
  package static func field(_ value: String) -> String {
    let value = value.split(separator: "\t", omittingEmptySubsequences: false)
      .map { UntrustedText.escape($0.unicodeScalars, controls: true, lineStarts: false) }.joined(separator: "\t")
    guard value.first(where: { !$0.isWhitespace }) == ":" || value.contains(where: { $0 == "," || $0 == "\"" }) else { return value }
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
