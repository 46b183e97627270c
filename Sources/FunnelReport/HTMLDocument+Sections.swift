extension HTMLDocument {
  /// The fewest sections that get a jump list: a page of one section needs none.
  static let jumpListMinimum = 2

  /// The most rows a table without a verdict shows unfolded on a phone (``folds(_:_:)``).
  static let foldRows = 10

  /// The side padding of the page on a phone (≤ 600 px), in CSS pixels: `main`'s, 16 px on a
  /// wider screen.
  static let phonePadding = 10

  /// Every chart text's font size on a phone, in view-box units: a chart is ``SVGCharts/width``
  /// units wide and as wide as the page's text, so on a 390 px phone each unit is
  /// `(390 − 2 · phonePadding) / 400 = 0.925` px and a text of 13 units is 12.0 px (the 11-unit
  /// tick labels of a laptop would be 10.2 px). ``phoneChartTextPixels(viewport:)`` is the size a reader sees.
  static let phoneChartFontSize = 13

  /// The size in CSS pixels of the smallest chart text on a phone `viewport` px wide.
  static func phoneChartTextPixels(viewport: Double) -> Double {
    Double(phoneChartFontSize) * (viewport - 2 * Double(phonePadding)) / SVGCharts.width
  }

  /// The id of a section headed `text`: `sec-` and its first ASCII letters and digits, lower
  /// case, words joined by `-`, up to the first word that would pass ``sectionIDLength`` characters;
  /// `-2`, `-3`, … when `taken` holds it. The same headings give the same ids.
  /// - Complexity: O(*n*) in the heading's characters, and the number of `taken` ids that clash.
  static func sectionID(_ text: String, taken: Set<String>) -> String {
    var words: [String] = []
    var word = ""
    for c in text.lowercased().unicodeScalars {
      if c.isASCII, c.properties.isAlphabetic || ("0"..."9").contains(c) {
        word.unicodeScalars.append(c)
      } else if !word.isEmpty {
        words.append(word)
        word = ""
      }
    }
    if !word.isEmpty { words.append(word) }
    var slug = words.first.map { String($0.prefix(sectionIDLength)) } ?? ""
    for w in words.dropFirst() {
      guard slug.count + 1 + w.count <= sectionIDLength else { break }
      slug += "-" + w
    }
    let base = "sec-" + (slug.isEmpty ? "section" : slug)
    guard taken.contains(base) else { return base }
    return (2...).lazy.map { "\(base)-\($0)" }.first { !taken.contains($0) } ?? base
  }

  /// The most characters of a heading's words in its id.
  static let sectionIDLength = 32

  /// The phone's jump list: a `<nav>` named "Sections" with a link to every `<h2>` of the page,
  /// in order; empty with fewer than ``jumpListMinimum`` sections. The stylesheet shows it only
  /// on a narrow screen (a laptop sees the whole page's outline at a glance).
  var jumpList: String {
    guard sections.count >= Self.jumpListMinimum else { return "" }
    let links = sections.map { "<li><a href=\"#\($0.id)\">\(Self.escape(Self.jumpText($0.text)))</a></li>" }.joined()
    return "<nav class=\"jump\" aria-label=\"Sections\"><ul>\(links)</ul></nav>\n"
  }

  /// A heading as a link of the jump list: its words up to the first ` (`, `, `, `; ` or `: `
  /// (`Difference with control: naive (biased …)` → `Difference with control`), so the list stays
  /// short; the whole heading when that leaves fewer than 8 characters.
  static func jumpText(_ heading: String) -> String {
    let cut = [" (", ", ", "; ", ": "].compactMap { heading.range(of: $0)?.lowerBound }.min() ?? heading.endIndex
    let short = heading[..<cut]
    return short.count >= 8 ? String(short) : heading
  }

  /// ``body`` with the ``jumpList`` after the decision (the answer stays first on the screen),
  /// else after the `<h1>`, else at the start.
  var bodyWithJumpList: String {
    let nav = jumpList
    guard !nav.isEmpty else { return body }
    let after: String.Index
    if let decision = body.range(of: "<section class=\"decision"),
      let end = body.range(of: "</section>\n", range: decision.upperBound..<body.endIndex)
    {
      after = end.upperBound
    } else if let h1 = body.range(of: "</h1>\n") {
      after = h1.upperBound
    } else {
      after = body.startIndex
    }
    return String(body[..<after]) + nav + String(body[after...])
  }

  /// Starts a part of the page that folds on a phone (``endFold()`` ends it): a long section's
  /// charts, one per day, arm or metric. Folds do not nest (a second call ends the first).
  package mutating func beginFold(_ summary: String) {
    if openFold != nil { endFold() }
    openFold = (body.utf8.count, summary)
  }

  /// Folds the rest of a section's charts on a phone, the first staying in sight, when at least
  /// ``foldCharts`` of them follow it: `names` are the charts that follow (one a `noun`), and
  /// the fold's summary names them, `3 more metrics: completion, abandonment, revenue per user`.
  /// ``endFold()`` ends the fold (before ``endCharts()``).
  package mutating func foldRest(_ names: [String], _ noun: String) {
    guard names.count >= Self.foldCharts else { return }
    beginFold("\(names.count) more \(noun)s: \(names.joined(separator: ", "))")
  }

  /// The fewest charts after a section's first that fold on a phone.
  static let foldCharts = 2

  /// Ends the part ``beginFold(_:)`` started: a `<details class="fold">` with its summary around
  /// it, unless it holds a verdict or the decision (`data-role`), which are never folded away,
  /// or nothing.
  package mutating func endFold() {
    guard let fold = openFold else { return }
    openFold = nil
    let start = body.utf8.index(body.startIndex, offsetBy: fold.start)
    let part = body[start...]
    guard !part.isEmpty, !part.contains("data-role=\"") else { return }
    body.insert(contentsOf: "<details class=\"fold\">\n<summary>\(Self.escape(fold.summary))</summary>\n", at: start)
    body += "</details>\n"
  }

  /// Whether a table folds (`<details>`) on a phone: more than ``foldRows`` rows (a day or a
  /// metric a row) and no verdict column (``verdictHeaders``: a verdict is never folded away).
  static func folds(_ headers: [String], _ rows: [[String]]) -> Bool {
    rows.count > foldRows && !headers.contains { verdictHeaders.contains($0) }
  }

  /// The line a folded table shows: `Show the 14 rows` under its own heading, else its name
  /// (`name`: its caption, or the heading above it) and its rows, `Shares by day · 14 rows`.
  static func foldSummary(_ name: String?, rows: Int) -> String {
    guard let name else { return "Show the \(Vocabulary.plural(rows, "row"))" }
    return "\(name) · \(Vocabulary.plural(rows, "row"))"
  }

  /// The jump list's and the folds' rules: the jump list on a narrow screen only, as a row of
  /// links big enough for a finger; a fold's content shown and its summary hidden on a wide
  /// screen (`::details-content`; a browser without it keeps the fold, which still opens).
  static let sectionCSS = """
    nav.jump { display: none; }
    h2 { scroll-margin-top: 8px; }
    details.fold { margin: 0.5em 0; }
    .charts > details.fold { grid-column: 1 / -1; }
    details.fold > summary { cursor: pointer; font-weight: 600; padding: 6px 0; }
    @media (max-width: 600px) {
      main { padding: 12px \(phonePadding)px; }
      nav.jump { display: block; margin: 8px 0 14px; }
      nav.jump ul { list-style: none; margin: 0; padding: 0; display: flex; flex-wrap: wrap; gap: 6px 8px; }
      nav.jump a { display: inline-block; padding: 5px 10px; border: 1px solid #cbd5e0; border-radius: 14px; color: #1f4e8c; text-decoration: none; overflow-wrap: anywhere; }
      nav.jump a:focus-visible { outline: 2px solid #1f4e8c; outline-offset: 2px; }
    }
    @media (min-width: 601px) {
      details.fold { display: contents; }
      details.fold > summary { display: none; }
      details.fold::details-content { content-visibility: visible; display: contents; }
    }
    """
}
