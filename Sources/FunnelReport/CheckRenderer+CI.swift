import FunnelLab

/// The formats of `funnellab check` that CI systems and people read beside a pull
/// request: GitHub workflow annotations, a Markdown summary for a comment, an HTML page.
/// Each opens with the outcome (how many expectations failed) before any detail.
extension CheckRenderer {
  /// The one-line outcome every format opens with, what failed first: `All 7 expectations
  /// passed.`, `2 of 9 expectations failed: id, id.`, `The exact funnel moved from its baseline
  /// (60 values in 5 variants); all 7 expectations passed.`
  package static func outcome(_ files: [File]) -> String {
    let all = files.flatMap(\.results)
    let failed = all.filter { !$0.passed }
    let baselines = files.compactMap(\.baseline)
    let moved = baselines.filter { !$0.comparison.passed }
    var expectations: String
    if failed.isEmpty {
      expectations = all.isEmpty ? "" : all.count == 1 ? "the expectation passed" : "all \(all.count) expectations passed"
    } else {
      let names = failed.prefix(5).map(\.expectation.id).joined(separator: ", ") + (failed.count > 5 ? ", …" : "")
      expectations = "\(failed.count) of \(Vocabulary.plural(all.count, "expectation")) failed: \(names)"
    }
    guard !baselines.isEmpty else { return expectations.capitalizedFirst + (all.isEmpty ? "No expectations." : ".") }
    let values = moved.map(\.comparison.changes.count).reduce(0, +)
    let funnel =
      moved.isEmpty
      ? "the exact funnel is unchanged from its baseline"
      : "the exact funnel moved from its baseline (\(Vocabulary.plural(values, "value")) beyond the tolerance)"
    let parts = (failed.isEmpty && !moved.isEmpty) ? [funnel, expectations] : [expectations, funnel]
    return parts.filter { !$0.isEmpty }.joined(separator: "; ").capitalizedFirst + "."
  }

  // MARK: - GitHub annotations

  /// GitHub Actions workflow commands: one `::error file=…,line=…,title=…::` per failed
  /// expectation at its line in the spec (the file without a line when it is unknown), a
  /// plain `✓ id: statement` line per passed one (annotations are for what needs a look),
  /// then the outcome.
  package static func github(_ files: [File]) -> String {
    var out = ""
    for file in files {
      for (i, r) in file.results.enumerated() {
        guard !r.passed else {
          out += "✓ \("\(r.expectation.id): \(r.statement)".escapingControlCharacters)\n"
          continue
        }
        var properties = "file=\(property(file.path))"
        if let line = file.line(i) { properties += ",line=\(line)" }
        properties += ",title=\(property("funnellab check: " + r.expectation.id))"
        let message = r.statement + "\n✗ " + (r.explanation ?? r.detail)
        out += "::error \(properties)::\(data(message))\n"
      }
      if let baseline = file.baseline, !baseline.comparison.passed {
        let properties = "file=\(property(file.path)),title=\(property("funnellab check: baseline " + baseline.baseline))"
        out += "::error \(properties)::\(data(SnapshotRenderer.table(baseline)))\n"
      }
    }
    return out + outcome(files).escapingControlCharacters + "\n"
  }

  /// A workflow command's message: `%`, CR and LF percent-encoded, other control
  /// characters shown escaped (as in every message), `##[` and `##vso[` split (`#\#[`).
  static func data(_ s: String) -> String {
    var out = ""
    for c in s.unicodeScalars {
      switch c {
      case "%": out += "%25"
      case "\r": out += "%0D"
      case "\n": out += "%0A"
      default: out += c.isEscapedInMessages ? String(c).escapingControlCharacters : String(c)
      }
    }
    return UntrustedText.escape(out.unicodeScalars, controls: false, lineStarts: false)
  }

  /// A workflow command's property value: as ``data(_:)``, and `:` and `,` encoded.
  static func property(_ s: String) -> String {
    data(s).replacingOccurrences(of: ":", with: "%3A").replacingOccurrences(of: ",", with: "%2C")
  }

  // MARK: - Markdown

