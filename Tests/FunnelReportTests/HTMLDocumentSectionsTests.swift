import Foundation
import Testing

@testable import FunnelReport

/// ``HTMLDocument``'s sections on a phone: a jump list to exactly the page's `<h2>`s after the
/// decision, long tables folded unless they hold a verdict, and chart text of at least 12 px.
@Suite struct HTMLDocumentSectionsTests {
  /// A page with a decision, sections (two of the same name, one of hostile text, one of no
  /// ASCII word), a sub-heading and tables.
  static func page() -> HTMLDocument {
    var page = HTMLDocument(title: "t")
    page.heading(1, "Report")
    page.decision("Ship b.", lines: ["b wins"])
    page.heading(2, "Arms")
    page.table(["arm", "verdict"], (0..<30).map { ["a\($0)", "wins"] })
    page.heading(3, "Detail")
    page.heading(2, "Shares by day")
    page.table(["day", "control", "b"], (1...14).map { ["\($0)", "50%", "50%"] })
    page.heading(2, "Arms")
    page.heading(2, "<b>\"x\" & 'y'</b>")
    page.heading(2, "漢字")
    page.table(["day", "users"], [["1", "10"]])
    return page
  }

  /// The jump list links to every `<h2>` of the page, in order, by ids that are unique; it comes
  /// right after the decision and names its links with the headings' words.
  @Test func jumpListListsExactlyTheSections() throws {
    let html = Self.page().html
    let xml = XMLCheck(html)
    #expect(xml.wellFormed, "\(html)")
    let h2IDs = xml.elements.filter { $0.name == "h2" }.compactMap { $0.attributes["id"] }
    #expect(h2IDs.count == 5)
    #expect(Set(h2IDs).count == h2IDs.count, "\(h2IDs)")
    let navs = xml.elements.indices.filter { xml.elements[$0].name == "nav" }
    #expect(navs.count == 1)
    let links = xml.elements.indices.filter { xml.elements[$0].name == "a" }
    #expect(links.allSatisfy { xml.ancestry[$0].contains("nav") })
    #expect(links.map { xml.elements[$0].attributes["href"] } == h2IDs.map { "#" + $0 })
    #expect(xml.elements[try #require(navs.first)].attributes["aria-label"] == "Sections")
    let decisionEnd = try #require(html.range(of: "</section>"))
    let nav = try #require(html.range(of: "<nav class=\"jump\""))
    #expect(nav.lowerBound == html.index(after: decisionEnd.upperBound), "the jump list follows the decision")
    #expect(html.contains(">&lt;b&gt;&quot;x&quot; &amp; &apos;y&apos;&lt;/b&gt;</a>"))
    #expect(h2IDs == ["sec-arms", "sec-shares-by-day", "sec-arms-2", "sec-b-x-y-b", "sec-section"])
  }

  /// A page of one section has no jump list, and the same page gives the same bytes.
  @Test func oneSectionHasNoJumpListAndPagesAreDeterministic() {
    var page = HTMLDocument(title: "t")
    page.heading(2, "Only")
    #expect(!page.html.contains("<nav"))
    #expect(Self.page().html == Self.page().html)
  }

  /// A section's id keeps a few words of its heading, lower case, within the length limit.
  @Test(arguments: [
    ("Funnels side by side: control and each variant", "sec-funnels-side-by-side-control-and"),
    ("Over time", "sec-over-time"), ("", "sec-section"),
    ("Supercalifragilisticexpialidocious-and-even-longer-words", "sec-supercalifragilisticexpialidocio"),
  ])
  func sectionIDsAreShortWords(heading: String, id: String) {
    let made = HTMLDocument.sectionID(heading, taken: [])
    #expect(made == id)
    #expect(made.count <= 4 + HTMLDocument.sectionIDLength + 4)
  }

  /// A long table folds unless a column holds verdicts; no verdict and no decision is ever
  /// inside a `<details>`.
  @Test func verdictsAndTheDecisionAreNeverFolded() {
    let xml = XMLCheck(Self.page().html)
    let folded = xml.elements.indices.filter { xml.ancestry[$0].contains("details") }
    #expect(!folded.isEmpty, "the 14-day table folds")
    #expect(folded.allSatisfy { xml.elements[$0].attributes["data-role"] == nil })
    let verdicts = xml.elements.indices.filter { xml.elements[$0].attributes["data-role"] != nil }
    #expect(verdicts.count == 31, "30 verdict cells and the decision")
    #expect(xml.text.contains("Show the 14 rows"), "under its own heading the summary does not repeat it")
    #expect(!HTMLDocument.folds(["day", "p"], Array(repeating: ["1", "0.5"], count: 40)))
    #expect(!HTMLDocument.folds(["day", "share"], Array(repeating: ["1", "0.5"], count: HTMLDocument.foldRows)))
    #expect(HTMLDocument.folds(["day", "share"], Array(repeating: ["1", "0.5"], count: HTMLDocument.foldRows + 1)))
  }

  /// On a 390 px phone the smallest chart text is at least 12 px, and every chart class the
  /// stylesheet gives a font size is set to the phone's size in the phone's rules.
  @Test func chartTextIsAtLeast12PixelsOnAPhone() throws {
    #expect(HTMLDocument.phoneChartTextPixels(viewport: 390) >= 12)
    let css = HTMLDocument.css
    let phone = try #require(css.range(of: "@media (max-width: 600px)"))
    let phoneRule = try #require(
      css[phone.upperBound...].split(separator: "\n").first { $0.contains("font-size: \(HTMLDocument.phoneChartFontSize)px") })
    let selectors = Set(phoneRule.prefix { $0 != "{" }.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) })
    let sized = css[..<phone.lowerBound].split(separator: "\n").filter { $0.hasPrefix("svg") && $0.contains("font-size") }
      .flatMap { $0.prefix { $0 != "{" }.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } }
    #expect(!sized.isEmpty)
    #expect(sized.allSatisfy { selectors.contains($0) }, "\(sized) not all in \(selectors)")
  }
}
