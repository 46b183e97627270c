import FunnelLab

/// How terminal text is laid out: the width it must fit and whether it may be coloured.
///
/// The command line binds it (``current``) around the rendering of a terminal table, so
/// every ``TextTable`` and summary inside fits without each renderer taking a width; a
/// renderer called outside that scope (the library's ``RunReport``, Markdown, JSON) sees
/// ``unbounded``: full width, no colour.
package struct TerminalLayout: Sendable, Hashable {
  /// The most display columns a line may take; `nil` for no limit (`--wide`).
  package var width: Int?
  /// Whether ``Tone`` marks become colour codes (else they are removed).
  package var color: Bool

  /// The narrowest width tables fold to; a smaller `COLUMNS` is raised to it.
  package static let minimumWidth = 40

  /// - Parameters:
  ///   - width: the columns to fit (raised to ``minimumWidth``); `nil` for no limit.
  ///   - color: whether wins, losses and warnings are coloured.
  package init(width: Int?, color: Bool) {
    self.width = width.map { max(Self.minimumWidth, $0) }
    self.color = color
  }

  /// No width limit and no colour: what renderers see outside the command line.
  package static let unbounded = TerminalLayout(width: nil, color: false)

  /// The layout of the terminal text being rendered now (task-local; ``unbounded`` unless
  /// the command line bound one).
  @TaskLocal package static var current = TerminalLayout.unbounded

  /// `text` fitted to ``width``: every line wider than it is folded at spaces (never inside
  /// brackets), its continuation lines indented two columns deeper than the line; tables are
  /// already fitted by ``TextTable``. Then ``Tone`` marks become colour codes or vanish, and
  /// workflow commands that folding or a vanished mark brought together are neutralised
  /// (``Swift/StringProtocol/neutralizingWorkflowCommands``; text from input arrives escaped).
  package func fit(_ text: String) -> String {
    var lines: [String] = []
    for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
      let line = String(line)
      guard let width, TextWidth.columns(line) > width else {
        lines.append(line)
        continue
      }
      let indent = line.prefix { $0 == " " }.count
      let folded = TextWrap.wrap(String(line.dropFirst(indent)), width: max(20, width - indent), indent: 2)
      lines += folded.map { String(repeating: " ", count: indent) + $0 }
    }
    return Tone.render(lines.joined(separator: "\n"), color: color).neutralizingWorkflowCommands
  }
}

/// A span of terminal text that colour marks as good, bad or a warning. Renderers wrap the
/// span in marks (private-use characters, zero columns wide, that survive control-character
/// escaping); ``TerminalLayout/fit(_:)`` turns them into ANSI colours or removes them, after
/// every width has been counted.
package enum Tone: Character, CaseIterable, Sendable {
  /// A win, a correct call, a guardrail held: green.
  case good = "\u{E001}"
  /// A loss, a wrong call, a broken guardrail: red.
  case bad = "\u{E002}"
  /// Something to look at: a conflict, an untrusted test: yellow.
  case warning = "\u{E003}"

  /// The mark that ends a span.
  static let end: Character = "\u{E000}"

  /// `text` marked with this tone.
  package func mark(_ text: String) -> String { String(rawValue) + text + String(Self.end) }

  /// The SGR code of the tone (bold for the warning, so it reads without colour vision).
  var code: String {
    switch self {
    case .good: "\u{1B}[32m"
    case .bad: "\u{1B}[31m"
    case .warning: "\u{1B}[1;33m"
    }
  }

  /// Whether `c` is a mark (a tone or the end).
  static func isMark(_ c: Character) -> Bool { c == end || Tone(rawValue: c) != nil }

  /// `text` with its marks as ANSI colour codes (`color`) or removed.
  static func render(_ text: String, color: Bool) -> String {
    guard text.contains(where: isMark) else { return text }
    var out = ""
    for c in text {
      if c == end {
        if color { out += "\u{1B}[0m" }
      } else if let tone = Tone(rawValue: c) {
        if color { out += tone.code }
      } else {
        out.append(c)
      }
    }
    return out
  }
}

/// The display width of terminal text.
package enum TextWidth {
  /// The columns `text` takes: one per character, none for a ``Tone`` mark or an ANSI
  /// escape sequence.
  package static func columns(_ text: some StringProtocol) -> Int {
    var n = 0
    var inEscape = false
    for c in text {
      if inEscape {
        if c.isLetter { inEscape = false }
      } else if c == "\u{1B}" {
        inEscape = true
      } else if !Tone.isMark(c) {
        n += 1
      }
    }
    return n
  }
}
