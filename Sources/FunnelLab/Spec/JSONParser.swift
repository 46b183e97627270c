/// A strict JSON parser (RFC 8259) that records the line of every value and key.
///
/// Written here because the root package takes no dependencies and Foundation's
/// parser forgets positions. Errors name the line and column and what was expected.
package struct JSONParser {
  /// Parse failure with its position in the text.
  package struct Failure: Error, Sendable, Hashable, CustomStringConvertible {
    /// The 1-based line of the offending character.
    package var line: Int
    /// The 1-based column of the offending character on its line, counted in
    /// `Character`s (grapheme clusters, what an editor shows as one character): `é` and
    /// `👍🏽` count 1 each, whatever their UTF-8 bytes or Unicode scalars. A tab counts 1.
    package var column: Int
    /// What was expected or found, e.g. `expected ',' or '}' in an object`.
    package var message: String
    /// `line L, column C: message`.
    package var description: String { "line \(line), column \(column): \(message)" }
  }

  private let bytes: [UInt8]
  private var index = 0
  private var line = 1
  private var lineStart = 0
  private var depth = 0
  /// Nesting deeper than this is refused rather than risking the stack.
  private static let maximumDepth = 512

  private init(_ text: String) { bytes = Array(text.utf8) }

  /// Parses a complete JSON document.
  /// - Throws: ``Failure`` naming the line and column of the first syntax error.
  package static func parse(_ text: String) throws(Failure) -> JSONValue {
    var parser = JSONParser(text)
    parser.skipWhitespace()
    let value = try parser.parseValue()
    parser.skipWhitespace()
    guard parser.index == parser.bytes.count else {
      throw parser.failure("unexpected text after the end of the document")
    }
    return value
  }

  /// A failure at the current position; its column counts the `Character`s before it on its line.
  private func failure(_ message: String) -> Failure {
    let before = String(decoding: bytes[lineStart..<min(index, bytes.count)], as: UTF8.self)
    return Failure(line: line, column: before.count + 1, message: message)
  }

  /// The whole character that starts at the current byte (not just its first byte), for messages.
  private var currentCharacter: String { character(at: index) }

  /// The Unicode scalar whose UTF-8 encoding starts at byte `start`, as text.
  private func character(at start: Int) -> String {
    let end = bytes[start...].dropFirst().firstIndex { $0 & 0xC0 != 0x80 } ?? bytes.count
    return String(decoding: bytes[start..<end], as: UTF8.self)
  }

  private mutating func skipWhitespace() {
    while index < bytes.count {
      switch bytes[index] {
      case 0x20, 0x09, 0x0D: index += 1
      case 0x0A:
        index += 1
        line += 1
        lineStart = index
      default: return
      }
    }
  }

  private mutating func parseValue() throws(Failure) -> JSONValue {
    guard index < bytes.count else { throw failure("unexpected end of the document; a value was expected") }
    let startLine = line
    switch bytes[index] {
    case UInt8(ascii: "{"): return try parseObject()
    case UInt8(ascii: "["): return try parseArray()
    case UInt8(ascii: "\""): return JSONValue(.string(try parseString()), line: startLine)
    case UInt8(ascii: "t"): try expectWord("true"); return JSONValue(.bool(true), line: startLine)
    case UInt8(ascii: "f"): try expectWord("false"); return JSONValue(.bool(false), line: startLine)
    case UInt8(ascii: "n"): try expectWord("null"); return JSONValue(.null, line: startLine)
    case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
    case 0xEF where index == 0 && bytes.starts(with: [0xEF, 0xBB, 0xBF]):
      throw failure("a byte order mark (U+FEFF) before the document; save the file as UTF-8 without a BOM")
    default:
      throw failure("unexpected character '\(currentCharacter)'; a value was expected")
    }
  }

  private mutating func expectWord(_ word: String) throws(Failure) {
    for byte in word.utf8 {
      guard index < bytes.count, bytes[index] == byte else { throw failure("invalid literal; expected '\(word)'") }
      index += 1
    }
  }

  private mutating func enter() throws(Failure) {
    depth += 1
    if depth > JSONParser.maximumDepth { throw failure("nesting deeper than \(JSONParser.maximumDepth) levels") }
  }

  private mutating func parseObject() throws(Failure) -> JSONValue {
    let startLine = line
    try enter()
    defer { depth -= 1 }
    index += 1
    var members: [JSONValue.Member] = []
    var seen = Set<String>()
    skipWhitespace()
    if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
      index += 1
      return JSONValue(.object(members), line: startLine)
    }
    while true {
      skipWhitespace()
      guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else {
        throw failure("expected a key in double quotes")
      }
      let keyLine = line
      let key = try parseString()
      guard seen.insert(key).inserted else { throw failure("duplicate key \"\(key)\"") }
      skipWhitespace()
      guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw failure("expected ':' after key \"\(key)\"") }
      index += 1
      skipWhitespace()
      let value = try parseValue()
      members.append(JSONValue.Member(key: key, value: value, line: keyLine))
      skipWhitespace()
      guard index < bytes.count else { throw failure("unexpected end of the document inside an object") }
      if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
      if bytes[index] == UInt8(ascii: "}") { index += 1; break }
      throw failure("expected ',' or '}' in an object")
    }
    return JSONValue(.object(members), line: startLine)
  }

  private mutating func parseArray() throws(Failure) -> JSONValue {
    let startLine = line
    try enter()
    defer { depth -= 1 }
    index += 1
    var elements: [JSONValue] = []
    skipWhitespace()
    if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
      index += 1
      return JSONValue(.array(elements), line: startLine)
    }
    while true {
      skipWhitespace()
      elements.append(try parseValue())
      skipWhitespace()
      guard index < bytes.count else { throw failure("unexpected end of the document inside an array") }
      if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
      if bytes[index] == UInt8(ascii: "]") { index += 1; break }
      throw failure("expected ',' or ']' in an array")
    }
    return JSONValue(.array(elements), line: startLine)
  }

  private mutating func parseString() throws(Failure) -> String {
    index += 1
    // The common string, without escapes: its bytes as they stand.
    let start = index
    // One read a byte through a pointer: the scan is most of a log's parse.
    let end = bytes.withUnsafeBufferPointer { b in
      var end = start
      while end < b.count {
        let byte = b[end]
        if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || byte < 0x20 { break }
        end += 1
      }
      return end
    }
    if end < bytes.count, bytes[end] == UInt8(ascii: "\"") {
      defer { index = end + 1 }
      return bytes.withUnsafeBufferPointer { String(decoding: UnsafeBufferPointer(rebasing: $0[start..<end]), as: UTF8.self) }
    }
    // The plain bytes before the first escape start the run; the loop reads on from there.
    var scalars = String.UnicodeScalarView()
    var run = [UInt8](bytes[start..<end])
    index = end
    func flush(_ run: inout [UInt8], into scalars: inout String.UnicodeScalarView) {
      if !run.isEmpty {
        scalars.append(contentsOf: String(decoding: run, as: UTF8.self).unicodeScalars)
        run.removeAll(keepingCapacity: true)
      }
    }
    while true {
      guard index < bytes.count else { throw failure("unterminated string") }
      let byte = bytes[index]
      if byte == UInt8(ascii: "\"") {
        index += 1
        break
      }
      if byte < 0x20 { throw failure("control character in a string; escape it") }
      if byte != UInt8(ascii: "\\") {
        run.append(byte)
        index += 1
        continue
      }
      flush(&run, into: &scalars)
      index += 1
      guard index < bytes.count else { throw failure("unterminated escape") }
      let escape = bytes[index]
      index += 1
      switch escape {
      case UInt8(ascii: "\""): scalars.append("\"")
      case UInt8(ascii: "\\"): scalars.append("\\")
      case UInt8(ascii: "/"): scalars.append("/")
      case UInt8(ascii: "b"): scalars.append("\u{08}")
      case UInt8(ascii: "f"): scalars.append("\u{0C}")
      case UInt8(ascii: "n"): scalars.append("\n")
      case UInt8(ascii: "r"): scalars.append("\r")
      case UInt8(ascii: "t"): scalars.append("\t")
      case UInt8(ascii: "u"):
        var code = try parseHex4()
        if (0xD800..<0xDC00).contains(code) {
          guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else {
            throw failure("unpaired surrogate in \\u escape")
          }
          index += 2
          let low = try parseHex4()
          guard (0xDC00..<0xE000).contains(low) else { throw failure("invalid low surrogate in \\u escape") }
          code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
        }
        guard let scalar = Unicode.Scalar(code) else { throw failure("invalid \\u escape") }
        scalars.append(scalar)
      default:
        throw failure("invalid escape '\\\(character(at: index - 1))'")
      }
    }
    flush(&run, into: &scalars)
    return String(scalars)
  }

  private mutating func parseHex4() throws(Failure) -> UInt32 {
    var value: UInt32 = 0
    for _ in 0..<4 {
      guard index < bytes.count else { throw failure("unterminated \\u escape") }
      let byte = bytes[index]
      let digit: UInt32
      switch byte {
      case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(byte - UInt8(ascii: "0"))
      case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(byte - UInt8(ascii: "a") + 10)
      case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(byte - UInt8(ascii: "A") + 10)
      default: throw failure("invalid hex digit in \\u escape")
      }
      value = value * 16 + digit
      index += 1
    }
    return value
  }

  private mutating func parseNumber() throws(Failure) -> JSONValue {
    let startLine = line
    let start = index
    func isDigit(_ b: UInt8) -> Bool { b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9") }
    if bytes[index] == UInt8(ascii: "-") { index += 1 }
    guard index < bytes.count, isDigit(bytes[index]) else { throw failure("invalid number") }
    if bytes[index] == UInt8(ascii: "0") {
      index += 1
    } else {
      while index < bytes.count, isDigit(bytes[index]) { index += 1 }
    }
    if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
      index += 1
      guard index < bytes.count, isDigit(bytes[index]) else { throw failure("invalid number: digits expected after '.'") }
      while index < bytes.count, isDigit(bytes[index]) { index += 1 }
    }
    if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
      index += 1
      if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
      guard index < bytes.count, isDigit(bytes[index]) else { throw failure("invalid number: digits expected in the exponent") }
      while index < bytes.count, isDigit(bytes[index]) { index += 1 }
    }
    let literal = String(decoding: bytes[start..<index], as: UTF8.self)
    guard let value = Double(literal) else { throw failure("invalid number '\(literal)'") }
    return JSONValue(.number(value, literal: literal), line: startLine)
  }
}
