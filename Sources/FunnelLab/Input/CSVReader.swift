/// One record of a CSV file: its fields and the line it starts on.
package struct CSVRecord: Sendable, Hashable {
  /// The 1-based line of the file where the record starts.
  package var line: Int
  /// The fields, unquoted (`""` inside quotes read as `"`), surrounding spaces kept.
  package var fields: [String]
}

/// A CSV syntax error: where, and what.
package struct CSVSyntaxError: Error, Sendable, Hashable {
  /// The 1-based line of the problem.
  package var line: Int
  package var message: String
}

/// The one CSV reader of FunnelLab (RFC 4180): records end with CRLF, LF or CR;
/// a field in double quotes may hold commas, quotes (written `""`) and line ends;
/// a leading UTF-8 byte order mark is skipped; blank lines are skipped.
///
/// It reads Unicode scalars, not `Character`s: in Swift `"\r\n"` is one
/// `Character`, so splitting a `String` on `"\n"` misses CRLF line ends.
package enum CSVReader {
  /// The records of `text`, blank lines left out.
  /// - Throws: ``CSVSyntaxError`` for a quote that is never closed or text after a
  ///   closing quote.
  /// - Complexity: O(n) in the length of `text`.
  package static func records(_ text: String) throws(CSVSyntaxError) -> [CSVRecord] {
    var scalars = text.unicodeScalars[...]
    if scalars.first == "\u{FEFF}" { scalars = scalars.dropFirst() }
    var records: [CSVRecord] = []
    var fields: [String] = []
    var field = String.UnicodeScalarView()
    var line = 1
    var recordLine = 1
    var quoted = false
    var afterQuote = false
    var iterator = scalars.makeIterator()
    var pending: Unicode.Scalar? = nil
    func endRecord() {
      fields.append(String(field))
      field = String.UnicodeScalarView()
      if !(fields.count == 1 && fields[0].isEmpty) { records.append(CSVRecord(line: recordLine, fields: fields)) }
      fields = []
      afterQuote = false
    }
    while let c = pending ?? iterator.next() {
      pending = nil
      if quoted {
        if c == "\"" {
          let next = iterator.next()
          if next == "\"" { field.append("\"") } else { quoted = false; afterQuote = true; pending = next }
        } else {
          field.append(c)
          if c == "\r" {
            let next = iterator.next()
            if next == "\n" { field.append("\n") } else { pending = next }
            line += 1
          } else if c == "\n" {
            line += 1
          }
        }
        continue
      }
      switch c {
      case ",":
        fields.append(String(field))
        field = String.UnicodeScalarView()
        afterQuote = false
      case "\r", "\n":
        if c == "\r", let next = iterator.next(), next != "\n" { pending = next }
        endRecord()
        line += 1
        recordLine = line
      case "\"" where field.allSatisfy({ $0 == " " || $0 == "\t" }) && !afterQuote:
        field = String.UnicodeScalarView()
        quoted = true
      default:
        if afterQuote, c != " ", c != "\t" {
          throw CSVSyntaxError(line: line, message: "text after a closing quote; write a quote inside a quoted field as \"\"")
        }
        if !afterQuote { field.append(c) }
      }
    }
    if quoted { throw CSVSyntaxError(line: recordLine, message: "a quoted field is never closed") }
    endRecord()
    return records
  }

  /// Whether a record read to the end of `line` is inside a quoted field, so that it goes
  /// on past the line end, by the rules of ``records(_:)``: a quote opens a quoted field
  /// only where the field so far is blank (spaces, tabs), and `""` inside one is a quote.
  /// `inside`: the line starts inside a quoted field (the record's last line ended in one).
  /// - Complexity: O(n) in the line's UTF-8 bytes.
  package static func endsInsideQuotes(_ line: String, startingInside inside: Bool) -> Bool {
    let bytes = Array(line.utf8)
    var quoted = inside
    var fieldBlank = !inside
    var afterQuote = false
    var i = 0
    while i < bytes.count {
      let byte = bytes[i]
      i += 1
      if quoted {
        guard byte == UInt8(ascii: "\"") else { continue }
        if i < bytes.count, bytes[i] == UInt8(ascii: "\"") {
          i += 1
        } else {
          quoted = false
          afterQuote = true
        }
        continue
      }
      switch byte {
      case UInt8(ascii: ","):
        fieldBlank = true
        afterQuote = false
      case UInt8(ascii: "\"") where fieldBlank && !afterQuote:
        quoted = true
        fieldBlank = false
      case UInt8(ascii: " "), UInt8(ascii: "\t"):
        break
      default:
        fieldBlank = false
      }
    }
    return quoted
  }
}

/// Gathers the lines of a streamed CSV into records, holding at most one record: a quoted
/// field may span lines, and a record longer than ``maximumRecordBytes`` is a problem
/// instead of a buffer that grows without bound.
package struct CSVRecordAssembler: Sendable {
  /// What one line completes.
  package enum Step: Equatable {
    /// A blank line outside a record: nothing.
    case blank
    /// The line ends inside a quoted field: the record goes on.
    case pending
    /// A record's fields (spaces around them trimmed), by the record's first line.
    case record([String], line: Int)
    /// A record that cannot be read, by its first line, and why.
    case problem(String, line: Int)
  }

  /// The longest record, in bytes (1 MiB).
  package let maximumRecordBytes: Int
  private var pending: (text: String, line: Int)?

  /// An assembler with the given bound.
  package init(maximumRecordBytes: Int = 1 << 20) {
    self.maximumRecordBytes = maximumRecordBytes
  }

  /// Reads line `number`.
  package mutating func add(_ text: String, number: Int) -> Step {
    var record = text
    var first = number
    let continues = pending != nil
    if var open = pending {
      // Taken out before it grows, so that the text is appended in place, not copied.
      pending = nil
      open.text += "\n"
      open.text += text
      record = open.text
      first = open.line
    } else if text.utf8.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }) {
      return .blank
    } else if !text.utf8.contains(where: { $0 == 0x22 || $0 == 0x0D }) {
      // Without a quote or a carriage return, a record is its line split at the commas: what
      // the reader below makes of it, without building each field a character at a time.
      let fields = text.utf8.split(separator: 0x2C, omittingEmptySubsequences: false)
      return .record(fields.map { String(decoding: $0, as: UTF8.self).trimmingSpaces }, line: number)
    }
    if CSVReader.endsInsideQuotes(text, startingInside: continues) {
      guard record.utf8.count <= maximumRecordBytes else {
        return .problem("a quoted field longer than \(LineReader.size(maximumRecordBytes))", line: first)
      }
      pending = (record, first)
      return .pending
    }
    let records: [CSVRecord]
    do {
      records = try CSVReader.records(record)
    } catch {
      return .problem(error.message, line: first)
    }
    guard records.count == 1, let fields = records.first?.fields else {
      return .problem("more than one record on the line (a carriage return outside quotes?)", line: first)
    }
    return .record(fields.map(\.trimmingSpaces), line: first)
  }

  /// Ends the input: the first line of a record whose quoted field never closed, if one did not.
  package mutating func finish() -> Int? {
    defer { pending = nil }
    return pending?.line
  }
}
