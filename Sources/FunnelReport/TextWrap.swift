/// Folding prose to a width.
package enum TextWrap {
  /// `text` in lines of at most `width` display columns (``TextWidth``), broken
  /// at spaces but never inside brackets (an interval `[11.46, 17.77]` stays whole);
  /// continuation lines start with `indent` spaces. A word longer than a line stands on its
  /// own line, whole.
  package static func wrap(_ text: String, width: Int, indent: Int = 0) -> [String] {
    var lines: [String] = []
    var line = ""
    var columns = 0
    for word in words(text) {
      let w = TextWidth.columns(word)
      if line.isEmpty, lines.isEmpty {
        (line, columns) = (word, w)
      } else if columns + 1 + w <= width {
        (line, columns) = (line + " " + word, columns + 1 + w)
      } else {
        lines.append(line)
        (line, columns) = (String(repeating: " ", count: indent) + word, indent + w)
      }
    }
    lines.append(line)
    return lines
  }

  /// The words of `text` split at spaces, the words between `[` and its `]` joined back.
  static func words(_ text: String) -> [String] {
    var words: [String] = []
    var open = 0
    for piece in text.split(separator: " ", omittingEmptySubsequences: false) {
      if open > 0, let last = words.indices.last {
        words[last] += " " + piece
      } else {
        words.append(String(piece))
      }
      open = max(0, open + piece.filter { $0 == "[" }.count - piece.filter { $0 == "]" }.count)
    }
    return words
  }
}
