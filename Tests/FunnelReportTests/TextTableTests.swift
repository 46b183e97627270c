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

  /// A wide table: metric and arm (the keys) then five numbers of ten columns each.
  static func wide(secondary: [Int] = []) -> TextTable {
    var t = TextTable(
      ["metric", "arm", "value", "lift", "delta", "p", "truth"], alignments: [.left, .left] + Array(repeating: .right, count: 5),
      secondary: secondary)
    t.add(["completion", "features5", "65.86%", "+0.02% [0.01, 0.03]", "+0.01 pp", "<0.0001", "+0.02%"])
    t.add(["purchase", "upsellAfter3", "4.01%", "-1.42% [-3.95, 1.17]", "-0.06 pp", "0.2786", "-2.46%"])
    return t
  }

  /// Every line of `text` is at most `width` characters.
  static func fits(_ text: String, _ width: Int) -> Bool { text.split(separator: "\n").allSatisfy { $0.count <= width } }

  @Test func aTableThatFitsIsUnchangedByAWidth() {
    let t = Self.wide()
    let full = t.render(indent: "  ", width: nil)
    #expect(t.render(indent: "  ", width: 200) == full)
    #expect(!full.contains("--wide"))
  }

  /// Secondary columns go first, right-most first, and only when that is enough; a line says
  /// which and how to see them.
  @Test func secondaryColumnsAreLeftOutWhenThatIsEnough() {
    let t = Self.wide(secondary: [4, 6])
    let one = t.render(indent: "  ", width: 75)
    #expect(Self.fits(one, 75), "\(one)")
    #expect(!one.contains("-2.46%") && one.contains("-0.06 pp"), "only truth had to go: \(one)")
    #expect(one.contains("(left out: truth to fit 75 columns; --wide shows the whole table)"))
    let two = t.render(indent: "  ", width: 70)
    #expect(!two.contains("-2.46%") && !two.contains("-0.06 pp") && two.contains("left out: delta, truth"), "\(two)")
    // When leaving them all out would not fit, they stay and the table is split instead.
    let split = t.render(indent: "  ", width: 45)
    #expect(split.contains("-0.06 pp") && split.contains("split in"), "\(split)")
  }

  /// Split parts repeat the key columns (the leading left-aligned ones) and every cell appears once.
  @Test func aSplitTableRepeatsItsKeysAndKeepsEveryCell() {
    let t = Self.wide()
    let text = t.render(indent: "  ", width: 60)
    #expect(Self.fits(text, 60), "\(text)")
    #expect(text.components(separatedBy: "upsellAfter3").count - 1 == 2, "\(text)")
    for cell in t.rows.flatMap({ $0 }) {
      #expect(text.contains(cell), "\(cell) lost: \(text)")
    }
    let words = text.split(whereSeparator: \.isWhitespace).joined(separator: " ")
    #expect(words.contains("(split in 2 parts to fit 60 columns; --wide shows the whole table)"), "\(text)")
  }

  /// When one column cannot stand beside the keys, each row becomes a block of `header value` pairs.
  @Test func aColumnWiderThanTheRestBecomesRowBlocks() {
    var t = TextTable(["arm", "note"], alignments: [.left, .left])
    t.add(["control", String(repeating: "word ", count: 20)])
    let text = t.render(indent: "  ", width: 45)
    #expect(Self.fits(text, 45), "\(text)")
    #expect(text.hasPrefix("  control\n    note word word"), "\(text)")
    #expect(text.contains("one block per row"))
  }

  /// Key columns that cover the whole too-wide table leave nothing to split: each row becomes
  /// a block headed by its first cell, never a table of nothing but the note.
  @Test func keyColumnsCoveringTheTableBecomeRowBlocks() {
    var t = TextTable(["screen", "action"], alignments: [.left, .left])
    t.keyColumns = 2
    t.add(["registration", String(repeating: "x", count: 40)])
    let text = t.render(indent: "  ", width: 40)
    #expect(text.hasPrefix("  registration\n    action"), "\(text)")
    #expect(text.contains(String(repeating: "x", count: 40)), "\(text)")
    #expect(text.contains("one block per row"))
  }

  /// Tone marks take no column: a marked cell aligns like a plain one.
  @Test func toneMarksTakeNoWidth() {
    var t = TextTable(["arm", "verdict"], alignments: [.left, .right])
    t.add(["a", Tone.good.mark("correct")])
    t.add(["b", "missed"])
    let text = TerminalLayout.unbounded.fit(t.render(indent: ""))
    #expect(text == "arm  verdict\n───  ───────\na    correct\nb     missed\n")
  }
}
