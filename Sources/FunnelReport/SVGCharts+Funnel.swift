package import FunnelLab

/// Funnels: one variant's screens and outcomes, and the control's and a variant's side by side.
extension SVGCharts {
  /// One outcome a funnel ends in: its label, its users, and the bar's fill.
  struct Outcome {
    /// What the row counts, the same in every variant (`completed`, `plan paywall/yearly`): rows of
    /// two funnels pair up by it.
    var key: String
    var label: String
    var count: UInt64
    /// A CSS class (`bar outcome`) or, for a plan, a pattern (`url(#p1)`).
    var fill: String
    /// Plans are indented under the purchase row, with thinner bars.
    var indented = false
  }

  /// The outcomes of `s`, each of all users: completed, abandoned (everyone else: quit or
  /// cut off at the step limit), and for a flow that sells plans the purchasers and each
  /// plan's first purchases (patterned like the plan-mix chart; `*` marks the pre-selected plan).
  static func outcomes(_ s: FunnelSummary) -> [Outcome] {
    var rows = [
      Outcome(key: "completed", label: "✓ completed", count: s.completed, fill: "bar outcome"),
      Outcome(key: "abandoned", label: "✗ abandoned", count: s.users > s.completed ? s.users - s.completed : 0, fill: "bar abandoned"),
    ]
    guard let purchasers = s.purchasers else { return rows }
    rows.append(Outcome(key: "purchased", label: "$ purchased a plan", count: purchasers, fill: "bar outcome"))
    let named = Set(s.plans.map(\.screen)).count > 1
    for (j, plan) in s.plans.enumerated() {
      let label = (named ? "\(plan.screen) · " : "") + plan.plan + (plan.isDefault ? "*" : "")
      rows.append(
        Outcome(key: "plan \(plan.screen)/\(plan.plan)", label: label, count: plan.purchases, fill: "url(#p\(j % 4))", indented: true))
    }
    return rows
  }

  /// A bar of `fraction` (0…1) of the width from `x`, on its track: `fill` is a CSS class or a pattern.
  static func bar(_ x: Double, _ y: Double, _ fraction: Double, height: Double, fill: String) -> String {
    let w = (width - x) * min(max(fraction.isFinite ? fraction : 0, 0), 1)
    return rect(x, y, width - x, height, cssClass: "track")
      + (fill.hasPrefix("url(") ? rect(x, y, w, height, fill: fill) : rect(x, y, w, height, cssClass: fill))
  }

  /// A funnel: users who reached each screen, as bars relative to all users, each
  /// annotated with the users who quit there and, where a skip or jump from an earlier
  /// screen enters, how many came that way (so a reach that rises is explained); then
  /// the outcomes it ends in (see ``outcomes(_:)``).
  /// - Parameter jumps: ``FunnelJump/all(in:)`` of the variant's run.
  /// - Returns: the elements and the view box height.
  package static func funnel(_ s: FunnelSummary, jumps: [FunnelJump] = []) -> (content: String, height: Double) {
    var out = ""
    var y = 4.0
    for (i, row) in s.screens.enumerated() {
      let jump = jumps.first { $0.screen == i }
      out += text(0, y + 12, "\(i + 1). \(row.id)\(jump == nil ? "" : " ↪")", cssClass: "label")
      out += text(
        width, y + 12, "\(NumberText.grouped(row.reached)) reached (\(NumberText.percent(row.reachRate)))", anchor: "end", cssClass: "small"
      )
      out += bar(0, y + 17, row.reachRate, height: 12, fill: "bar")
      y += 29
      if let jump {
        out += text(0, y + 13, jump.note, cssClass: "small jump")
        y += lineStep
      }
      if row.droppedOff > 0 {
        out += text(
          width, y + 13,
          "▼ \(NumberText.grouped(row.droppedOff)) quit (\(NumberText.percent(row.dropOffRate)) of those who reached it)",
          anchor: "end", cssClass: "small drop")
        y += lineStep
      }
      y += 7
    }
    for outcome in outcomes(s) {
      let rate = s.users == 0 ? 0 : Double(outcome.count) / Double(s.users)
      let x = outcome.indented ? 14.0 : 0
      out += text(x, y + 12, outcome.label, cssClass: outcome.indented ? "small" : "label")
      out += text(
        width, y + 12, "\(NumberText.grouped(outcome.count)) (\(NumberText.percent(rate)) of all users)", anchor: "end", cssClass: "small")
      out += bar(x, y + 17, rate, height: outcome.indented ? 8 : 12, fill: outcome.fill)
      y += outcome.indented ? 31 : 36
    }
    return (out, y + 4)
  }

