/// Writes ``JSONValue`` documents deterministically: members in their given order,
/// numbers in ``JSONValue/format(_:)``, two-space indentation, `\n` line ends.
///
/// The same value always gives the same bytes, on every platform; golden files and
/// byte-identical shard merges rely on it.
package enum JSONWriter {
  /// Renders `value` as pretty-printed JSON followed by a newline.
  package static func write(_ value: JSONValue, pretty: Bool = true) -> String {
    var out: [UInt8] = []
    write(value, into: &out, indent: 0, pretty: pretty)
    out.append(UInt8(ascii: "\n"))
    return String(decoding: out, as: UTF8.self)
  }

  /// The document is written as UTF-8 bytes and made a `String` once: appending to a
  /// `String` scalar by scalar was a tenth of a short command's CPU (issue 42).
  private static func write(_ value: JSONValue, into out: inout [UInt8], indent: Int, pretty: Bool) {
    switch value.kind {
    case .null: out.append(contentsOf: "null".utf8)
    case .bool(let b): out.append(contentsOf: (b ? "true" : "false").utf8)
    case .number(let d, let literal):
      out.append(contentsOf: (d.isFinite ? literal : "null").utf8)
    case .string(let s): writeString(s, into: &out)
    case .array(let elements):
      if elements.isEmpty { out.append(contentsOf: "[]".utf8); return }
      let scalarOnly = elements.allSatisfy { if case .array = $0.kind { false } else if case .object = $0.kind { false } else { true } }
      if scalarOnly || !pretty {
        out.append(UInt8(ascii: "["))
        for (i, e) in elements.enumerated() {
          if i > 0 { out.append(contentsOf: (pretty ? ", " : ",").utf8) }
          write(e, into: &out, indent: indent, pretty: pretty)
        }
        out.append(UInt8(ascii: "]"))
        return
      }
      out.append(contentsOf: "[\n".utf8)
      for (i, e) in elements.enumerated() {
        indentation(indent + 1, into: &out)
        write(e, into: &out, indent: indent + 1, pretty: pretty)
        out.append(contentsOf: (i + 1 < elements.count ? ",\n" : "\n").utf8)
      }
      indentation(indent, into: &out)
      out.append(UInt8(ascii: "]"))
    case .object(let members):
      if members.isEmpty { out.append(contentsOf: "{}".utf8); return }
      out.append(contentsOf: (pretty ? "{\n" : "{").utf8)
      for (i, m) in members.enumerated() {
        if pretty { indentation(indent + 1, into: &out) }
        writeString(m.key, into: &out)
        out.append(contentsOf: (pretty ? ": " : ":").utf8)
        write(m.value, into: &out, indent: indent + 1, pretty: pretty)
        if i + 1 < members.count { out.append(UInt8(ascii: ",")) }
        if pretty { out.append(UInt8(ascii: "\n")) }
      }
      if pretty { indentation(indent, into: &out) }
      out.append(UInt8(ascii: "}"))
    }
  }

  /// Two spaces per level.
  private static func indentation(_ level: Int, into out: inout [UInt8]) {
    out.append(contentsOf: repeatElement(UInt8(ascii: " "), count: 2 * level))
  }

  /// Writes a JSON string literal with the escapes RFC 8259 requires.
  package static func writeString(_ s: String, into out: inout String) {
    var bytes: [UInt8] = []
    writeString(s, into: &bytes)
    out += String(decoding: bytes, as: UTF8.self)
  }

  /// ``writeString(_:into:)`` as UTF-8 bytes. Every byte that needs an escape is ASCII, and
  /// no byte of a multi-byte UTF-8 sequence is, so escaping byte by byte escapes exactly the
  /// scalars that need it. A string that may hold text a terminal or a CI runner acts on (a `#`,
  /// a C1 control, a bidirectional or line-separator character) takes ``writeUntrusted(_:into:)``.
  ///
  /// One pass over the string's UTF-8 in place, through a pointer: the bytes that need no escape
  /// go out in runs. (A byte-by-byte loop over `utf8` calls the generic iterator and
  /// `UInt8(ascii:)` at every byte in an unoptimised build, where writing a trace's events was
  /// most of the CPU of the event-log tests.)
  private static func writeString(_ s: String, into out: inout [UInt8]) {
    var s = s
    let written = s.withUTF8 { bytes -> Bool in
      guard let p = bytes.baseAddress else {
        out.append(contentsOf: [0x22, 0x22])  // ""
        return true
      }
      let n = bytes.count
      var i = 0
      while i < n {
        // `#`, and the lead bytes of C1 controls (0xC2) and of the separators and bidirectional marks (0xE2).
        if p[i] == 0x23 || p[i] == 0xC2 || p[i] == 0xE2 { return false }
        i += 1
      }
      out.append(0x22)
      var run = 0
      i = 0
      while i < n {
        let byte = p[i]
        if byte == 0x22 || byte == 0x5C || byte < 0x20 {
          out.append(contentsOf: UnsafeBufferPointer(start: p + run, count: i - run))
          append(byte, into: &out)
          run = i + 1
        }
        i += 1
      }
      out.append(contentsOf: UnsafeBufferPointer(start: p + run, count: n - run))
      out.append(0x22)
      return true
    }
    if !written { writeUntrusted(s, into: &out) }
  }

  /// One byte of a string literal, escaped as RFC 8259 requires.
  @inline(__always)
  private static func append(_ byte: UInt8, into out: inout [UInt8]) {
    switch byte {
    case UInt8(ascii: "\""): out.append(contentsOf: "\\\"".utf8)
    case UInt8(ascii: "\\"): out.append(contentsOf: "\\\\".utf8)
    case UInt8(ascii: "\n"): out.append(contentsOf: "\\n".utf8)
    case UInt8(ascii: "\r"): out.append(contentsOf: "\\r".utf8)
    case UInt8(ascii: "\t"): out.append(contentsOf: "\\t".utf8)
    case 0..<0x20: out.append(contentsOf: unicodeEscape(UInt32(byte)).utf8)
    default: out.append(byte)
    }
  }

  /// A string literal whose text from input stays text (``UntrustedText``): as
  /// ``writeString(_:into:)``, and C1 controls, bidirectional overrides and isolates and the
  /// line and paragraph separators as `\uXXXX` (no terminal acts on them in the file's bytes), the
  /// second `#` of `##[` and `##vso[` as `\u0023` (no CI runner reads a command in the line). The
  /// value read back is the same.
  private static func writeUntrusted(_ s: String, into out: inout [UInt8]) {
    let scalars = Array(s.unicodeScalars)
    out.append(UInt8(ascii: "\""))
    for i in scalars.indices {
      let c = scalars[i]
      if (c.value >= 0x80 && c.isEscapedInMessages) || UntrustedText.splitsCommand(scalars, at: i) {
        out.append(contentsOf: unicodeEscape(c.value).utf8)
      } else {
        for byte in String(c).utf8 { append(byte, into: &out) }  // C0 controls as RFC 8259 escapes them
      }
    }
    out.append(UInt8(ascii: "\""))
  }

  /// `\uXXXX` for a scalar of the Basic Multilingual Plane, lower-case hex.
  private static func unicodeEscape(_ value: UInt32) -> String {
    let hex = String(value, radix: 16)
    return "\\u" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
  }
}
