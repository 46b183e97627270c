import FunnelLab
package import FunnelStats

/// Renders a solved power problem.
package enum PowerRenderer {
  /// The `schemaVersion` written by ``json(_:isMeans:usersPerDay:days:)`` (docs/json-output.md); raised when a
  /// key is removed or renamed.
  package static let schemaVersion = 1

  /// The answer first, by what was solved: the users a test needs, the power it has, the
  /// smallest change it detects, or the α it spends; rates and the lift in percent only (the
  /// change in points is in the table), one unit per sentence. With `sequential` (`--looks K`) the
  /// group-sequential design leads, as it is the test asked for, and the fixed test follows for
  /// comparison; with `usersPerDay` the duration follows in a sentence of its own (days only).
  static func headline(
    _ r: PowerAnalysis.Result, isMeans: Bool, usersPerDay: Int? = nil, days: Int? = nil, sequential: GroupSequentialPlan? = nil
  ) -> String {
    let change =
      isMeans
      ? "a difference of \(NumberText.fixed(r.absoluteEffect, 4)) in the mean (Cohen's d \(NumberText.fixed(r.standardizedEffect, 3)))"
      : "\(NumberText.percent(r.baseline, decimals: 2)) → \(NumberText.percent(r.effect, decimals: 2))"
        + " (lift \(NumberText.lift(r.relativeEffect)))"
    let power = NumberText.percent(r.power, decimals: 1)
    let alpha = "α \(JSONValue.format(r.alpha))"
    let arm = r.ratio == 1 ? "users per arm" : "users in the treatment arm"
    if let sequential { return sequentialHeadline(sequential, r, arm: arm, change: change, usersPerDay: usersPerDay, days: days) }
    let users = "\(NumberText.grouped(r.sampleSize, rounding: .up)) \(arm) (\(NumberText.grouped(r.totalUsers)) in total)"
    let answer =
      switch r.solvedFor {
      case .sampleSize: "The test needs \(users) to detect \(change) with \(power) power at \(alpha)."
      case .power: "With \(users), the test has \(power) power to detect \(change) at \(alpha)."
      case .effect: "With \(users) and \(power) power at \(alpha), the smallest change the test detects is \(change)."
      case .alpha: "With \(users) and \(power) power to detect \(change), the test spends α \(NumberText.fixed(r.alpha, 4))."
      }
    guard let usersPerDay, let days else { return answer }
    return answer + " At \(Vocabulary.plural(usersPerDay, "user")) a day it runs \(Vocabulary.days(days))."
  }

  /// The headline of `power --looks K`: the group-sequential design's maximum and expected users,
  /// then the fixed test it replaces, then (with traffic) the longest it runs, one unit per sentence.
  static func sequentialHeadline(
    _ p: GroupSequentialPlan, _ r: PowerAnalysis.Result, arm: String, change: String, usersPerDay: Int?, days: Int?
  ) -> String {
    let looks = p.design.boundaries.count
    var out =
      "A group-sequential test with \(Vocabulary.plural(looks, "look")) (\(p.design.spending.rawValue) spending) needs at most"
      + " \(NumberText.grouped(p.maxUsersPerArm, rounding: .up)) \(arm) to detect \(change) with"
      + " \(NumberText.percent(p.power, decimals: 1)) power at α \(JSONValue.format(p.design.alpha))."
    out +=
      " It expects to stop at \(NumberText.grouped(p.expectedUsersPerArm, rounding: .up)) \(arm) if the effect is real;"
      + " the fixed test needs \(NumberText.grouped(p.fixedUsersPerArm, rounding: .up))."
    guard let usersPerDay, usersPerDay > 0 else { return out }
    let longest = Int(rounding: p.maxUsersPerArm * (1 + r.ratio) / Double(usersPerDay), .up) ?? 0
    out += " At \(Vocabulary.plural(usersPerDay, "user")) a day it runs at most \(Vocabulary.days(longest))"
    return out + (days.map { " (the fixed test \(Vocabulary.days($0)))." } ?? ".")
  }

  /// The terminal summary: baseline, effect (a mean difference with Cohen's d when `isMeans`, otherwise a
  /// treatment rate with its absolute and relative lift), α, power, users per arm rounded up and in total,
  /// the solved quantity marked `← solved`; the duration line only when both `usersPerDay` and `days` are given.
  package static func table(
    _ r: PowerAnalysis.Result, isMeans: Bool, usersPerDay: Int?, days: Int?, sequential: GroupSequentialPlan? = nil
  ) -> String {
    func mark(_ what: PowerAnalysis.Unknown) -> String { r.solvedFor == what ? "   ← solved" : "" }
    var out = "Power analysis · \(r.method) · \(Vocabulary.word(r.alternative))\n\n"
    out += headline(r, isMeans: isMeans, usersPerDay: usersPerDay, days: days, sequential: sequential) + "\n\n"
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
      out += "  duration              \(Vocabulary.days(days)) at \(Vocabulary.plural(usersPerDay, "user"))/day\n"
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
          ("days", days.map { .integer($0) } ?? .null),
          ("sequentialMaxUsersPerArm", sequential.map { .integer(Int(rounding: $0.maxUsersPerArm, .up) ?? 0) } ?? .null),
          ("sequentialExpectedUsersPerArm", sequential.map { .integer(Int(rounding: $0.expectedUsersPerArm, .up) ?? 0) } ?? .null),
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