  /// A Markdown summary for a pull-request comment or `$GITHUB_STEP_SUMMARY`: the outcome
  /// as a heading, the failures with their reasons, then every result in a table per file.
  package static func markdown(_ files: [File]) -> String {
    let md = RunMarkdownRenderer.self
    var out = "### \(files.allSatisfy(\.passed) ? "✅" : "❌") funnellab check: \(md.cell(outcome(files)))\n\n"
    var listed = false
    for file in files {
      for (i, r) in file.results.enumerated() where !r.passed {
        let at = file.line(i).map { "\(file.path):\($0)" } ?? file.path
        out += "- **\(md.cell(r.expectation.id))** (\(md.code(at))): \(md.cell(r.explanation ?? r.detail))\n"
        listed = true
      }
    }
    if listed { out += "\n" }
    for file in files {
      out += "#### \(md.cell(file.experiment)) (\(md.code(file.path)))\n\n"
      out += md.header(["result", "expectation", "measured", "α", "basis"], right: [2, 3])
      for r in file.results {
        out += md.row([
          r.passed ? "pass" : "FAIL", "\(r.expectation.id): \(r.statement)", r.measuredText, r.alpha.map(format) ?? "—",
          r.basisDescription,
        ])
      }
      if file.results.isEmpty { out += md.row(["—", "(no expectations)", "", "", ""]) }
      out += "\n"
      if let baseline = file.baseline { out += SnapshotRenderer.markdown(baseline, heading: "#####") + "\n" }
    }
    return out
  }

  // MARK: - HTML

  /// One self-contained page: the outcome as the title, then one card per expectation
  /// (failures first), each with its statement, measurement and reason, readable on a phone.
  package static func html(_ files: [File]) -> String {
    var page = HTMLDocument(title: "funnellab check")
    let failed = files.filter { !$0.passed }.count
    page.heading(1, "funnellab check")
    page.decision(
      outcome(files), lines: [failed == 0 ? "Every assumption written in the specs holds." : "What failed is listed first."],
      alert: failed > 0)
    for file in files {
      page.heading(2, "\(file.experiment) (\(file.path))")
      if file.results.isEmpty { page.paragraph("No expectations.", cssClass: "note") }
      let ordered = file.results.indices.sorted { (file.results[$0].passed ? 1 : 0, $0) < (file.results[$1].passed ? 1 : 0, $1) }
      if let baseline = file.baseline, !baseline.comparison.passed { page.append(card(baseline)) }
      for i in ordered { page.append(card(file.results[i], line: file.line(i))) }
      if let baseline = file.baseline, baseline.comparison.passed { page.append(card(baseline)) }
    }
    page.paragraph(
      "Exact results come from the exact engine (no sampling noise, the same on every run); simulated ones are seeded by the spec. "
        + "α is the significance level a result used.", cssClass: "note")
    return page.html
  }

  /// A baseline comparison's card: the outcome, the moved metrics, where the change starts.
  static func card(_ b: SnapshotRenderer.Report) -> String {
    let e = HTMLDocument.escape
    let passed = b.comparison.passed
    var out = "<section class=\"card \(passed ? "pass" : "fail")\">"
    out += "<p class=\"verdict\"><span class=\"badge\">\(passed ? "PASS" : "FAIL")</span> <strong>baseline</strong></p>\n"
    out += "<p\(passed ? "" : " class=\"reason\"")>\(e(SnapshotRenderer.outcome(b)))</p>\n"
    for line in SnapshotRenderer.origins(b.comparison) { out += "<p>\(e(line))</p>\n" }
    let changes = b.comparison.changes
    guard !changes.isEmpty else { return out + "</section>\n" }
    out += "<p class=\"note\">The primary metric first, then the largest relative moves:</p>\n<ul class=\"note\">"
    for x in b.comparison.rankedChanges.prefix(SnapshotRenderer.shownChanges) {
      let text = "\(x.variant) \(x.metric.rawValue): \(SnapshotRenderer.f(x.baseline)) → \(SnapshotRenderer.f(x.current))"
      out += "<li>\(e(text)) (\(e(SnapshotRenderer.change(x.baseline, x.current))))</li>"
    }
    out += "</ul>\n"
    if changes.count > SnapshotRenderer.shownChanges {
      out += "<p class=\"note\">… and \(changes.count - SnapshotRenderer.shownChanges) more (the JSON lists every one)</p>\n"
    }
    return out + "</section>\n"
  }

  static func card(_ r: ExpectationResult, line: Int?) -> String {
    let e = HTMLDocument.escape
    var out = "<section class=\"card \(r.passed ? "pass" : "fail")\">"
    out += "<p class=\"verdict\"><span class=\"badge\">\(r.passed ? "PASS" : "FAIL")</span> <strong>\(e(r.expectation.id))</strong>"
    out += line.map { " <span class=\"note\">line \($0)</span>" } ?? ""
    out += "</p>\n<p>\(e(r.statement))</p>\n"
    if let why = r.explanation { out += "<p class=\"reason\">✗ \(e(why))</p>\n" }
    var facts = ["measured \(r.measuredText)", r.basisDescription]
    if let i = r.interval { facts.append("interval [\(format(i.lower)), \(format(i.upper))]") }
    if let alpha = r.alpha { facts.append("α \(format(alpha))") }
    out += "<p class=\"note\">\(e(facts.joined(separator: " · "))) · \(e(r.detail))</p>"
    return out + "</section>\n"
  }
}
