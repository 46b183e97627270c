import FunnelLab
package import FunnelStats

/// Renders a solved power problem.
package enum PowerRenderer {
  /// The `schemaVersion` written by ``json(_:isMeans:usersPerDay:days:)`` (docs/json-output.md); raised when a
  /// key is removed or renamed.
  package static let schemaVersion = 1

  /// The answer first, in one sentence, by what was solved: the users a test needs, the power
  /// it has, the smallest change it detects, or the α it spends.
  static func headline(_ r: PowerAnalysis.Result, isMeans: Bool) -> String {
    let users =
      "\(NumberText.grouped(r.sampleSize, rounding: .up)) users per arm"
      + (r.ratio == 1 ? "" : " in the treatment arm") + " (\(NumberText.grouped(r.totalUsers)) in total)"
    let change =
      isMeans
      ? "a difference of \(NumberText.fixed(r.absoluteEffect, 4)) in the mean (Cohen's d \(NumberText.fixed(r.standardizedEffect, 3)))"
      : "\(NumberText.percent(r.baseline, decimals: 2)) → \(NumberText.percent(r.effect, decimals: 2))"
        + " (\(NumberText.points(r.absoluteEffect, decimals: 2)), lift \(NumberText.lift(r.relativeEffect)))"
    let power = NumberText.percent(r.power, decimals: 1)
    let alpha = "α \(JSONValue.format(r.alpha))"
    return switch r.solvedFor {
    case .sampleSize: "The test needs \(users) to detect \(change) with \(power) power at \(alpha)."
    case .power: "With \(users), the test has \(power) power to detect \(change) at \(alpha)."
    case .effect: "With \(users) and \(power) power at \(alpha), the smallest change the test detects is \(change)."
    case .alpha: "With \(users) and \(power) power to detect \(change), the test spends α \(NumberText.fixed(r.alpha, 4))."
    }
  }

  /// The terminal summary: baseline, effect (a mean difference with Cohen's d when `isMeans`, otherwise a
  /// treatment rate with its absolute and relative lift), α, power, users per arm rounded up and in total,
  /// the solved quantity marked `← solved`; the duration line only when both `usersPerDay` and `days` are given.
  package static func table(
    _ r: PowerAnalysis.Result, isMeans: Bool, usersPerDay: Int?, days: Int?, sequential: GroupSequentialPlan? = nil
  ) -> String {
    func mark(_ what: PowerAnalysis.Unknown) -> String { r.solvedFor == what ? "   ← solved" : "" }
    var out = "Power analysis · \(r.method) · \(r.alternative.rawValue)\n\n" + headline(r, isMeans: isMeans) + "\n\n"
    if isMeans {
      out += "  control mean          \(NumberText.fixed(r.baseline, 4))\n"
      out +=
        "  difference            \(NumberText.fixed(r.absoluteEffect, 4)) (Cohen's d \(NumberText.fixed(r.standardizedEffect, 4)))\(mark(.effect))\n"
    } else {
      out += "  baseline rate         \(NumberText.percent(r.baseline, decimals: 2))\n"
      out += "  treatment rate        \(NumberText.percent(r.effect, decimals: 2))"
      out +=
        " (\(NumberText.points(r.absoluteEffect, decimals: 2)), relative \(r.relativeEffect.map { NumberText.percent($0) } ?? "n/a"))\(mark(.effect))\n"
    }
    out += "  alpha                 \(NumberText.fixed(r.alpha, 4))\(mark(.alpha))\n"
    out += "  power                 \(NumberText.percent(r.power, decimals: 1))\(mark(.power))\n"
    out += "  users, treatment      \(NumberText.grouped(r.sampleSize, rounding: .up))\(mark(.sampleSize))\n"
    out += "  users, control        \(NumberText.grouped(r.controlSampleSize, rounding: .up)) (ratio \(JSONValue.format(r.ratio)))\n"
    out += "  users in total        \(NumberText.grouped(r.totalUsers))\n"
    if let usersPerDay, let days {
      out += "  duration              \(days) day\(days == 1 ? "" : "s") at \(NumberText.grouped(usersPerDay)) users/day\n"
    }
    if let sequential { out += sequentialTable(sequential) }
    return out
  }

  /// The solved design as pretty-printed JSON (`command` `"power"`, `mode` `"formula"`): exact values, user
  /// counts per arm unrounded (`treatmentUsers`, `controlUsers`), `usersPerDay` and `days` `null` when not given.
  package static func json(
    _ r: PowerAnalysis.Result, isMeans: Bool, usersPerDay: Int?, days: Int?, sequential: GroupSequentialPlan? = nil
  ) -> String {
    var body: [(String, JSONValue)] = [
      (
        "summary",
        .object([
          ("solvedFor", .string(r.solvedFor.rawValue)), ("usersPerArm", .integer(Int(r.sampleSize.rounded(.up)))),
          ("totalUsers", .integer(r.totalUsers)), ("power", .number(r.power)), ("absoluteEffect", .number(r.absoluteEffect)),
        ])
      ),
      ("method", .string(r.method)),
      ("alternative", .string(r.alternative.rawValue)),
      ("solvedFor", .string(r.solvedFor.rawValue)),
      ("baseline", .number(r.baseline)),
      (isMeans ? "meanDifference" : "treatmentRate", .number(r.effect)),
      ("absoluteEffect", .number(r.absoluteEffect)),
      ("relativeEffect", r.relativeEffect.map { .number($0) } ?? .null),
      ("standardizedEffect", .number(r.standardizedEffect)),
      ("alpha", .number(r.alpha)),
      ("power", .number(r.power)),
      ("treatmentUsers", .number(r.sampleSize)),
      ("controlUsers", .number(r.controlSampleSize)),
      ("totalUsers", .integer(r.totalUsers)),
      ("ratio", .number(r.ratio)),
      ("usersPerDay", usersPerDay.map { .integer($0) } ?? .null),
      ("days", days.map { .integer($0) } ?? .null),
    ]
    if let sequential { body.append(("groupSequential", sequentialJSON(sequential))) }
    return JSONWriter.write(JSONReportHead(schemaVersion: schemaVersion, command: "power", mode: "formula").document(body))
  }
}
