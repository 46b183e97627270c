package import FunnelLab

/// Renders a ``RevenuePlan`` (`power SPEC --metric revenuePerUser`): the answer first (which
/// variant's test is quickest, and whether the normal approximation holds at its size), then
/// one row per variant, then how the numbers were found.
package enum RevenuePlanRenderer {
  /// The `schemaVersion` written by ``json(_:)`` (docs/json-output.md).
  package static let schemaVersion = 1

  /// Money in the glossary's style.
  static func money(_ x: Double) -> String { NumberText.fixed(x, 2) }

  /// The variant whose test needs the fewest users among those whose true effect is worth a test
  /// (larger than the margin, ``PlannedEffect/isWorthTesting``).
  static func quickest(_ r: RevenuePlan) -> RevenuePlan.Variant? {
    r.variants.filter { $0.usersPerArm != nil && $0.trueEffect.isWorthTesting }.min { ($0.usersPerArm ?? 0) < ($1.usersPerArm ?? 0) }
  }

  /// The answer first: the quickest test on revenue per user, its size and the truth it finds,
  /// one unit per sentence (users, the true Δ in money, the lift, days); the variant is coloured
  /// by the call (green for a win, red for a loss).
  static func headline(_ r: RevenuePlan) -> String {
    let margin = "±" + NumberText.percent(r.relativeMargin, decimals: 0)
    guard let q = quickest(r), let n = q.usersPerArm else {
      if r.variants.contains(where: { $0.trueEffect.isWorthTesting }) {
        return "No variant's effect on revenue per user is large enough to detect with any feasible test."
      }
      return r.variants.contains(where: \.movesRevenue)
        ? "No variant moves revenue per user by more than the \(margin) margin (negligible effects are not worth a test)."
        : "No variant changes revenue per user, so there is nothing to detect."
    }
    var out = "\(PlanningRenderer.toned(q.arm.variant, q.trueEffect)) is the quickest to test on revenue per user:"
    out += " \(Vocabulary.plural(n, "user")) per arm for \(NumberText.percent(r.targetPower, decimals: 0)) power."
    out += " Its true Δ is \(NumberText.signed(q.difference, 3))\(r.currency.map { " \($0)" } ?? "") per user."
    out += " That is a true lift of \(NumberText.lift(q.relativeLift)): \(Vocabulary.word(q.trueEffect))."
    if let days = q.durationDays {
      out += " At \(Vocabulary.plural(r.usersPerDay ?? 0, "user")) a day that is \(Vocabulary.days(days))."
    }
    return out
  }

  /// Whether the normal approximation held at every planned size, in a sentence.
  static func approximation(_ r: RevenuePlan) -> String {
    let failed = r.variants.filter { $0.approximationHolds(target: r.targetPower) == false }
    let paying = NumberText.percent(r.control.payingShare, decimals: 1)
    guard r.variants.contains(where: { $0.simulatedPower != nil }) else {
      return "No size was planned, so no replicate tests were drawn (only \(paying) of the control's users pay anything)."
    }
    guard failed.isEmpty else {
      return "The normal approximation does not hold for " + failed.map(\.arm.variant).joined(separator: ", ")
        + ": at the planned size the replicate tests' power is more than 3 standard errors from the target (only \(paying)"
        + " of the control's users pay anything); plan from the simulated power instead."
    }
    return "The normal approximation holds at every planned size: replicate tests drawn from the exact revenue distributions"
      + " (only \(paying) of the control's users pay anything) reach the target power within 3 standard errors."
  }

  /// The table's headers and rows.
  static func rows(_ r: RevenuePlan) -> (headers: [String], rows: [[String]]) {
    let headers = [
      "variant", "revenue/user", "SD", "paying", "true lift", "true Δ", "users/arm", "simulated power", "days",
    ]
    let control = [
      r.control.variant, money(r.control.mean), money(r.control.standardDeviation), NumberText.percent(r.control.payingShare, decimals: 2),
      "—", "—", "—", "—", "—",
    ]
    return (
      headers,
      [control]
        + r.variants.map { v -> [String] in
          [
            v.arm.variant, money(v.arm.mean), money(v.arm.standardDeviation), NumberText.percent(v.arm.payingShare, decimals: 2),
            NumberText.lift(v.relativeLift), NumberText.signed(v.difference, 3),
            v.usersPerArm.map { NumberText.grouped($0) } ?? (v.movesRevenue ? "∞ (too small to detect)" : "∞ (no effect)"),
            v.simulatedPower.map { p -> String in
              NumberText.percent(p, decimals: 1) + (v.simulatedPowerStandardError.map { " ± " + NumberText.percent($0, decimals: 1) } ?? "")
            } ?? "—",
            v.durationDays.map { NumberText.grouped($0) } ?? "—",
          ]
        }
    )
  }

  /// How the plan was made, for the end of every format.
  static func methods(_ r: RevenuePlan) -> String {
    "Revenue per user is net of the store's fee over the revenue horizon\(r.currency.map { ", in \($0)" } ?? ""); its mean and"
      + " standard deviation are exact (the exact engine's distribution of one user's revenue: the plan bought, trial conversion,"
      + " renewals and the refund). Users per arm: the normal approximation of Welch's test at α = \(JSONValue.format(r.alpha))"
      + " (two-sided): n is the smallest whole number with Φ(|Δ|√n/σ − z₁₋α/₂) + Φ(−|Δ|√n/σ − z₁₋α/₂) ≥ power,"
      + " σ = √(σ²_control + σ²_variant) (both tails, solved by bisection; the closed form (z₁₋α/₂ + z_power)²σ²/Δ²"
      + " drops the second term). Simulated power: \(NumberText.grouped(r.replicates))"
      + " replicate tests at that size (seed \(r.seed)), each user's revenue drawn from the exact distribution, counted when"
      + " Welch's test rejects in the direction of the truth."
  }

  /// The terminal report.
  package static func table(_ r: RevenuePlan) -> String {
    let width = TerminalLayout.current.width ?? 10_000
    var out =
      "\(r.experiment) · plan for revenue per user · α = \(JSONValue.format(r.alpha)) · power \(NumberText.percent(r.targetPower, decimals: 0))\n\n"
    out += TextWrap.wrap(headline(r), width: width, indent: 2).joined(separator: "\n") + "\n"
    out += TextWrap.wrap(approximation(r), width: width, indent: 2).joined(separator: "\n") + "\n\n"
    let t = rows(r)
    var table = TextTable(t.headers, alignments: [.left] + Array(repeating: .right, count: t.headers.count - 1), secondary: [2, 3, 8])
    for row in t.rows { table.add(row) }
    out += table.render() + "\n"
    out += TextWrap.wrap(methods(r), width: width, indent: 2).joined(separator: "\n") + "\n"
    return out
  }

  /// Markdown: the answer, the table, the methods.
  package static func markdown(_ r: RevenuePlan) -> String {
    var out = "## \(r.experiment): plan for revenue per user\n\n**\(headline(r))**\n\n\(approximation(r))\n\n"
    let t = rows(r)
    out += RunMarkdownRenderer.header(t.headers, right: Set(1..<t.headers.count))
    for row in t.rows { out += RunMarkdownRenderer.row(row) }
    return out + "\n" + methods(r) + "\n"
  }

  /// A page: the answer as the decision, the table, the methods folded at the end.
  package static func html(_ r: RevenuePlan) -> String {
    var doc = HTMLDocument(title: "FunnelLab · plan for revenue per user · \(r.experiment)")
    doc.heading(1, "\(r.experiment): plan for revenue per user")
    doc.decision(
      headline(r), lines: [approximation(r)], alert: r.variants.contains { $0.approximationHolds(target: r.targetPower) == false })
    let t = rows(r)
    doc.table(t.headers, t.rows, right: Set(1..<t.headers.count), caption: "Each variant against \(r.control.variant)")
    doc.methods([methods(r)])
    return doc.html
  }

  /// CSV: one row per arm, every number unrounded.
  package static func csv(_ r: RevenuePlan) -> String {
    var out = CSVWriter(header: [
      "variant", "revenue_per_user", "standard_deviation", "paying_share", "true_relative_lift", "true_difference", "users_per_arm",
      "simulated_power", "simulated_power_standard_error", "duration_days",
    ])
    out.add([
      r.control.variant, CSVWriter.number(r.control.mean), CSVWriter.number(r.control.standardDeviation),
      CSVWriter.number(r.control.payingShare), "", "", "", "", "", "",
    ])
    for v in r.variants {
      out.add([
        v.arm.variant, CSVWriter.number(v.arm.mean), CSVWriter.number(v.arm.standardDeviation), CSVWriter.number(v.arm.payingShare),
        CSVWriter.number(v.relativeLift), CSVWriter.number(v.difference), v.usersPerArm.map(String.init) ?? "",
        CSVWriter.number(v.simulatedPower), CSVWriter.number(v.simulatedPowerStandardError), v.durationDays.map(String.init) ?? "",
      ])
    }
    return out.text
  }

  /// The JSON document (`command` `"power"`, `mode` `"revenue"`): the summary, then the control
  /// and every variant with its exact moments, size and simulated power.
  package static func json(_ r: RevenuePlan) -> String {
    let head = JSONReportHead(schemaVersion: schemaVersion, command: "power", experiment: r.experiment, mode: "revenue", seed: r.seed)
    func arm(_ a: RevenuePlan.Arm) -> [(String, JSONValue)] {
      [
        ("variant", .string(a.variant)), ("revenuePerUser", .number(a.mean)), ("standardDeviation", .number(a.standardDeviation)),
        ("payingShare", .number(a.payingShare)),
      ]
    }
    func opt(_ x: Double?) -> JSONValue { x.map { .number($0) } ?? .null }
    let failed = r.variants.filter { $0.approximationHolds(target: r.targetPower) == false }.map { JSONValue.string($0.arm.variant) }
    return JSONWriter.write(
      head.document([
        (
          "summary",
          .object([
            ("quickest", quickest(r).map { .string($0.arm.variant) } ?? .null),
            ("usersPerArm", quickest(r)?.usersPerArm.map { .integer($0) } ?? .null),
            ("days", quickest(r)?.durationDays.map { .integer($0) } ?? .null),
            ("trueEffect", quickest(r).map { .string($0.trueEffect.rawValue) } ?? .null),
            ("normalApproximationFailsFor", .array(failed)),
          ])
        ),
        ("metric", .string(FunnelMetric.revenuePerUser.rawValue)), ("currency", r.currency.map { .string($0) } ?? .null),
        ("alpha", .number(r.alpha)), ("targetPower", .number(r.targetPower)), ("relativeMargin", .number(r.relativeMargin)),
        ("replicates", .integer(r.replicates)),
        ("usersPerDay", r.usersPerDay.map { .integer($0) } ?? .null),
        ("control", .object(arm(r.control))),
        (
          "variants",
          .array(
            r.variants.map { v in
              .object(
                arm(v.arm) + [
                  ("trueRelativeLift", opt(v.relativeLift)), ("trueDifference", .number(v.difference)),
                  ("trueEffect", .string(v.trueEffect.rawValue)),
                  ("usersPerArm", v.usersPerArm.map { .integer($0) } ?? .null), ("simulatedPower", opt(v.simulatedPower)),
                  ("simulatedPowerStandardError", opt(v.simulatedPowerStandardError)),
                  ("normalApproximationHolds", v.approximationHolds(target: r.targetPower).map { .bool($0) } ?? .null),
                  ("durationDays", v.durationDays.map { .integer($0) } ?? .null),
                ])
            })
        ),
      ]))
  }
}
