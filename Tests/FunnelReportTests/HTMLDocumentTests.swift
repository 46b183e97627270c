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

  /// The page loads nothing: no script, no external URL.
  @Test func thePageIsSelfContained() {
    let html = HTMLDocument(title: "t").html
    #expect(!html.contains("<script"))
    #expect(!html.contains("src="))
    #expect(!html.contains("href="))
    #expect(!html.contains("url(http"))
  }
}
