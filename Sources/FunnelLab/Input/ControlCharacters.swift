extension StringProtocol {
  /// The text with every control character written as an escape (`\n`, `\r`, `\t`,
  /// `\u{1B}`…): what a message prints of a value read from input, so that a spec
  /// value can neither start a new line (a fake `Error:` line) nor send terminal
  /// escape sequences. Format characters that reorder text (U+202A–U+202E,
  /// U+2066–U+2069) and the line and paragraph separators are escaped too.
  package var escapingControlCharacters: String {
    guard unicodeScalars.contains(where: \.isEscapedInMessages) else { return String(self) }
    var out = ""
    for scalar in unicodeScalars {
      switch scalar {
      case "\n": out += "\\n"
      case "\r": out += "\\r"
      case "\t": out += "\\t"
      default:
        if scalar.isEscapedInMessages {
          out += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
        } else {
          out.unicodeScalars.append(scalar)
        }
      }
    }
    return out
  }

  /// The text with every control character but the line feed escaped: for output
  /// meant for a terminal whose lines are its own.
  package var escapingControlCharactersButNewlines: String {
    guard unicodeScalars.contains(where: { $0 != "\n" && $0.isEscapedInMessages }) else { return String(self) }
    return split(separator: "\n", omittingEmptySubsequences: false).map(\.escapingControlCharacters).joined(separator: "\n")
  }
}

extension Unicode.Scalar {
  /// C0 and C1 controls, DEL, bidirectional overrides and isolates, and the Unicode
  /// line and paragraph separators.
  package var isEscapedInMessages: Bool {
    switch value {
    case 0x00...0x1F, 0x7F...0x9F, 0x2028, 0x2029, 0x202A...0x202E, 0x2066...0x2069: true
    default: false
    }
  }
}
