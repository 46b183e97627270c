package import FunnelLab

/// Renders an ``EventIngest``: the counts as the CSV `calibrate` reads, and a summary of
/// what was read, counted, left out and refused.
package enum IngestRenderer {
  /// The counts as CSV: `count,screen,action` (and `variant` when the events were read
  /// per variant), one row of views per screen (empty action) before its actions;
  /// variants, screens and actions in code-point order, so the bytes are the same for the
  /// same events in any order. `count` comes first: a row never starts with `#`, which
  /// `calibrate` would read as a comment.
  package static func csv(_ ingest: EventIngest, variants: Bool) -> String {
    var writer = CSVWriter(header: variants ? ["count", "screen", "action", "variant"] : ["count", "screen", "action"])
    for variant in ingest.counts.keys.sorted() {
      guard let observed = ingest.counts[variant] else { continue }
      let screens = Set(observed.views.keys).union(observed.actions.keys).sorted()
      for screen in screens {
        var rows: [(String, UInt64)] = []
        if let views = observed.views[screen] { rows.append(("", views)) }
        for (action, count) in (observed.actions[screen] ?? [:]).sorted(by: { $0.key < $1.key }) { rows.append((action, count)) }
        for (action, count) in rows { writer.add([String(count), screen, action] + (variants ? [variant] : [])) }
      }
    }
    return writer.text
  }

  /// What was read, in a few lines: the lines and events, the counts, the events that
  /// carry none or are outside the taxonomy, and the bad lines (the first ones by line).
  package static func summary(_ ingest: EventIngest, source: String) -> String {
    func n(_ value: UInt64) -> String { NumberText.grouped(value) }
    var out =
      "\(source.escapingControlCharacters): \(n(ingest.lines)) lines; counted \(n(ingest.views)) views and \(n(ingest.actions)) actions"
    // Read per variant, every key is a variant's id; otherwise the one key is "".
    out += ingest.counts.keys.contains { !$0.isEmpty } ? " of \(Vocabulary.plural(ingest.counts.count, "variant"))" : ""
    out += ".\n"
    let uncounted = ingest.uncounted.values.reduce(0, &+)
    if uncounted > 0 {
      out += "  not counted (no view or action): \(n(uncounted)) events (" + tally(ingest.uncounted) + ").\n"
    }
    let outside = ingest.outside.values.reduce(0, &+) &+ ingest.otherOutside
    if outside > 0 {
      let others = ingest.otherOutside > 0 ? ", \(n(ingest.otherOutside)) of other names" : ""
      out +=
        "  outside the taxonomy: \(n(outside)) events (" + tally(ingest.outside) + others
        + "); name yours with --events-map.\n"
    }
    if ingest.badLines > 0 {
      let shown = ingest.firstBadLines.map { "line \($0.line): \($0.message.escapingControlCharacters)" }.joined(separator: "; ")
      out += "  bad lines: \(n(ingest.badLines)) (\(shown)\(ingest.badLines > UInt64(ingest.firstBadLines.count) ? "; …" : "")).\n"
    }
    return out
  }

  /// `name count` pairs, the largest first (ties by name).
  private static func tally(_ counts: [String: UInt64]) -> String {
    counts.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }
      .map { "\($0.key.escapingControlCharacters) \(NumberText.grouped($0.value))" }.joined(separator: ", ")
  }
}