  /// One row of ``funnelComparison(control:variant:jumps:)``: each side's share of all users,
  /// `nil` where that flow has no such screen or plan.
  package struct ComparisonRow: Sendable, Hashable {
    /// The screen's id, an outcome or a plan (`*` when the variant pre-selects it).
    package var label: String
    /// The control's share of all users.
    package var control: Double?
    /// The variant's share of all users.
    package var variant: Double?
    /// A plan, indented under the purchase row.
    package var indented = false

    /// `61.4% → 63.0% (+1.6 pp)`, the difference taken between the printed percentages so the
    /// words add up; `new → 63.0%` or `61.4% → removed` for a screen or plan only one flow has.
    package var text: String {
      switch (control, variant) {
      case (let c?, let v?):
        let (a, b) = ((c * 1000).rounded() / 1000, (v * 1000).rounded() / 1000)
        // Equal shares give b − a = +0 exactly: `+0.0 pp`, never `0.0 pp` or `-0.0 pp`.
        return "\(NumberText.percent(a)) → \(NumberText.percent(b)) (\(NumberText.points(b - a)))"
      case (nil, let v?): return "new → \(NumberText.percent(v))"
      case (let c?, nil): return "\(NumberText.percent(c)) → removed"
      case (nil, nil): return ""
      }
    }
  }

  /// The control's and a variant's funnels as paired bars: for every screen of the
  /// variant (in its order, then the control's screens it removed) and every outcome
  /// and plan, the control's share of all users (hatched) over the variant's (solid),
  /// with `control → variant (difference)` in words. A legend names the two.
  /// - Parameter jumps: ids of the screens a skip or jump enters in either flow (marked ↪).
  /// - Returns: the elements and the view box height.
  package static func funnelComparison(
    control c: FunnelSummary, variant v: FunnelSummary, jumps: Set<String> = []
  ) -> (content: String, height: Double) {
    var out = legend([(c.variant, "url(#p1)"), (v.variant, "bar")])
    var y = 22.0
    for row in comparisonRows(control: c, variant: v) {
      let x = row.indented ? 14.0 : 0
      out += text(x, y + 12, row.label + (jumps.contains(row.label) ? " ↪" : ""), cssClass: row.indented ? "small" : "label")
      out += text(width, y + 12, row.text, anchor: "end", cssClass: "small")
      let h = row.indented ? 6.0 : 8
      out += bar(x, y + 17, row.control ?? 0, height: h, fill: "url(#p1)")
      out += bar(x, y + 18 + h, row.variant ?? 0, height: h, fill: "bar")
      y += row.indented ? 37 : 42
    }
    return (out, y)
  }

  /// The rows of ``funnelComparison(control:variant:jumps:)``: the variant's screens, the
  /// control's screens the variant lacks, then the outcomes and plans of either (paired by
  /// what they count).
  package static func comparisonRows(control c: FunnelSummary, variant v: FunnelSummary) -> [ComparisonRow] {
    let controlReach = Dictionary(c.screens.map { ($0.id, $0.reachRate) }, uniquingKeysWith: { a, _ in a })
    let variantIDs = Set(v.screens.map(\.id))
    var rows = v.screens.map { ComparisonRow(label: $0.id, control: controlReach[$0.id], variant: $0.reachRate) }
    rows += c.screens.filter { !variantIDs.contains($0.id) }.map { ComparisonRow(label: $0.id, control: $0.reachRate, variant: nil) }
    func share(_ o: Outcome, of s: FunnelSummary) -> Double { s.users == 0 ? 0 : Double(o.count) / Double(s.users) }
    let (controlOutcomes, variantOutcomes) = (outcomes(c), outcomes(v))
    let variantKeys = Set(variantOutcomes.map(\.key))
    for o in variantOutcomes {
      let match = controlOutcomes.first { $0.key == o.key }
      rows.append(ComparisonRow(label: o.label, control: match.map { share($0, of: c) }, variant: share(o, of: v), indented: o.indented))
    }
    for o in controlOutcomes where !variantKeys.contains(o.key) {
      rows.append(ComparisonRow(label: o.label.filter { $0 != "*" }, control: share(o, of: c), variant: nil, indented: o.indented))
    }
    return rows
  }

  /// A legend on one line: a swatch (a CSS class or a pattern) and a name per series.
  static func legend(_ series: [(name: String, fill: String)]) -> String {
    var out = ""
    var x = 0.0
    for (name, fill) in series {
      out += fill.hasPrefix("url(") ? rect(x, 3, 16, 10, fill: fill) : rect(x, 3, 16, 10, cssClass: fill)
      out += text(x + 21, 12, name, cssClass: "small")
      x += 21 + textWidth(name) + 16
    }
    return out
  }
}
