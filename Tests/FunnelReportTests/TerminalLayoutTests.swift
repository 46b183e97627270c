import Testing

@testable import FunnelReport

/// ``TerminalLayout``: prose folded to the width with its indentation kept, and ``Tone``
/// marks turned into colour or removed after every width was counted.
@Suite struct TerminalLayoutTests {
  @Test func longLinesFoldAtSpacesWithTheirIndentKept() {
    let text = "  " + Array(repeating: "word", count: 30).joined(separator: " ") + "\nshort"
    let fitted = TerminalLayout(width: 40, color: false).fit(text)
    let lines = fitted.split(separator: "\n")
    #expect(lines.allSatisfy { $0.count <= 40 }, "\(lines)")
    #expect(lines.dropLast().allSatisfy { $0.hasPrefix("  word") || $0.hasPrefix("    word") })
    #expect(lines.last == "short")
    #expect(fitted.split(whereSeparator: \.isWhitespace) == text.split(whereSeparator: \.isWhitespace))
  }

  @Test func anIntervalIsNeverSplit() {
    let text = "lift +14.57% [11.46, 17.77] and more words to fold here"
    for width in 40...60 {
      for line in TerminalLayout(width: width, color: false).fit(text).split(separator: "\n") {
        #expect(line.filter { $0 == "[" }.count == line.filter { $0 == "]" }.count)
      }
    }
  }

  @Test func colourIsAddedOnlyWhenAsked() {
    let text = "arm " + Tone.good.mark("wins") + ", other " + Tone.bad.mark("loses") + " " + Tone.warning.mark("!")
    #expect(TerminalLayout(width: nil, color: false).fit(text) == "arm wins, other loses !")
    let coloured = TerminalLayout(width: nil, color: true).fit(text)
    #expect(coloured == "arm \u{1B}[32mwins\u{1B}[0m, other \u{1B}[31mloses\u{1B}[0m \u{1B}[1;33m!\u{1B}[0m")
    #expect(TextWidth.columns(coloured) == 23)
  }

  @Test func aWidthBelowTheMinimumIsRaisedToIt() {
    #expect(TerminalLayout(width: 3, color: false).width == TerminalLayout.minimumWidth)
    #expect(TerminalLayout(width: nil, color: false).width == nil)
  }

  @Test func theUnboundedLayoutLeavesLongLinesWhole() {
    let line = String(repeating: "x ", count: 200)
    #expect(TerminalLayout.unbounded.fit(line) == line)
  }
}
