package import FunnelLab

/// Renders a ``SnapshotComparison`` (`check --baseline`, `diff`): the outcome first
/// (unchanged, or how many values moved), then each moved metric with its values before and
/// after, then where each variant's change starts (its first screen whose reach or quits moved).
package enum SnapshotRenderer {
  /// The comparison and the names of its two sides.
  package struct Report: Sendable {
    /// The comparison.
    package var comparison: SnapshotComparison
    /// The baseline's name (a file, or the old spec).
    package var baseline: String
    /// The current side's name (the spec checked, or the new spec).
    package var current: String

    /// A report of `comparison` between `baseline` and `current`.
    package init(comparison: SnapshotComparison, baseline: String, current: String) {
      self.comparison = comparison
      self.baseline = baseline
      self.current = current
    }
  }

  static func f(_ x: Double?) -> String { x.map(CheckRenderer.format) ?? "n/a" }

  /// The signed change `b − a`, `n/a` when either is undefined.
  static func change(_ a: Double?, _ b: Double?) -> String {
    guard let a, let b else { return "n/a" }
    let d = b - a
    return (d > 0 ? "+" : "") + CheckRenderer.format(d)
  }

  /// The tolerance in words: `1e-09 + 1e-09 × |baseline|`.
  static func tolerance(_ t: SnapshotTolerance) -> String {
    var text = "\(f(t.absolute)) + \(f(t.relative)) × |baseline|"
    if !t.perMetric.isEmpty {
      text +=
        "; " + t.perMetric.sorted { $0.key.rawValue < $1.key.rawValue }.map { "\($0.key.rawValue) \(f($0.value))" }.joined(separator: ", ")
    }
    return text
  }

  /// The one-line outcome: unchanged, or what moved.
  package static func outcome(_ r: Report) -> String {
    let c = r.comparison
    guard !c.passed else { return "Unchanged from \(r.baseline): every metric within \(tolerance(c.tolerance))." }
    var parts: [String] = []
    if !c.changes.isEmpty {
      let variants = Set(c.changes.map(\.variant)).count
      parts.append(
        "\(Vocabulary.plural(c.changes.count, "value")) moved in \(Vocabulary.plural(variants, "variant"))")
    }
    if !c.added.isEmpty { parts.append("new variant\(c.added.count == 1 ? "" : "s") \(c.added.joined(separator: ", "))") }
    if !c.removed.isEmpty { parts.append("variant\(c.removed.count == 1 ? "" : "s") \(c.removed.joined(separator: ", ")) gone") }
    return "Changed from \(r.baseline): " + parts.joined(separator: "; ") + " (tolerance \(tolerance(c.tolerance)))."
  }

  /// Where each changed variant's change comes from, in words: the screen whose quits moved
  /// most (a changed quit, or a screen that now loses or keeps more users), and the screen whose
  /// reach moved most (the effect downstream), e.g. `control: quits moved most at posing
  /// (0.02869 → 0.04304 of all users); reach moved most at proUpsell (0.786 → 0.7701); 7 screens moved`.
  package static func origins(_ c: SnapshotComparison) -> [String] {
    var variants: [String] = []
    for shift in c.screens where !variants.contains(shift.variant) { variants.append(shift.variant) }
    let lines = variants.map { variant -> (String, String) in
      let shifts = c.screens.filter { $0.variant == variant }
      var parts: [String] = []
      let added = shifts.filter { $0.baseline == nil }.map(\.screen)
      let removed = shifts.filter { $0.current == nil }.map(\.screen)
      if !added.isEmpty { parts.append("new screen\(added.count == 1 ? "" : "s") \(added.joined(separator: ", "))") }
      if !removed.isEmpty { parts.append("screen\(removed.count == 1 ? "" : "s") \(removed.joined(separator: ", ")) gone") }
      let both = shifts.compactMap { s in s.baseline.flatMap { a in s.current.map { (s.screen, a, $0) } } }
      if let q = both.max(by: { abs($0.1.abandoned - $0.2.abandoned) < abs($1.1.abandoned - $1.2.abandoned) }),
        abs(q.1.abandoned - q.2.abandoned) > c.tolerance.absolute
      {
        parts.append("quits moved most at \(q.0) (\(f(q.1.abandoned)) → \(f(q.2.abandoned)) of all users)")
      }
      if let r = both.max(by: { abs($0.1.reach - $0.2.reach) < abs($1.1.reach - $1.2.reach) }),
        abs(r.1.reach - r.2.reach) > c.tolerance.absolute
      {
        parts.append("reach moved most at \(r.0) (\(f(r.1.reach)) → \(f(r.2.reach)))")
      }
      parts.append("\(Vocabulary.plural(shifts.count, "screen")) moved")
      return (variant, parts.joined(separator: "; "))
    }
    // Variants whose change reads the same share one line.
    var tails: [String] = []
    for (_, tail) in lines where !tails.contains(tail) { tails.append(tail) }
    return tails.map { tail in lines.filter { $0.1 == tail }.map(\.0).joined(separator: ", ") + ": " + tail }
  }

  /// How many moved metrics the table and Markdown show (``SnapshotComparison/rankedChanges``: the
  /// primary metric first, then the largest relative moves); JSON lists all.
  static let shownChanges = 12

  /// The terminal table: outcome, moved metrics, origins.
  package static func table(_ r: Report) -> String {
    var out = outcome(r) + "\n"
    let c = r.comparison
    guard !c.changes.isEmpty || !c.screens.isEmpty else { return out }
    if !c.changes.isEmpty {
      var table = TextTable(["variant", "metric", "baseline", "now", "change"], alignments: [.left, .left, .right, .right, .right])
      for x in c.rankedChanges.prefix(shownChanges) {
        table.add([x.variant, x.metric.rawValue, f(x.baseline), f(x.current), change(x.baseline, x.current)])
      }
      out += "\n" + table.render()
      if c.changes.count > shownChanges {
        out +=
          "  … and \(c.changes.count - shownChanges) more (the primary metric and the largest relative moves are shown; --format json lists all)\n"
      }
    }
    let lines = origins(c)
    if !lines.isEmpty {
      out += "\nWhere it comes from:\n"
      out += lines.map { "  " + $0 + "\n" }.joined()
    }
    return out
  }

  /// The comparison as a JSON value (inside `check`'s JSON, or `diff`'s document).
  package static func jsonValue(_ r: Report) -> JSONValue {
    let c = r.comparison
    func number(_ x: Double?) -> JSONValue { x.map { .number($0) } ?? .null }
    return .object([
      ("baseline", .string(r.baseline)),
      ("current", .string(r.current)),
      ("passed", .bool(c.passed)),
      ("tolerance", .object([("absolute", .number(c.tolerance.absolute)), ("relative", .number(c.tolerance.relative))])),
      (
        "changes",
        .array(
          c.changes.map {
            .object([
              ("variant", .string($0.variant)), ("metric", .string($0.metric.rawValue)), ("baseline", number($0.baseline)),
              ("current", number($0.current)), ("allowance", .number($0.allowance)),
            ])
          })
      ),
      ("added", .array(c.added.map { .string($0) })),
      ("removed", .array(c.removed.map { .string($0) })),
      (
        "screens",
        .array(
          c.screens.map {
            .object([
              ("variant", .string($0.variant)), ("screen", .string($0.screen)),
              ("baselineReach", number($0.baseline?.reach)), ("currentReach", number($0.current?.reach)),
              ("baselineAbandoned", number($0.baseline?.abandoned)), ("currentAbandoned", number($0.current?.abandoned)),
            ])
          })
      ),
    ])
  }

  /// `diff`'s JSON document (`command` `"diff"`).
  package static func json(_ r: Report) -> String {
    JSONWriter.write(JSONReportHead(schemaVersion: 1, command: "diff").document([("comparison", jsonValue(r))]))
  }

  /// Markdown: the outcome as a heading, the moved metrics as a table, the origins as a list.
  package static func markdown(_ r: Report, heading: String = "###") -> String {
    let c = r.comparison
    let md = RunMarkdownRenderer.self
    var out = "\(heading) \(c.passed ? "✅" : "❌") \(md.cell(outcome(r)))\n\n"
    if !c.changes.isEmpty {
      out += md.header(["variant", "metric", "baseline", "now", "change"], right: [2, 3, 4])
      for x in c.rankedChanges.prefix(shownChanges) {
        out += md.row([x.variant, x.metric.rawValue, f(x.baseline), f(x.current), change(x.baseline, x.current)])
      }
      if c.changes.count > shownChanges {
        out += "\n… and \(c.changes.count - shownChanges) more (the primary metric and the largest relative moves are shown).\n"
      }
      out += "\n"
    }
    for line in origins(c) { out += "- \(md.cell(line))\n" }
    return out
  }
}
