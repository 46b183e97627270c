/// Writes ``JSONValue`` documents deterministically: members in their given order,
/// numbers in ``JSONValue/format(_:)``, two-space indentation, `\n` line ends.
///
/// The same value always gives the same bytes, on every platform; golden files and
/// byte-identical shard merges rely on it.
package enum JSONWriter {
  /// Renders `value` as pretty-printed JSON followed by a newline.
  package static func write(_ value: JSONValue, pretty: Bool = true) -> String {
    var out = ""
    write(value, into: &out, indent: 0, pretty: pretty)
    out.append("\n")
    return out
  }

  private static func write(_ value: JSONValue, into out: inout String, indent: Int, pretty: Bool) {
    switch value.kind {
    case .null: out.append("null")
    case .bool(let b): out.append(b ? "true" : "false")
    case .number(let d, let literal):
      out.append(d.isFinite ? literal : "null")
    case .string(let s): writeString(s, into: &out)
    case .array(let elements):
      if elements.isEmpty { out.append("[]"); return }
      let scalarOnly = elements.allSatisfy { if case .array = $0.kind { false } else if case .object = $0.kind { false } else { true } }
      if scalarOnly || !pretty {
        out.append("[")
        for (i, e) in elements.enumerated() {
          if i > 0 { out.append(pretty ? ", " : ",") }
          write(e, into: &out, indent: indent, pretty: pretty)
        }
        out.append("]")
        return
      }
      out.append("[\n")
      for (i, e) in elements.enumerated() {
        out.append(String(repeating: "  ", count: indent + 1))
        write(e, into: &out, indent: indent + 1, pretty: pretty)
        out.append(i + 1 < elements.count ? ",\n" : "\n")
      }
      out.append(String(repeating: "  ", count: indent))
      out.append("]")
    case .object(let members):
      if members.isEmpty { out.append("{}"); return }
      out.append(pretty ? "{\n" : "{")
      for (i, m) in members.enumerated() {
        if pretty { out.append(String(repeating: "  ", count: indent + 1)) }
        writeString(m.key, into: &out)
        out.append(pretty ? ": " : ":")
        write(m.value, into: &out, indent: indent + 1, pretty: pretty)
        if i + 1 < members.count { out.append(",") }
        if pretty { out.append("\n") }
      }
      if pretty { out.append(String(repeating: "  ", count: indent)) }
      out.append("}")
    }
  }

  /// Writes a JSON string literal with the escapes RFC 8259 requires.
  package static func writeString(_ s: String, into out: inout String) {
    out.append("\"")
    for scalar in s.unicodeScalars {
      switch scalar {
      case "\"": out.append("\\\"")
      case "\\": out.append("\\\\")
      case "\n": out.append("\\n")
      case "\r": out.append("\\r")
      case "\t": out.append("\\t")
      default:
        if scalar.value < 0x20 {
          let hex = String(scalar.value, radix: 16)
          out.append("\\u" + String(repeating: "0", count: 4 - hex.count) + hex)
        } else {
          out.unicodeScalars.append(scalar)
        }
      }
    }
    out.append("\"")
  }
}
