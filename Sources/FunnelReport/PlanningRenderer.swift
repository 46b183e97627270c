package import FunnelLab

/// Renders a ``PlanningReport``.
package enum PlanningRenderer {
  /// The `schemaVersion` written by ``json(_:)`` (docs/json-output.md); raised when a key is removed or renamed.
  package static let schemaVersion = 1

  static func pct(_ x: Double?, _ d: Int = 1) -> String { NumberText.percent(x, decimals: d) }

  /// The simulated users per arm as `n ± δ` (δ: one Monte Carlo standard error), or where
  /// the target lies outside the searched sizes.
  static func simulatedSize(_ p: VariantPlan) -> String {
    guard let s = p.simulatedSize else { return p.analyticUsersPerArm == nil ? "—" : "n/a" }
    switch s.position {
    case .found: return NumberText.grouped(s.usersPerArm) + (s.standardError.map { " ± " + NumberText.grouped(Int($0.rounded(.up))) } ?? "")
    case .belowSearchedSizes: return "≤ " + NumberText.grouped(s.usersPerArm)
    case .aboveSearchedSizes: return "> " + NumberText.grouped(s.usersPerArm)
    }
  }

  /// Per variant whose daily looks stop before its planned duration (the peeking simulation covers at most
  /// 100 days, or `--days`): a sentence saying so, since its rules' power is that of a shorter test.
  static func shortLookNotes(_ r: PlanningReport) -> [String] {
    r.plans.compactMap { plan in
      guard let peek = plan.peeking, let duration = plan.durationDays, peek.days < duration else { return nil }
      return "\(peek.variant): the plan needs \(NumberText.grouped(duration)) days at this traffic; the looks are simulated over"
        + " the first \(peek.days) only, so each rule's power is that of a test stopped at day \(peek.days), short of the planned users"
    }
  }

  /// Per variant whose test would run longer than ``VariantPlan/feasibleDays`` at the given traffic: a
  /// sentence calling it infeasible, since a size is not a plan when nobody can wait for it.
  static func infeasibleNotes(_ r: PlanningReport) -> [String] {
    r.plans.compactMap { plan in
      guard plan.isFeasible == false, let days = plan.durationDays else { return nil }
      return "\(plan.diagnosis.variant): infeasible at this traffic: \(NumberText.grouped(days)) days (more than"
        + " \(VariantPlan.feasibleDays)) to find a true Δ of \(NumberText.points(plan.diagnosis.trueDifference, decimals: 2))"
        + " with \(pct(r.targetPower, 0)) power; test a larger change, or plan on more traffic"
    }
  }

  /// The users per arm a variant's test needs: the simulated size when the search found it,
  /// else the formula's; `nil` when there is no effect to detect.
  static func neededUsers(_ p: VariantPlan) -> Int? { p.simulatedUsersPerArm ?? p.analyticUsersPerArm }

  /// The variant whose test needs the fewest users (an effect to detect, feasible at the traffic).
  static func quickest(_ r: PlanningReport) -> VariantPlan? {
    r.plans.filter { neededUsers($0) != nil && $0.isFeasible != false }.min { (neededUsers($0) ?? 0) < (neededUsers($1) ?? 0) }
  }

  /// The answer first: which variant's test is quickest to run and how big it is, or that none can be run.
  static func headline(_ r: PlanningReport) -> String {
    let power = pct(r.targetPower, 0)
    guard let q = quickest(r), let n = neededUsers(q) else {
      return "No variant can be tested here: "
        + (r.plans.contains { $0.analyticUsersPerArm != nil }
          ? "every test needs more than \(VariantPlan.feasibleDays) days at this traffic." : "none changes \(r.metric.label).")
    }
    let days =
      q.durationDays.map {
        " (\(NumberText.grouped($0)) day\($0 == 1 ? "" : "s") at \(NumberText.grouped(r.usersPerDay ?? 0)) users a day)"
      } ?? ""
    return
      "The quickest test: \(Tone.good.mark(q.diagnosis.variant)) needs \(NumberText.grouped(n)) users per arm\(days) to find its true Δ of "
      + "\(NumberText.points(q.diagnosis.trueDifference, decimals: 2)) in \(r.metric.label) with \(power) power."
  }

  /// One line per variant: the users its test needs, or why it cannot be run.
  static func lines(_ r: PlanningReport) -> [String] {
    r.plans.map { p in
      let d = p.diagnosis
      guard let n = neededUsers(p) else { return "\(d.variant): no effect on \(r.metric.label) to detect (its true Δ is 0)" }
      let days = p.durationDays.map { ", \(NumberText.grouped($0)) days" } ?? ""
      let feasible = p.isFeasible == false ? Tone.warning.mark(" — infeasible at this traffic") : ""
      return
        "\(d.variant): \(NumberText.grouped(n)) users per arm\(days) for a true Δ of \(NumberText.points(d.trueDifference, decimals: 2))\(feasible)"
    }
  }

  /// How the simulated size was found, as one sentence.
  static func searchNote(_ r: PlanningReport) -> String? {
    guard let s = r.plans.lazy.compactMap(\.simulatedSize).first else { return nil }
    return "n per arm (simulated): where the simulated power of \(NumberText.grouped(s.replicates)) replicate experiments,"
      + " with common random numbers across sizes, reaches the target (a root search from ½× to 2× the formula's size);"
      + " ± one Monte Carlo standard error."
  }

  /// The terminal report: per variant the exact rates and true difference, users per arm by the formula and
  /// by simulation (`± one Monte Carlo standard error`), the simulated power, false-positive rate, coverage,
  /// type S and M errors and the duration; then, when daily looks were simulated, each peeking rule's
  /// false-positive rate, power and mean stopping day.
  package static func table(_ r: PlanningReport) -> String {
    var out = "\(r.experiment) · planning \(r.metric.label) · α = \(JSONValue.format(r.alpha)) two-sided"
    out += " · target power \(pct(r.targetPower, 0)) · seed \(r.seed)\n\n"
    out += headline(r) + "\n" + lines(r).map { "  " + $0 + "\n" }.joined() + "\n"
    out += "Rates are exact (the exact engine); each replicate experiment draws both arms' conversions from them.\n\n"
    var t = TextTable(
      [
        "variant", "control", "variant", "true Δ", "n per arm (formula)", "n per arm (simulated)", "users/arm used", "power (sim)",
        "power (formula)", "A/A false positives", "\(NumberText.level(alpha: r.alpha)) CI coverage", "type S", "type M", "days",
      ],
      alignments: [.left, .right, .right, .right, .right, .right, .right, .right, .right, .right, .right, .right, .right, .right])
    for p in r.plans {
      let d = p.diagnosis
      t.add([
        d.variant, pct(d.controlRate, 2), pct(d.variantRate, 2), NumberText.points(d.trueDifference, decimals: 2),
        p.analyticUsersPerArm.map { NumberText.grouped($0) } ?? "∞ (no effect)",
        simulatedSize(p),
        NumberText.grouped(d.usersPerArm), pct(d.power), pct(d.analyticPower), pct(d.falsePositiveRate, 2), pct(d.coverage),
        pct(d.typeS), d.typeM.map { NumberText.fixed($0, 2) + "×" } ?? "n/a", p.durationDays.map(String.init) ?? "",
      ])
    }
    out += t.render()
    for note in infeasibleNotes(r) { out += "  \(note)\n" }
    if let note = searchNote(r) { out += "  (\(note))\n" }
    if let first = r.plans.first {
      out += "  (\(NumberText.grouped(first.diagnosis.replicates)) replicates per estimate; Monte Carlo SE of a rate near 5%: "
      out += "\(NumberText.fixed(first.diagnosis.standardError(of: 0.05) * 100, 2)) pp)\n"
    }
    let peeks = r.plans.compactMap(\.peeking)
    if !peeks.isEmpty {
      out += "\nPeeking: a look every day at \(NumberText.grouped(r.usersPerDay ?? 0)) users/day (both arms)\n"
      var p = TextTable(
        ["variant", "days", "rule", "false positives (A/A)", "power", "mean stopping day"],
        alignments: [.left, .right, .left, .right, .right, .right])
      for peek in peeks {
        for rule in peek.rules {
          p.add([
            peek.variant, String(peek.days), rule.name, pct(rule.falsePositiveRate, 2), pct(rule.power),
            rule.expectedStoppingDay.map { NumberText.fixed($0, 1) } ?? "n/a",
          ])
        }
      }
      out += p.render()
      for note in shortLookNotes(r) { out += "  (\(note))\n" }
    }
    if let adjustment = r.adjustment { out += AdjustmentPlanRenderer.text(adjustment) }
    if let assurance = r.assurance { out += AssurancePlanRenderer.text(assurance, level: NumberText.level(alpha: r.alpha)) }
    return out
  }

  /// The report as pretty-printed JSON (`command` `"power"`, `mode` `"simulation"`): per variant every number of ``table(_:)`` at
  /// full precision, the p-value histogram, the size search's outcome and the peeking rules; absent values
  /// (no effect, no traffic, no daily looks) are `null`.
  package static func json(_ r: PlanningReport) -> String {
    func opt(_ x: Double?) -> JSONValue { x.map { .number($0) } ?? .null }
    func optInt(_ x: Int?) -> JSONValue { x.map { .integer($0) } ?? .null }
    let head = JSONReportHead(schemaVersion: schemaVersion, command: "power", experiment: r.experiment, mode: "simulation", seed: r.seed)
    return JSONWriter.write(
      head.document([
        (
          "summary",
          .object([
            ("quickest", quickest(r).map { .string($0.diagnosis.variant) } ?? .null),
            ("usersPerArm", optInt(quickest(r).flatMap(neededUsers))), ("days", optInt(quickest(r)?.durationDays)),
          ])
        ),
        ("metric", .string(r.metric.rawValue)),
        ("alpha", .number(r.alpha)),
        ("targetPower", .number(r.targetPower)),
        ("usersPerDay", optInt(r.usersPerDay)),
        (
          "variants",
          .array(
            r.plans.map { p in
              let d = p.diagnosis
              return .object([
                ("id", .string(d.variant)), ("controlRate", .number(d.controlRate)), ("variantRate", .number(d.variantRate)),
                ("trueDifference", .number(d.trueDifference)), ("analyticUsersPerArm", optInt(p.analyticUsersPerArm)),
                ("simulatedUsersPerArm", optInt(p.simulatedUsersPerArm)),
                ("simulatedUsersPerArmStandardError", opt(p.simulatedSize?.standardError)),
                (
                  "sizeSearch",
                  p.simulatedSize.map { s in
                    .object([
                      ("position", .string(s.position.rawValue)), ("usersPerArm", .integer(s.usersPerArm)),
                      ("replicates", .integer(s.replicates)),
                    ])
                  } ?? .null
                ),
                ("usersPerArm", .integer(d.usersPerArm)),
                ("replicates", .integer(d.replicates)), ("power", .number(d.power)), ("analyticPower", opt(d.analyticPower)),
                ("falsePositiveRate", .number(d.falsePositiveRate)), ("coverage", .number(d.coverage)), ("typeS", opt(d.typeS)),
                ("typeM", opt(d.typeM)), ("pValueHistogram", .array(d.pValueHistogram.map { .integer($0) })),
                ("durationDays", optInt(p.durationDays)),
                (
                  "peeking",
                  p.peeking.map { peek in
                    .object([
                      ("days", .integer(peek.days)), ("usersPerDayPerArm", .integer(peek.usersPerDayPerArm)),
                      (
                        "rules",
                        .array(
                          peek.rules.map { rule in
                            .object([
                              ("rule", .string(rule.name)), ("falsePositiveRate", .number(rule.falsePositiveRate)),
                              ("power", .number(rule.power)), ("expectedStoppingDay", opt(rule.expectedStoppingDay)),
                            ])
                          })
                      ),
                    ])
                  } ?? .null
                ),
              ])
            })
        ),
        ("adjustment", AdjustmentPlanRenderer.json(r.adjustment)),
        ("assurance", AssurancePlanRenderer.json(r.assurance)),
      ]))
  }
}
