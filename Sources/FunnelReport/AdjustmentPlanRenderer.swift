import FunnelLab
import FunnelStats

/// Renders an ``AdjustmentPlan`` (the "Adjusting for what is known at assignment"
/// section of `power <spec>`): per arm and method, the variance removed and the users per
/// arm needed, and the best method's size tried by simulation.
enum AdjustmentPlanRenderer {
  static func headers(_ p: AdjustmentPlan) -> [String] {
    ["variant", "method", "variance removed (exact)", "users per arm", "saved", "simulated power at that size"]
  }

  static func rows(_ p: AdjustmentPlan) -> [[String]] {
    p.sizes.map { s in
      let plain = p.sizes.first { $0.arm == s.arm && $0.method == .unadjusted }?.usersPerArm
      let saved: String =
        if let n = s.usersPerArm, let plain, s.method != .unadjusted, plain > 0 {
          NumberText.percent(1 - Double(n) / Double(plain))
        } else { "" }
      let check = p.checks.first { $0.arm == s.arm && $0.simulated.method == s.method }
      return [
        s.arm, s.method.rawValue, s.method == .unadjusted ? "" : NumberText.percent(s.varianceReduction),
        s.usersPerArm.map { NumberText.grouped($0) } ?? (s.noEffect ? "∞ (no effect)" : "n/a (too many)"), saved,
        check.map {
          "\(NumberText.percent($0.simulated.rejectionRate)) ± \(NumberText.percent($0.simulated.rejectionRateStandardError)) (\(NumberText.grouped($0.simulated.replicates)) replicates)"
        } ?? "",
      ]
    }
  }

  static func intro(_ p: AdjustmentPlan, headed: Bool = false) -> String {
    let strata = p.strata.count > 1 ? "observable strata " + p.strata.joined(separator: ", ") : "no observable strata"
    let covariate = p.covariate.map { "pre-period covariate \($0)" } ?? "no pre-period covariate"
    let law = p.covariate == nil ? "" : ", with the covariate's law there"
    let what =
      headed
      ? "Known at assignment: \(strata); \(covariate). The" : "Adjusting for what is known at assignment (\(strata); \(covariate)): the"
    return "\(what) variance each method removes is exact "
      + "(the exact engine's rate in every segment × intent cell\(law)); users per arm for "
      + "\(NumberText.percent(p.targetPower, decimals: 0)) power at α = \(JSONValue.format(p.alpha)) two-sided, z-test on the "
      + "method's standard error (unpooled: the unadjusted row can differ by a few users from the pooled formula's size). The best method's size is tried by replicate experiments drawn from the same cells"
      + (p.covariate == nil ? "." : ", covariate and outcome jointly.")
  }

  static func text(_ p: AdjustmentPlan) -> String {
    let out = "\n" + intro(p) + "\n"
    let h = headers(p)
    var t = TextTable(h, alignments: [.left, .left] + Array(repeating: .right, count: h.count - 2))
    for row in rows(p) { t.add(row) }
    return out + t.render()
  }

  static func markdown(_ p: AdjustmentPlan) -> String {
    var out = "\n### Adjusting for what is known at assignment\n\n" + intro(p, headed: true) + "\n\n"
    let h = headers(p)
    out += RunMarkdownRenderer.header(h, right: Set(2..<h.count))
    for row in rows(p) { out += RunMarkdownRenderer.row(row) }
    return out
  }

  static func html(_ p: AdjustmentPlan, into doc: inout HTMLDocument) {
    doc.heading(2, "Adjusting for what is known at assignment")
    doc.paragraph(intro(p, headed: true), cssClass: "note")
    doc.table(headers(p), rows(p), right: Set(2..<headers(p).count))
  }

  static func json(_ p: AdjustmentPlan?) -> JSONValue {
    guard let p else { return .null }
    return .object([
      ("strata", .array(p.strata.map { .string($0) })),
      ("covariate", p.covariate.map { .string($0) } ?? .null),
      (
        "arms",
        .array(
          p.arms.map { a in
            .object(
              [("id", .string(a.arm)), ("rate", .number(a.rate))]
                + [("variances", .object(p.methods.compactMap { m in a.variances[m].map { (m.rawValue, .number($0)) } }))])
          })
      ),
      (
        "sizes",
        .array(
          p.sizes.map { s in
            let check = p.checks.first { $0.arm == s.arm && $0.simulated.method == s.method }
            return .object([
              ("variant", .string(s.arm)), ("method", .string(s.method.rawValue)), ("varianceReduction", .number(s.varianceReduction)),
              ("usersPerArm", s.usersPerArm.map { .integer($0) } ?? .null),
              ("simulatedPower", check.map { .number($0.simulated.rejectionRate) } ?? .null),
              ("simulatedReplicates", check.map { .integer($0.simulated.replicates) } ?? .null),
              ("simulatedCoverage", check.map { .number($0.simulated.coverage) } ?? .null),
            ])
          })
      ),
    ])
  }

  /// CSV rows in ``PlanningRenderer/csvHeader``'s columns: `rule` = `adjusted: <method>`,
  /// `analytic_users_per_arm` the planned size, `power` the simulated power when tried.
  static func csvRows(_ r: PlanningReport, _ p: AdjustmentPlan) -> [[String]] {
    p.sizes.map { s in
      let check = p.checks.first { $0.arm == s.arm && $0.simulated.method == s.method }
      let control = p.arms.first?.rate
      let rate = p.arms.first { $0.arm == s.arm }?.rate
      return [
        r.experiment, s.arm, r.metric.rawValue, "adjusted: \(s.method.rawValue)", CSVWriter.number(control), CSVWriter.number(rate),
        check.map { String($0.usersPerArm) } ?? "", check.map { String($0.simulated.replicates) } ?? "", CSVWriter.number(p.alpha),
        CSVWriter.number(check?.simulated.rejectionRate), "", "", CSVWriter.number(check?.simulated.coverage), "", "",
        s.usersPerArm.map(String.init) ?? "", "", "", "", "",
      ]
    }
  }
}
