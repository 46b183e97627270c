import FunnelLab

/// A self-contained HTML page under construction: inline CSS, inline SVG charts,
/// no script and no external URL. The page is well-formed XML (void elements are
/// self-closed, only the five XML entities and numeric character references are used), so tests can parse it.
/// Coordinates and numbers go through ``NumberText``: the same report gives the
/// same bytes.
package struct HTMLDocument {
  /// The page's content so far, without the `<html>`, `<head>` and `<style>` that ``html`` wraps around it.
  package internal(set) var body = ""
  var title: String
  private var nextID = 0
  private var nextTable = 0
  /// The labels given to tables so far: a repeated one gets its table's number (a landmark's
  /// name is unique).
  private var tableLabels: Set<String> = []
  /// One container query per table: the width below which that table becomes cards.
  private var tableStyles = ""
  /// The page's sections so far: each `<h2>`'s id and text, in order (the phone's jump list).
  package private(set) var sections: [(id: String, text: String)] = []
  /// The text of the last heading written: the name of a folded table without a caption.
  private var lastHeading: String?
  /// Where the open fold (``beginFold(_:)``) starts in ``body`` (UTF-8 offset), and its summary.
  var openFold: (start: Int, summary: String)?

  /// An empty page; `title` becomes its `<title>` (escaped), not a heading: add one with ``heading(_:_:)``.
  package init(title: String) { self.title = title }

  /// `text` with `&`, `<`, `>`, `"` and `'` escaped, and any ``Tone`` mark removed (``toned(_:)`` colours them).
  /// Text from input stays text for every reader of the page's source (``UntrustedText``): a `:`
  /// that starts a `::` at the start or after white space is `&#58;`, the second `#` of `##[` and
  /// `##vso[` is `&#35;` (a browser shows both as they were; a CI runner reading the file's lines
  /// sees no workflow command), and control characters but tab and line feed are shown as in
  /// messages (`\u{1B}`, `\r`: XML 1.0 allows no other, even as a reference).
  package static func escape(_ text: String) -> String {
    let s = Array(text.unicodeScalars.filter { !Tone.isMark(Character($0)) })
    var out = ""
    for i in s.indices {
      let c = s[i]
      switch c {
      case "&": out += "&amp;"
      case "<": out += "&lt;"
      case ">": out += "&gt;"
      case "\"": out += "&quot;"
      case "'": out += "&apos;"
      case "\n", "\t": out.unicodeScalars.append(c)
      case _ where c.isEscapedInMessages: out += UntrustedText.shown(c)
      case _ where UntrustedText.startsLineCommand(s, at: i): out += "&#58;"
      case _ where UntrustedText.splitsCommand(s, at: i): out += "&#35;"
      default: out.unicodeScalars.append(c)
      }
    }
    return out
  }

  /// A coordinate with one decimal.
  static func n(_ value: Double) -> String { NumberText.fixed(value, 1) }

  /// Appends markup as it is, unescaped: the caller keeps the page well-formed.
  package mutating func append(_ html: String) { body += html }

  /// Appends `<h level>` with `text` escaped; `level` is not checked (1 to 6 make valid HTML).
  /// A `<h2>` starts a section: it gets an id from its words (``sectionID(_:taken:)``) and a
  /// link in the page's jump list (``jumpList``).
  package mutating func heading(_ level: Int, _ text: String) {
    lastHeading = text
    guard level == 2 else { return body += "<h\(level)>\(Self.escape(text))</h\(level)>\n" }
    let id = Self.sectionID(text, taken: Set(sections.map(\.id)))
    sections.append((id, text))
    body += "<h2 id=\"\(id)\">\(Self.escape(text))</h2>\n"
  }

  /// Appends a `<p>` with `text` escaped; `cssClass` becomes its `class` (the stylesheet greys out `"note"`).
  package mutating func paragraph(_ text: String, cssClass: String? = nil) {
    body += "<p\(cssClass.map { " class=\"\($0)\"" } ?? "")>\(Self.escape(text))</p>\n"
  }

  /// The decision, first on the page: `headline` in bold (`data-role="decision"`: what was
  /// decided, inside the first screen at every width), then `lines` (one per arm). ``Tone`` marks in them become coloured spans (``toned(_:)``). An
  /// `alert` (a sample ratio mismatch, a broken guardrail, money against the decision) is a
  /// banner: a warning border and background.
  package mutating func decision(_ headline: String, lines: [String] = [], alert: Bool = false) {
    body += "<section class=\"decision\(alert ? " alert" : "")\">\n"
    body += "<p class=\"headline\" data-role=\"decision\">\(Self.toned(headline))</p>\n"
    if !lines.isEmpty {
      body += "<ul>\n" + lines.map { "<li>\(Self.toned($0))</li>\n" }.joined() + "</ul>\n"
    }
    body += "</section>\n"
  }

  /// Adds `sentence` as a second headline to the decision section just written (the answer to a
  /// further question the command was asked, e.g. the non-inferiority result of `analyze --margin`);
  /// a paragraph of its own when the page does not end with a section.
  package mutating func addToDecision(_ sentence: String) {
    let end = "</section>\n"
    guard body.hasSuffix(end) else { return body += "<p class=\"headline\">\(Self.toned(sentence))</p>\n" }
    body.removeLast(end.count)
    body += "<p class=\"headline\">\(Self.toned(sentence))</p>\n" + end
  }

  /// How the numbers were made, at the end of the page and folded (`<details>`): the answer
  /// comes first, the methods last.
  package mutating func methods(_ paragraphs: [String]) {
    guard !paragraphs.isEmpty else { return }
    body += "<details class=\"methods\">\n<summary>Methods</summary>\n"
    for p in paragraphs { body += "<p class=\"note\">\(Self.escape(p))</p>\n" }
    body += "</details>\n"
  }

  /// `text` escaped, its ``Tone`` marks as `<span class="tone-good|tone-bad|tone-warning">`.
  static func toned(_ text: String) -> String {
    var out = ""
    var run = ""
    for c in text {
      if c == Tone.end {
        out += escape(run) + "</span>"
        run = ""
      } else if let tone = Tone(rawValue: c) {
        out += escape(run) + "<span class=\"tone-\(tone)\">"
        run = ""
      } else {
        run.append(c)
      }
    }
    return out + escape(run)
  }

  /// The headers whose cells are a verdict, a decision or a p-value: the cells a reader must
  /// never lose (`data-role="verdict"`; at phone width every one stays on screen).
  static let verdictHeaders: Set<String> = [
    "verdict", "decision", "status", "p", "p-value", "adj. p", "adjusted", "adjusted p", "Holm", "BH", "result", "p always-valid",
    "p fixed", "p mSPRT", "CI covers truth", "covers", "fitted p", "P(beat)", Vocabulary.expectedLoss, "non-inferiority p",
    "non-inferior", "superiority p", "better by the margin",
  ]

  /// A table; `right` are the indices of right-aligned (numeric) columns, `wrap` of text
  /// columns whose cells may break into lines (a long verdict) instead of widening the table.
  /// Each cell carries its column's header (`data-label`): when its box is narrower than the
  /// table needs (``neededWidth(_:_:wrap:)``, the table's own width, not one breakpoint for
  /// the page), the table becomes cards, one per row, each cell on a line of its own as
  /// `header: value`, so no verdict is ever out of sight. Cells under a ``verdictHeaders``
  /// header carry `data-role="verdict"`. The box is a labelled region a keyboard can focus.
  /// `verdicts: false` marks no cell as a verdict (a log of earlier days' decisions, which
  /// may fold). A long table with no verdict (``folds(_:_:)``) is folded on a phone in a `<details>` whose
  /// summary names it (its caption, else the heading above it) and counts its rows.
  package mutating func table(
    _ headers: [String], _ rows: [[String]], right: Set<Int> = [], wrap: Set<Int> = [], caption: String? = nil,
    verdicts: Bool = true
  ) {
    nextTable += 1
    let id = "t\(nextTable)"
    let width = Self.neededWidth(headers, rows, wrap: wrap)
    tableStyles += "#\(id) { container: \(id) / inline-size; }\n@container \(id) (max-width: \(width)px) { \(Self.cardRules) }\n"
    var name = caption ?? "Table \(nextTable)" + (headers.first.map { ": \($0)" } ?? "")
    if tableLabels.contains(name) { name += " (table \(nextTable))" }
    tableLabels.insert(name)
    let label = Self.escape(name)
    let folds = openFold == nil && Self.folds(verdicts ? headers : [], rows)
    if folds {
      let underHeading = body.hasSuffix("</h2>\n") || body.hasSuffix("</h3>\n")
      let summary = Self.foldSummary(caption ?? (underHeading ? nil : lastHeading ?? "Table \(nextTable)"), rows: rows.count)
      body += "<details class=\"fold\">\n<summary>\(Self.escape(summary))</summary>\n"
    }
    body += "<div class=\"scroll\" id=\"\(id)\" role=\"region\" tabindex=\"0\" aria-label=\"\(label)\"><table>"
    if let caption { body += "<caption>\(Self.escape(caption))</caption>" }
    body += "<thead><tr>"
    for (i, h) in headers.enumerated() { body += "<th scope=\"col\"\(right.contains(i) ? " class=\"num\"" : "")>\(Self.escape(h))</th>" }
    body += "</tr></thead><tbody>\n"
    for row in rows {
      body += "<tr>"
      for (i, cell) in row.enumerated() {
        if i == 0 {
          body += "<th scope=\"row\">\(Self.escape(cell))</th>"
        } else {
          let header = headers.indices.contains(i) ? headers[i] : ""
          let classes = (right.contains(i) ? ["num"] : []) + (wrap.contains(i) ? ["wrap"] : [])
          body += "<td\(classes.isEmpty ? "" : " class=\"\(classes.joined(separator: " "))\"") data-label=\"\(Self.escape(header))\""
          body += "\(verdicts && Self.verdictHeaders.contains(header) ? " data-role=\"verdict\"" : "")>\(Self.escape(cell))</td>"
        }
      }
      body += "</tr>\n"
    }
    body += "</tbody></table></div>\n"
    if folds { body += "</details>\n" }
  }

  /// The width in CSS pixels below which a table would overflow its box: per column, its
  /// widest text (the header and the first column are bold, `<th>`; a wrapping column's cell
  /// counts its widest word, and the column is at least the `7em` of `td.wrap`) plus 16 px of
  /// padding (`th, td { padding: 3px 8px }`), the text at ``tableFontSize`` px:
  ///
  /// ```
  /// needed = 2 + Σ_columns (max(1.10 · 13.5 · widest text in em, 7 · 13.5 if wrapping) + 16)
  /// ```
  ///
  /// ``textWidth(_:bold:)`` is Arial's (Liberation Sans'); the factor ``textWidthMargin`` leaves
  /// room for a wider system font (San Francisco, Segoe UI, Roboto). Measured in headless
  /// Chromium, this is 5 to 10 % above the table's real width (`analyze` of
  /// `klick-results.csv`: 1,066 px, estimated 1,135): a table becomes cards a little early,
  /// never after it has started to scroll sideways.
  /// - Complexity: O(*n*) in the characters of the table.
  static func neededWidth(_ headers: [String], _ rows: [[String]], wrap: Set<Int>) -> Int {
    let columns = max(headers.count, rows.map(\.count).max() ?? 0)
    var total = 2.0
    for i in 0..<columns {
      var widest = headers.indices.contains(i) ? textWidth(headers[i], bold: true) : 0
      for row in rows where row.indices.contains(i) {
        let cell = row[i]
        let width =
          if i == 0 {
            textWidth(cell, bold: true)
          } else if wrap.contains(i) {
            widestWord(cell)
          } else {
            textWidth(cell, bold: false)
          }
        widest = max(widest, width)
      }
      let least = wrap.contains(i) ? wrapMinimum * tableFontSize : 0
      total += max(widest * tableFontSize * textWidthMargin, least) + cellPadding
    }
    // A width past Int's range (a cell of ~10¹⁷ characters) is no width a table can have: cards.
    return Int(rounding: total, .up) ?? Int.max
  }

  /// The font size of a table's text in CSS pixels: `0.9em` of the page's 15 px.
  static let tableFontSize = 13.5
  /// The horizontal padding of a table cell in CSS pixels: 8 px each side.
  static let cellPadding = 16.0
  /// The narrowest a wrapping cell's text gets, in ems: `td.wrap { min-width: 7em }`.
  static let wrapMinimum = 7.0
  /// How much wider than Arial the text of a table may be set (a system font that runs wider)
  /// before the table overflows without having become cards.
  static let textWidthMargin = 1.10

  /// A table as cards: one card a row, each cell `header: value` on a line of its own.
  static let cardRules =
    "table, tbody, tr, th, td, caption { display: block; } "
    + "thead { position: absolute; width: 1px; height: 1px; overflow: hidden; clip-path: inset(50%); } "
    + "tr { border: 1px solid #cbd5e0; border-radius: 4px; margin: 8px 0; padding: 4px 10px; } "
    + "th[scope=\"row\"] { position: static; border: 0; padding: 2px 0; white-space: normal; overflow-wrap: anywhere; } "
    + "td, td.num { border: 0; padding: 1px 0; white-space: normal; text-align: left; overflow-wrap: anywhere; } "
    + "td::before { content: attr(data-label) \": \"; color: #4a5568; } td:empty { display: none; }"

  /// An SVG chart in a figure, with a `<title>` and a `<desc>` as its text alternative.
  /// - Parameters:
  ///   - kind: a class naming the chart type (`funnel`, `forest`, …), for styling and tests.
  ///   - content: the SVG elements, in a 0…`width` × 0…`height` view box.
  package mutating func chart(kind: String, title: String, description: String, width: Double, height: Double, content: String) {
    body += "<figure class=\"chart \(kind)\">\n<figcaption>\(Self.escape(title))</figcaption>\n"
    svg(kind, title: title, description: description, width: width, height: height, content: content)
    body += "</figure>\n"
  }

  /// A chart with a row of the page to itself, drawn twice: `wide` for a laptop, `narrow` for a
  /// phone; the page shows the one that fits its width (the other is not displayed).
  package mutating func wideChart(
    kind: String, title: String, description: String, wide: (width: Double, height: Double, content: String),
    narrow: (width: Double, height: Double, content: String)
  ) {
    body += "<figure class=\"chart \(kind) wide\">\n<figcaption>\(Self.escape(title))</figcaption>\n"
    svg(kind + " view-wide", title: title, description: description, width: wide.width, height: wide.height, content: wide.content)
    svg(
      kind + " view-narrow", title: title, description: description, width: narrow.width, height: narrow.height,
      content: narrow.content)
    body += "</figure>\n"
  }

  /// One `<svg>` with its title and description.
  private mutating func svg(_ classes: String, title: String, description: String, width: Double, height: Double, content: String) {
    nextID += 1
    let id = "chart\(nextID)"
    body += "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"\(classes)\" viewBox=\"0 0 \(Self.n(width)) \(Self.n(height))\""
    body += " role=\"img\" aria-labelledby=\"\(id)-title \(id)-desc\">\n"
    body += "<title id=\"\(id)-title\">\(Self.escape(title))</title>\n"
    body += "<desc id=\"\(id)-desc\">\(Self.escape(description))</desc>\n"
    body += Self.patterns
    body += content
    body += "</svg>\n"
  }

  /// Fill patterns, so that series differ by more than colour.
  static let patterns = """
    <defs>
    <pattern id="p0" width="6" height="6" patternUnits="userSpaceOnUse"><rect width="6" height="6" fill="#1f4e8c"/></pattern>
    <pattern id="p1" width="6" height="6" patternUnits="userSpaceOnUse"><rect width="6" height="6" fill="#ffffff"/><path d="M0 6L6 0" stroke="#8a3b00" stroke-width="2"/></pattern>
    <pattern id="p2" width="6" height="6" patternUnits="userSpaceOnUse"><rect width="6" height="6" fill="#ffffff"/><circle cx="3" cy="3" r="1.6" fill="#0b5d3b"/></pattern>
    <pattern id="p3" width="6" height="6" patternUnits="userSpaceOnUse"><rect width="6" height="6" fill="#ffffff"/><path d="M0 3H6" stroke="#5b2a86" stroke-width="2"/></pattern>
    </defs>

    """

  /// Starts a responsive grid of charts: two columns on a laptop, one on a phone.
  package mutating func beginCharts() { body += "<div class=\"charts\">\n" }

  /// Closes the grid opened by ``beginCharts()``.
  package mutating func endCharts() { body += "</div>\n" }

  /// The whole page.
  package var html: String {
    """
    <!DOCTYPE html>
    <html lang="en">
    <head>
    <meta charset="utf-8"/>
    <meta name="viewport" content="width=device-width, initial-scale=1"/>
    <title>\(Self.escape(title))</title>
    <style>
    \(Self.css)
    \(Self.sectionCSS)
    \(tableStyles)</style>
    </head>
    <body>
    <main>
    \(bodyWithJumpList)</main>
    </body>
    </html>

    """
  }

  static let css = """
    body { margin: 0; font: 15px/1.45 -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; color: #1a202c; background: #ffffff; }
    main { max-width: 1200px; margin: 0 auto; padding: 16px; }
    main > p { max-width: 880px; }
    h1 { font-size: 1.5em; margin: 0.4em 0; } h2 { font-size: 1.25em; margin-top: 1.6em; border-bottom: 1px solid #cbd5e0; } h3 { font-size: 1.05em; }
    .note { color: #4a5568; }
    .warning { color: #9b2c2c; font-weight: 600; border-left: 4px solid #9b2c2c; padding-left: 8px; }
    .scroll { overflow-x: auto; background: linear-gradient(to right, #ffffff 30%, rgba(255,255,255,0)) left / 40px 100% no-repeat local, linear-gradient(to left, #ffffff 30%, rgba(255,255,255,0)) right / 40px 100% no-repeat local, radial-gradient(farthest-side at 0 50%, rgba(0,0,0,0.18), rgba(0,0,0,0)) left / 14px 100% no-repeat scroll, radial-gradient(farthest-side at 100% 50%, rgba(0,0,0,0.18), rgba(0,0,0,0)) right / 14px 100% no-repeat scroll; }
    .scroll:focus-visible { outline: 2px solid #1f4e8c; outline-offset: 2px; }
    h1, h2, h3, p, li, figcaption, caption { overflow-wrap: anywhere; }
    .scroll th[scope="row"], .scroll thead th:first-child { position: sticky; left: 0; background: #ffffff; z-index: 1; }
    table { border-collapse: collapse; margin: 0.5em 0; font-size: 0.9em; font-variant-numeric: tabular-nums; }
    th, td { padding: 3px 8px; border-bottom: 1px solid #e2e8f0; text-align: left; white-space: nowrap; }
    td.wrap { white-space: normal; min-width: 7em; }
    .num { text-align: right; }
    caption { text-align: left; font-weight: 600; padding: 4px 0; }
    .charts { display: grid; grid-template-columns: repeat(auto-fill, minmax(340px, 1fr)); gap: 8px 28px; }
    figure { margin: 0.8em 0; min-width: 0; }
    figure.wide { grid-column: 1 / -1; max-width: 900px; }
    svg.view-narrow { display: none; }
    figcaption { font-weight: 600; font-size: 0.95em; margin-bottom: 4px; }
    svg { width: 100%; height: auto; display: block; font-family: inherit; }
    svg text { font-size: 13px; fill: #1a202c; }
    svg .label { font-weight: 600; }
    svg .small { font-size: 12px; }
    svg .muted { fill: #4a5568; }
    svg .drop { fill: #9b2c2c; }
    svg .bar { fill: #1f4e8c; }
    svg .bar.outcome { fill: #276749; }
    svg .bar.abandoned { fill: #9b2c2c; }
    svg .jump { fill: #5b2a86; }
    svg .tick { font-size: 11px; fill: #4a5568; }
    svg .track { fill: #edf2f7; }
    svg .axis { stroke: #4a5568; stroke-width: 1; }
    svg .zero { stroke: #1a202c; stroke-width: 1; stroke-dasharray: 4 3; }
    svg .ci { stroke: #1a202c; stroke-width: 2; }
    svg .point { fill: #1a202c; stroke: #1a202c; stroke-width: 1.5; }
    svg .point.open { fill: #ffffff; }
    svg .point.good { fill: #0072b2; stroke: #0072b2; }
    svg .point.bad { fill: #d55e00; stroke: #d55e00; }
    svg .margin { stroke: #d55e00; stroke-width: 2; stroke-dasharray: 2 2; }
    svg .whisker { stroke: #c05621; stroke-width: 2; }
    svg .reference { fill: none; stroke: #5b2a86; stroke-width: 2; }
    svg .marker { stroke: #ffffff; stroke-width: 1; }
    svg .leader { fill: none; stroke: #718096; stroke-width: 0.75; }
    svg .graph-edge { fill: none; stroke: #1f4e8c; stroke-opacity: 0.75; }
    svg .graph-name { font-size: 12px; font-weight: 600; }
    svg .graph-note, svg .graph-share { font-size: 10px; fill: #4a5568; }
    .card { border: 1px solid #cbd5e0; border-left-width: 6px; border-radius: 4px; padding: 4px 12px; margin: 10px 0; max-width: 880px; overflow-wrap: anywhere; }
    .card p { margin: 6px 0; }
    .card.pass { border-left-color: #276749; }
    .card.fail { border-left-color: #9b2c2c; background: #fff5f5; }
    .badge { display: inline-block; font-weight: 700; font-size: 0.85em; padding: 0 6px; border-radius: 3px; color: #ffffff; background: #276749; }
    .card.fail .badge { background: #9b2c2c; }
    .reason { color: #9b2c2c; }
    .decision { border: 1px solid #cbd5e0; border-left: 6px solid #1f4e8c; border-radius: 4px; padding: 6px 14px; margin: 10px 0 14px; max-width: 880px; background: #f7fafc; overflow-wrap: anywhere; }
    .decision .headline { font-size: 1.1em; font-weight: 700; margin: 6px 0; }
    .decision ul { margin: 4px 0 8px; padding-left: 1.2em; }
    .decision li { margin: 3px 0; }
    .decision.alert { border-left-color: #b42318; background: #fff5f5; }
    details.methods { margin: 1.6em 0 0.8em; max-width: 880px; }
    @media (max-width: 600px) {
      svg.view-wide { display: none; }
      svg.view-narrow { display: block; }
      svg text, svg .small, svg .tick, svg .graph-name, svg .graph-note, svg .graph-share { font-size: \(phoneChartFontSize)px; }
    }
    details.methods summary { cursor: pointer; font-weight: 600; }
    .tone-good { color: #1a6634; font-weight: 600; }
    .tone-bad { color: #b42318; font-weight: 600; }
    .tone-warning { color: #8a4b00; font-weight: 700; }
    """
}
