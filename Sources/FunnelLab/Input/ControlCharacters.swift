extension StringProtocol {
  /// The text with every control character written as an escape (`\n`, `\r`, `\t`,
  /// `\u{1B}`…) and every CI workflow command neutralised (``neutralizingWorkflowCommands``):
  /// what a message or a plain-text line prints of a value read from input, so that a
  /// spec value can neither start a new line (a fake `Error:` line), send terminal escape
  /// sequences, nor be read by GitHub Actions or Azure Pipelines as a command. Format
  /// characters that reorder text (U+202A–U+202E, U+2066–U+2069) and the line and
  /// paragraph separators are escaped too.
  package var escapingControlCharacters: String {
    UntrustedText.escape(unicodeScalars, controls: true, lineStarts: true)
  }

  /// The text with every control character but the line feed escaped, and workflow
  /// commands neutralised on every line: for output meant for a terminal whose lines are
  /// its own.
  package var escapingControlCharactersButNewlines: String {
    split(separator: "\n", omittingEmptySubsequences: false).map(\.escapingControlCharacters).joined(separator: "\n")
  }

  /// The text with its workflow commands neutralised, control characters left as they are:
  /// a backslash before a `::` that starts the text or follows white space (`\::warning`), and
  /// between the two `#` of `##[` and `##vso[` (`#\#[`). A line of the result can then start
  /// with `::` only after a character that is not white space, which no CI runner reads as
  /// a command.
  package var neutralizingWorkflowCommands: String {
    UntrustedText.escape(unicodeScalars, controls: false, lineStarts: true)
  }
}

/// How text read from input (ids, names, paths) is written so that it stays text.
///
/// Two kinds of reader act on what a line holds. A terminal acts on escape sequences
/// (ESC, the C1 CSI U+009B) and bidirectional overrides. A CI runner acts on workflow
/// commands: GitHub Actions reads a line whose first non-blank characters are `::`
/// (`::warning title=…::`, `::error::`, `::add-mask::`) and, in its legacy parser, `##[`
/// anywhere in a line; Azure Pipelines reads `##vso[` anywhere in a line. Each output format
/// escapes both kinds its own way; this is the plain-text way, which the others build on.
package enum UntrustedText {
  /// `scalars` with, when `controls`, every ``Unicode/Scalar/isEscapedInMessages`` scalar as
  /// an escape (`\n`, `\r`, `\t`, `\u{1B}`); a backslash between the two `#` of every `##[` and
  /// `##vso[` (any case); and, when `lineStarts`, a backslash before every `::` at the start
  /// or after white space.
  /// - Complexity: O(*n*) in the scalars.
  package static func escape(_ scalars: some Collection<Unicode.Scalar>, controls: Bool, lineStarts: Bool) -> String {
    guard scalars.contains(where: { $0.isEscapedInMessages || $0 == ":" || $0 == "#" }) else {
      var plain = String.UnicodeScalarView()
      plain.append(contentsOf: scalars)
      return String(plain)
    }
    let s = Array(scalars)
    var out = String.UnicodeScalarView()
    for i in s.indices {
      let c = s[i]
      if controls, c.isEscapedInMessages {
        out += shown(c).unicodeScalars
        continue
      }
      if (lineStarts && startsLineCommand(s, at: i)) || splitsCommand(s, at: i) { out.append("\\") }
      out.append(c)
    }
    return String(out)
  }

  /// Whether `s[i]` is the first `:` of a `::` at the start or after white space (what GitHub
  /// Actions reads as a command at the start of a line: it trims white space first).
  package static func startsLineCommand(_ s: [Unicode.Scalar], at i: Int) -> Bool {
    s[i] == ":" && i + 1 < s.count && s[i + 1] == ":" && (i == 0 || s[i - 1].properties.isWhitespace)
  }

  /// Whether `s[i]` is the second `#` of `##[` or `##vso[` (`vso` in any case): GitHub's
  /// legacy parser and Azure Pipelines read these anywhere in a line.
  package static func splitsCommand(_ s: [Unicode.Scalar], at i: Int) -> Bool {
    guard s[i] == "#", i > 0, s[i - 1] == "#", i + 1 < s.count else { return false }
    if s[i + 1] == "[" { return true }
    guard i + 4 < s.count, s[i + 4] == "[" else { return false }
    return String(String.UnicodeScalarView(s[(i + 1)...(i + 3)])).lowercased() == "vso"
  }

  /// A control character as a message shows it: `\n`, `\r`, `\t` or `\u{HEX}`.
  package static func shown(_ c: Unicode.Scalar) -> String {
    switch c {
    case "\n": "\\n"
    case "\r": "\\r"
    case "\t": "\\t"
    default: "\\u{" + String(c.value, radix: 16, uppercase: true) + "}"
    }
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
