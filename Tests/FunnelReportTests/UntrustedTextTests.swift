import Foundation
import FunnelFuzz
import FunnelLab
import FunnelTestSupport
import Testing

@testable import FunnelReport

/// Issue 58: text from input (ids, names, paths) is escaped where it is written, per format,
/// so that no line of any output is a CI workflow command (`::warning::`, `##[error]`,
/// `##vso[`) or sends a terminal escape, and an ordinary name is written as it is.
@Suite struct UntrustedTextTests {
  /// Every writer's escape, by format: plain text (messages, terminal tables), Markdown, CSV,
  /// HTML, JUnit XML, a JSON string, a GitHub annotation's message.
  static let writers: [(String, @Sendable (String) -> String)] = [
    ("plain", { $0.escapingControlCharacters }), ("terminal", { $0.escapingControlCharactersButNewlines }),
    ("markdown", RunMarkdownRenderer.cell), ("markdown code", RunMarkdownRenderer.code), ("csv", CSVWriter.field),
    ("html", HTMLDocument.escape), ("xml", CheckRenderer.xml), ("json", { JSONWriter.write(.string($0)) }),
  ]

  /// A hostile name at the start of a line, after blanks, and inside a sentence.
  @Test(arguments: hostileNames, writers.indices)
  func hostileNamesStayText(name: String, writer: Int) {
    let (format, write) = Self.writers[writer]
    for text in [write(name), "  " + write(name), "note " + write(name) + " end", write("x " + name)] {
      #expect(forgedCommandLines(text).isEmpty, "\(format): \(text.debugDescription)")
    }
  }

  /// A GitHub annotation's message and title hold a hostile name on the annotation's one line.
  @Test(arguments: hostileNames)
  func annotationsHoldHostileNamesOnTheirLine(name: String) {
    let line = "::error file=\(CheckRenderer.property(name)),title=\(CheckRenderer.property(name))::\(CheckRenderer.data(name))\n"
    #expect(forgedCommandLines(line, annotations: true).isEmpty, "\(line.debugDescription)")
    #expect(line.unicodeScalars.filter { $0 == "\n" || $0 == "\r" }.count == 1)
  }

  static let ordinary = ["control", "upsellAfter3", "b", "a:b", "a::b", "ratio 1:2", "C# and F#", "## heading", "[x]", "#1"]

  /// An ordinary name is written as it is in plain text, Markdown cells and CSV.
  @Test(arguments: ordinary)
  func ordinaryNamesAreUnchanged(name: String) {
    #expect(name.escapingControlCharacters == name)
    #expect(name.neutralizingWorkflowCommands == name)
    #expect(CSVWriter.field(name) == name)
    #expect(HTMLDocument.escape(name) == name)
  }

  /// The escapes each format writes, as documented in docs/limits.md ("Untrusted text").
  @Test(arguments: [
    ("::warning::x", "\\::warning::x", "\"::warning::x\"", "&#58;:warning::x", ##""::warning::x""##),
    ("  ::error::z", "  \\::error::z", "\"  ::error::z\"", "  &#58;:error::z", ##""  ::error::z""##),
    ("##[error]w", "#\\#[error]w", "#\\#[error]w", "#&#35;[error]w", ##""#\u0023[error]w""##),
    ("##vso[task]", "#\\#vso[task]", "#\\#vso[task]", "#&#35;vso[task]", ##""#\u0023vso[task]""##),
    ("a\n::b", "a\\n\\::b", "a\\n::b", "a\n&#58;:b", ##""a\n::b""##),
    ("\u{1B}[31m", "\\u{1B}[31m", "\\u{1B}[31m", "\\u{1B}[31m", ##""\u001b[31m""##),
    ("\u{9B}1m\u{202E}", "\\u{9B}1m\\u{202E}", "\\u{9B}1m\\u{202E}", "\\u{9B}1m\\u{202E}", ##""\u009b1m\u202e""##),
  ])
  func eachFormatEscapesItsWay(name: String, plain: String, csv: String, html: String, json: String) {
    #expect(name.escapingControlCharacters == plain)
    #expect(CSVWriter.field(name) == csv)
    #expect(HTMLDocument.escape(name) == html)
    #expect(JSONWriter.write(.string(name)).trimmingCharacters(in: .newlines) == json)
  }

  /// JSON keeps the value: a reader gets back exactly the name.
  @Test(arguments: hostileNames)
  func jsonReadsBackTheName(name: String) throws {
    let text = JSONWriter.write(.string(name))
    #expect(try JSONParser.parse(text).kind == .string(name))
  }

  /// Markdown shows the name: `\:` and `\#` are CommonMark escapes of the characters themselves.
  @Test func markdownEscapesAreCommonMarkPunctuation() {
    #expect(RunMarkdownRenderer.cell("::warning::x") == "\\::warning::x")
    #expect(RunMarkdownRenderer.cell("a\n::b") == "a \\::b")
    #expect(RunMarkdownRenderer.cell("##[error]") == "#\\#[error]")
    #expect(RunMarkdownRenderer.code("::x") == "\\::x")
    #expect(RunMarkdownRenderer.code("control") == "`control`")
  }

  /// A terminal table whose first column is a hostile name, folded to a narrow width.
  @Test(arguments: hostileNames)
  func terminalTablesStayText(name: String) {
    var table = TextTable(["variant", "users"], alignments: [.left, .right])
    table.add([name, "1000"])
    table.add(["wordy name " + name + " that folds", "2000"])
    let layout = TerminalLayout(width: 40, color: false)
    let text = TerminalLayout.$current.withValue(layout) { layout.fit(table.render().escapingControlCharactersButNewlines) }
    #expect(forgedCommandLines(text).isEmpty, "\(text)")
  }
}
