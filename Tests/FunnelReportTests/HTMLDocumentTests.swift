import Testing

@testable import FunnelReport

/// ``HTMLDocument``: hostile text is escaped wherever the page takes text, and the page
/// stays well-formed XML with no script.
@Suite struct HTMLDocumentTests {
  static let hostile = [
    "<script>alert(1)</script>", "\"><img src=x onerror=alert(1)>", "Tom & Jerry's", "a < b > c", "&amp; already",
    "' onmouseover='x", "]]><!--", "</title><script>",
  ]

  @Test func escapeWritesTheFiveXMLEntities() {
    #expect(HTMLDocument.escape("<a href=\"x\">Tom & Jerry's</a>") == "&lt;a href=&quot;x&quot;&gt;Tom &amp; Jerry&apos;s&lt;/a&gt;")
    #expect(HTMLDocument.escape("&amp;") == "&amp;amp;")
    #expect(HTMLDocument.escape("plain 🙂 é") == "plain 🙂 é")
    #expect(HTMLDocument.escape("") == "")
  }

  /// Hostile text in the title, headings, paragraphs, tables, captions and chart titles:
  /// the page parses, has no `script` element and gives every text back as it was.
  @Test(arguments: hostile)
  func hostileTextStaysText(_ text: String) {
    var page = HTMLDocument(title: text)
    page.heading(1, text)
    page.paragraph(text, cssClass: "note")
    page.table([text, "n"], [[text, "1"], ["row", text]], right: [1], wrap: [0], caption: text)
    page.chart(kind: "funnel", title: text, description: text, width: 400, height: 10, content: "")
    let xml = XMLCheck(page.html)
    #expect(xml.wellFormed, "\(page.html)")
    #expect(!xml.elements.contains { $0.name == "script" || $0.name == "img" })
    #expect(xml.elements.allSatisfy { $0.attributes.keys.allSatisfy { !$0.hasPrefix("on") } })
    // title, h1, p, caption, th, th (row), td, figcaption, svg title, desc.
    #expect(xml.text.components(separatedBy: text).count - 1 == 10)
  }

  @Test func chartsGetDistinctIDsAndTheirTextAlternative() {
    var page = HTMLDocument(title: "t")
    page.beginCharts()
    page.chart(kind: "forest", title: "A", description: "first", width: 400, height: 50, content: "")
    page.chart(kind: "bars", title: "B", description: "second", width: 400, height: 50, content: "")
    page.endCharts()
    let xml = XMLCheck(page.html)
    #expect(xml.wellFormed)
    let svgs = xml.elements.filter { $0.name == "svg" }
    #expect(svgs.map { $0.attributes["aria-labelledby"] } == ["chart1-title chart1-desc", "chart2-title chart2-desc"])
    #expect(svgs.map { $0.attributes["viewBox"] } == ["0 0 400.0 50.0", "0 0 400.0 50.0"])
    #expect(xml.nonFiniteGeometry.isEmpty, "\(xml.nonFiniteGeometry)")
  }

  /// A text's width is the sum of Arial's advance widths (Liberation Sans, which headless
  /// Chromium draws the page in on Linux): tabular digits, narrow punctuation, wider bold;
  /// ``Tone`` marks and U+200B are not shown, so they count nothing.
  @Test func textWidthSumsArialsAdvanceWidths() {
    // 12 digits × 0.557 em, 13 narrow characters (. , [ ] · and spaces) × 0.278, "exact" 2.392.
    let cell = "0.87 [0.78, 0.96] · exact 0.81"
    #expect(HTMLDocument.textWidth(cell, bold: false) == Double(12 * 557 + 13 * 278 + 2_392) / 1000)
    #expect(HTMLDocument.textWidth("1,921", bold: true) == HTMLDocument.textWidth("1,921", bold: false))
    #expect(HTMLDocument.textWidth("power", bold: true) > HTMLDocument.textWidth("power", bold: false))
    #expect(HTMLDocument.textWidth("a,\u{200B}b", bold: false) == HTMLDocument.textWidth("a,b", bold: false))
    let toned = "\(Tone.good.rawValue)wins\(Tone.end)"
    #expect(HTMLDocument.textWidth(toned, bold: false) == HTMLDocument.textWidth("wins", bold: false))
    #expect(HTMLDocument.textWidth("漢", bold: false) == 1, "an unknown character counts a whole em")
  }

  /// The width below which a table becomes cards, pinned for `power --baseline 0.1 --mde 0.02`'s
  /// power table: headless Chromium draws it 226.3 px wide (its min-content width); the estimate
  /// must not be below that (the table would scroll sideways) nor 15 % above it (cards where the
  /// table fits; 8 px a character said 258).
  @Test func neededWidthIsTheRenderedWidthWithASmallMargin() {
    let rows = [
      ["961", "28.8%"], ["1,921", "50.8%"], ["2,881", "68.0%"], ["3,841", "80.0%"], ["5,762", "92.9%"], ["7,682", "97.7%"],
      ["11,523", "99.8%"],
    ]
    let needed = HTMLDocument.neededWidth(["users per treatment arm", "power"], rows, wrap: [])
    #expect(needed == 249)
    #expect(Double(needed) >= 226.3 && Double(needed) <= 226.3 * 1.15)
  }

  /// A wrapping column needs its widest word (words end at spaces and U+200B), and at least
  /// the `7em` of `td.wrap`; its header does not wrap.
  @Test func aWrappingColumnNeedsItsWidestWord() {
    let levels = "after5,\u{200B}required,\u{200B}yearly"
    let wide = HTMLDocument.neededWidth(["rank", "levels"], [["1", levels]], wrap: [])
    let wrapped = HTMLDocument.neededWidth(["rank", "levels"], [["1", levels]], wrap: [1])
    #expect(wrapped < wide)
    // 2 + "rank" in bold (2.115 em × 13.5 px × 1.1 = 31.4 px) + 16 + the 7em minimum (94.5 px) + 16.
    #expect(wrapped == 160)
    let long = HTMLDocument.neededWidth(["rank", "levels"], [["1", "a-rather-long-level-name,\u{200B}x"]], wrap: [1])
    #expect(long > wrapped)
  }

  /// The page loads nothing: no script, no external URL.
  @Test func thePageIsSelfContained() {
    let html = HTMLDocument(title: "t").html
    #expect(!html.contains("<script"))
    #expect(!html.contains("src="))
    #expect(!html.contains("href="))
    #expect(!html.contains("url(http"))
  }
}
