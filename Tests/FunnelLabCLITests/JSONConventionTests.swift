import Foundation
import FunnelLab
import FunnelTestSupport
import Testing

@testable import FunnelLabCLI

/// Every command's JSON report keeps the convention of docs/json-output.md: it parses, its first
/// key is `schemaVersion` (an integer) and its second `command` (the command's name), `experiment`,
/// `mode` and `seed` follow in that order when present, and every top-level key is in the key table
/// of the command's section, so a key added without its documentation fails here.
@Suite struct JSONConventionTests {
  /// One JSON report: its section in docs/json-output.md, the `command` it names, and a command line
  /// (without `--format json`) that writes it.
  struct Report: Sendable, CustomTestStringConvertible {
    var section: String
    var command: String
    var arguments: [String]
    var testDescription: String { arguments.joined(separator: " ") }
  }

  static let klick = "experiments/klick-onboarding.json"
  static let betfree = "experiments/betfree-onboarding.json"

  static let reports: [Report] = [
    Report(section: "run", command: "run", arguments: ["run", klick, "--users", "200", "-q"]),
    Report(section: "run --mode experiment", command: "run", arguments: ["run", klick, "--mode", "experiment", "--users", "500", "-q"]),
    Report(section: "grid", command: "grid", arguments: ["grid", klick, "--users", "100", "-q"]),
    Report(section: "grid --exact", command: "grid", arguments: ["grid", klick, "--exact", "-q"]),
    Report(section: "exact", command: "exact", arguments: ["exact", betfree]),
    Report(
      section: "run and exact --parameter-uncertainty", command: "exact",
      arguments: ["exact", betfree, "--parameter-uncertainty", "--variant", "yearlyPrice4999", "--draws", "5"]),
    Report(section: "power (formula)", command: "power", arguments: ["power", "--baseline", "0.1", "--mde", "0.02"]),
    Report(
      section: "power (formula)", command: "power",
      arguments: ["power", "--method", "means", "--sd", "2", "--baseline", "5", "--mde", "0.5"]),
    Report(
      section: "power with a spec (simulation)", command: "power",
      arguments: ["power", klick, "--variant", "features5", "--replicates", "100", "--users-per-day", "20000"]),
    Report(
      section: "run --mode bandit", command: "run",
      arguments: ["run", klick, "--mode", "bandit", "--users-per-day", "2000", "--days", "3", "-q"]),
    Report(
      section: "power --compare-bandit", command: "power",
      arguments: ["power", betfree, "--compare-bandit", "--users-per-day", "2000", "--days", "5", "--replicates", "100"]),
    Report(section: "analyze", command: "analyze", arguments: ["analyze", "--arm", "control=1000:120", "--arm", "b=1000:150"]),
    Report(
      section: "analyze", command: "analyze",
      arguments: ["analyze", "--data", "experiments/data/klick-results.csv", "--allocation", "control=90,b=10"]),
    Report(
      section: "analyze --users-file", command: "analyze",
      arguments: [
        "analyze", "--users-file", "experiments/data/betfree-users.csv", "--metric", "revenue", "--covariate", "pre_sessions",
        "--ratio", "revenue/purchases",
      ]),
    Report(
      section: "infer", command: "infer",
      arguments: [
        "infer", "experiments/data/klick-events.ndjson", "--events-map", "experiments/data/klick-events-map.json", "--variant-property",
        "variant", "--variant", "control", "-o", "/dev/null",
      ]),
    Report(section: "check", command: "check", arguments: ["check", "experiments/urbannest-onboarding.json"]),
    Report(
      section: "check", command: "check",
      arguments: ["check", klick, "--baseline", "experiments/baselines/klick-onboarding.json"]),
    Report(section: "diff", command: "diff", arguments: ["diff", "experiments/baselines/klick-onboarding.json", klick]),
    Report(
      section: "sensitivity", command: "sensitivity",
      arguments: ["sensitivity", betfree, "--vary", "priceSensitivity=0.5:2:0.5", "--metric", "revenuePerUser"]),
    Report(
      section: "calibrate", command: "calibrate",
      arguments: ["calibrate", "experiments/urbannest-onboarding.json", "experiments/urbannest-observed.csv"]),
  ]

