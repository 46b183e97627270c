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
      return "\(peek.variant): the plan needs \(Vocabulary.plural(duration, "day")) at this traffic; the looks are simulated over"
        + " the first \(peek.days) only, so each rule's power is that of a test stopped at day \(peek.days), short of the planned users"
    }
  }

  /// Per variant whose test would run longer than ``VariantPlan/feasibleDays`` at the given traffic: a
  /// sentence calling it infeasible, since a size is not a plan when nobody can wait for it.
  static func infeasibleNotes(_ r: PlanningReport) -> [String] {
    r.plans.compactMap { plan in
      guard plan.isFeasible == false, let days = plan.durationDays else { return nil }
      return "\(plan.diagnosis.variant): infeasible at this traffic: \(Vocabulary.plural(days, "day")) (more than"
        + " \(VariantPlan.feasibleDays)) to find a true Δ of \(NumberText.points(plan.diagnosis.trueDifference, decimals: 2))"
        + " with \(pct(r.targetPower, 0)) power; test a larger change, or plan on more traffic"
    }
  }

  /// The users per arm a variant's test needs: the simulated size when the search found it,
  /// else the formula's; `nil` when there is no effect to detect.
  static func neededUsers(_ p: VariantPlan) -> Int? { p.simulatedUsersPerArm ?? p.analyticUsersPerArm }

  /// The variant whose test needs the fewest users among those whose true effect is worth a test
  /// (larger than the margin, ``PlannedEffect/isWorthTesting``) and feasible at the traffic.
  static func quickest(_ r: PlanningReport) -> VariantPlan? {
    r.plans.filter { neededUsers($0) != nil && $0.isFeasible != false && $0.trueEffect.isWorthTesting }
      .min { (neededUsers($0) ?? 0) < (neededUsers($1) ?? 0) }
  }

  /// The margin in words, e.g. `±1%`.
  static func margin(_ r: PlanningReport) -> String { "±" + NumberText.percent(r.relativeMargin, decimals: 0) }

  /// `text` in the colour of the call a test would make on `effect` (``Vocabulary/tone(_:)-(PlannedEffect)``).
  static func toned(_ text: String, _ effect: PlannedEffect) -> String { Vocabulary.mark(text, Vocabulary.tone(effect)) }

  /// The answer first: which variant's test is quickest to run and how big it is, or that none can be run;
  /// one unit per sentence (users, then the true Δ in points, then days, then the assurance size).
  static func headline(_ r: PlanningReport) -> String {
    let power = pct(r.targetPower, 0)
    guard !r.nothingToCompare else { return "Nothing to compare: only the control, so there is no test to plan." }
    guard let q = quickest(r), let n = neededUsers(q) else {
      let negligible = r.plans.contains { $0.trueEffect == .negligible }
      return "No variant can be tested here: "
        + (r.plans.contains { $0.trueEffect.isWorthTesting && $0.analyticUsersPerArm != nil }
          ? "every test needs more than \(VariantPlan.feasibleDays) days at this traffic."
          : negligible
            ? "no variant moves \(r.metric.label) by more than the \(margin(r)) margin (negligible effects are not worth a test)."
            : "none changes \(r.metric.label).")
    }
    var out =
      "The quickest test: \(toned(q.diagnosis.variant, q.trueEffect)) needs \(Vocabulary.plural(n, "user")) per arm for \(power) power."
    out +=
      " Its true Δ in \(r.metric.label) is \(NumberText.points(q.diagnosis.trueDifference, decimals: 2)): \(Vocabulary.word(q.trueEffect))."
    if let days = q.durationDays {
      out += " At \(Vocabulary.plural(r.usersPerDay ?? 0, "user")) a day that is \(Vocabulary.days(days))."
    }
    if let a = r.assurance?.variants.first(where: { $0.variant == q.diagnosis.variant }) {
      let target = pct(r.assurance?.target, 0)
      out +=
        a.usersPerArmForTarget.map {
          " Over the uncertain behavior parameters, \(Vocabulary.plural($0, "user")) per arm reach \(target) assurance."
        }
        ?? " Over the uncertain behavior parameters, no size reaches \(target) assurance."
    }
    return out
  }

  /// One line per variant: the users its test needs, or why it cannot be run.
  static func lines(_ r: PlanningReport) -> [String] {
    r.plans.map { p in
      let d = p.diagnosis
      guard let n = neededUsers(p) else { return "\(d.variant): no effect on \(r.metric.label) to detect (its true Δ is 0)" }
      let days = p.durationDays.map { ", " + Vocabulary.days($0) } ?? ""
      let feasible = p.isFeasible == false ? Tone.warning.mark(" — infeasible at this traffic") : ""
      let negligible = p.trueEffect == .negligible ? " — negligible: inside the \(margin(r)) margin, not worth a test" : ""
      return "\(toned(d.variant, p.trueEffect)): \(Vocabulary.plural(n, "user")) per arm\(days) for a true Δ of"
        + " \(NumberText.points(d.trueDifference, decimals: 2))\(feasible)\(negligible)"
    }
  }

  /// A design cell that has no meaning without an effect: `n/a (no effect)` then.
  static func ifEffect(_ d: DesignDiagnosis, _ text: () -> String) -> String { d.hasEffect ? text() : "n/a (no effect)" }

  /// The type M cell: the exaggeration ratio, `n/a` without a significant replicate.
  static func typeM(_ d: DesignDiagnosis) -> String { ifEffect(d) { d.typeM.map { NumberText.fixed($0, 2) + "×" } ?? "n/a" } }

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
    guard !r.nothingToCompare else { return out }
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
        NumberText.grouped(d.usersPerArm), ifEffect(d) { pct(d.power) }, ifEffect(d) { pct(d.analyticPower) },
        pct(d.falsePositiveRate, 2), pct(d.coverage), ifEffect(d) { pct(d.typeS) }, typeM(d), p.durationDays.map(String.init) ?? "",
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
      out += "\nPeeking: a look every day at \(Vocabulary.plural(r.usersPerDay ?? 0, "user"))/day (both arms)\n"
      var p = TextTable(
        ["variant", "days", "rule", "false positives (A/A)", "power", "mean stopping day"],
        alignments: [.left, .right, .left, .right, .right, .right])
      for plan in r.plans {
        guard let peek = plan.peeking else { continue }
        for rule in peek.rules {
          p.add([
            peek.variant, String(peek.days), rule.name, pct(rule.falsePositiveRate, 2), ifEffect(plan.diagnosis) { pct(rule.power) },
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
            ("trueEffect", quickest(r).map { .string($0.trueEffect.rawValue) } ?? .null),
            (
              "usersPerArmForAssurance",
              quickest(r).flatMap { q in r.assurance?.variants.first { $0.variant == q.diagnosis.variant }?.usersPerArmForTarget }
                .map { .integer($0) } ?? .null
            ),
          ])
        ),
        ("metric", .string(r.metric.rawValue)),
        ("alpha", .number(r.alpha)),
        ("targetPower", .number(r.targetPower)),
        ("relativeMargin", .number(r.relativeMargin)),
        ("usersPerDay", optInt(r.usersPerDay)),
        (
          "variants",
          .array(
            r.plans.map { p in
              let d = p.diagnosis
              return .object([
                ("id", .string(d.variant)), ("controlRate", .number(d.controlRate)), ("variantRate", .number(d.variantRate)),
                ("trueDifference", .number(d.trueDifference)), ("trueEffect", .string(p.trueEffect.rawValue)),
                ("analyticUsersPerArm", optInt(p.analyticUsersPerArm)),
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
                ("replicates", .integer(d.replicates)), ("power", d.hasEffect ? .number(d.power) : .null),
                ("analyticPower", opt(d.analyticPower)),
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
                              ("power", d.hasEffect ? .number(rule.power) : .null), ("expectedStoppingDay", opt(rule.expectedStoppingDay)),
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
