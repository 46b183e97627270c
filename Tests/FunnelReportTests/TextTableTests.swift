import Testing

@testable import FunnelReport

/// ``TextTable``: columns as wide as their widest cell in characters, two spaces apart,
/// left or right aligned (the header like its column), trailing spaces trimmed.
@Suite struct TextTableTests {
  @Test func columnsAreAlignedAndTrailingSpacesTrimmed() {
    var t = TextTable(["name", "users"], alignments: [.left, .right])
    t.add(["control", "1,000"])
    t.add(["b", "12"])
    #expect(
      t.render() == """
          name     users
          ───────  ─────
          control  1,000
          b           12

        """)
  }

  @Test func indentPrefixesEveryLineAndALeftLastColumnIsTrimmed() {
    var t = TextTable(["n", "verdict"], alignments: [.right, .left])
    t.add(["1", "ok"])
    t.add(["10", "a longer verdict"])
    #expect(t.render(indent: "") == " n  verdict\n──  ────────────────\n 1  ok\n10  a longer verdict\n")
  }

  /// Widths count characters, not bytes or scalars: accented, emoji and box-drawing cells align.
  @Test func widthsCountCharacters() {
    var t = TextTable(["id", "x"], alignments: [.left, .right])
    t.add(["café", "1"])
    t.add(["e\u{301}", "2"])
    t.add(["🙂🙂🙂🙂", "3"])
    let lines = t.render(indent: "").split(separator: "\n")
    #expect(lines.map(\.count) == [7, 7, 7, 7, 7])
  }

  /// A row with fewer cells than headers leaves the rest of the line empty.
  @Test func shortRowsAreAllowed() {
    var t = TextTable(["a", "b", "c"], alignments: [.left, .left, .left])
    t.add(["x"])
    #expect(t.render(indent: "") == "a  b  c\n─  ─  ─\nx\n")
  }

  @Test func aTableWithoutRowsHasItsHeaderAndRule() {
    let t = TextTable(["metric"], alignments: [.left])
    #expect(t.render() == "  metric\n  ──────\n")
  }
}