  @Test(arguments: reports)
  func everyReportHasTheHeadAndDocumentedKeys(_ report: Report) throws {
    let r = funnellab(report.arguments + ["--format", "json"])
    #expect(r.code == 0, "\(r.err)")
    try expectConvention(r.out, command: report.command, section: report.section)
  }

  /// `merge` writes the document of the command it merges: `command` `"run"`, keys as in the run section.
  @Test func mergeWritesTheMergedCommandsDocument() throws {
    let folder = try scratchFolder("json")
    let parts = (0..<2).map { folder.appendingPathComponent("\($0).json").path }
    for (k, path) in parts.enumerated() {
      let r = funnellab(["run", Self.klick, "--users", "200", "-q", "--shard", "\(k)/2", "-o", path])
      try #require(r.code == 0, "\(r.err)")
    }
    let merged = funnellab(["merge"] + parts + ["--format", "json"])
    #expect(merged.code == 0, "\(merged.err)")
    try expectConvention(merged.out, command: "run", section: "run")
  }

  /// The documentation check reads each row's keys (alternatives included) from the first table of a section
  /// only: a nested object's keys do not document a top-level key.
  @Test func documentedKeysAreReadFromTheSectionsKeyTable() throws {
    let power = try Self.documentedKeys(section: "power (formula)")
    #expect(power.contains(["treatmentRate", "meanDifference"]))
    let run = try Self.documentedKeys(section: "run").flatMap { $0 }
    #expect(run.contains("usersPerVariant") && !run.contains("users"))
  }

  /// Checks the head, its order and that every top-level key of `text` is documented in `section`, and that
  /// every row of the section's key table names at least one key the document has (a row may list
  /// alternatives, e.g. `treatmentRate` or `meanDifference`).
  func expectConvention(_ text: String, command: String, section: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
    let document = try JSONParser.parse(text)
    guard case .object(let members) = document.kind else {
      Issue.record("not a JSON object", sourceLocation: sourceLocation)
      return
    }
    let keys = members.map(\.key)
    #expect(keys.first == "schemaVersion", sourceLocation: sourceLocation)
    if case .number(_, let literal)? = members.first?.value.kind {
      #expect(Int(literal) != nil, "schemaVersion \(literal) is not an integer", sourceLocation: sourceLocation)
    } else {
      Issue.record("schemaVersion is not a number", sourceLocation: sourceLocation)
    }
    #expect(keys.dropFirst().first == "command", sourceLocation: sourceLocation)
    #expect(document["command"]?.kind == .string(command), sourceLocation: sourceLocation)
    let head = ["schemaVersion", "command", "experiment", "mode", "seed"]
    #expect(Array(keys.prefix(while: head.contains)) == head.filter(keys.contains), "head: \(keys)", sourceLocation: sourceLocation)
    let rows = try Self.documentedKeys(section: section)
    let documented = Set(rows.flatMap { $0 })
    for key in keys where !documented.contains(key) {
      Issue.record("`\(key)` is not in the key table of section '\(section)' of docs/json-output.md", sourceLocation: sourceLocation)
    }
    for row in rows where !row.contains(where: keys.contains) {
      Issue.record("docs/json-output.md '\(section)' documents \(row), which the document lacks", sourceLocation: sourceLocation)
    }
  }

  /// The backticked keys in the first column of the first table under `## <section>` of docs/json-output.md,
  /// one array per row.
  static func documentedKeys(section: String) throws -> [[String]] {
    let url = repositoryRoot.appendingPathComponent("docs/json-output.md")
    let lines = try String(contentsOf: url, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
    let start = try #require(lines.firstIndex(of: "## \(section)"), "no section '## \(section)' in docs/json-output.md")
    let body = lines[(start + 1)...].prefix { !$0.hasPrefix("## ") }
    let table = body.drop { !$0.hasPrefix("|") }.prefix { $0.hasPrefix("|") }
    try #require(table.count > 2, "section '\(section)' has no key table")
    return table.dropFirst(2).map { row in
      let firstCell = row.split(separator: "|", omittingEmptySubsequences: false).dropFirst().first ?? ""
      return firstCell.split(separator: "`", omittingEmptySubsequences: false).enumerated().compactMap { i, part in
        i % 2 == 1 ? String(part) : nil
      }
    }
  }
}
