import Foundation
import FunnelFuzz
import FunnelLab
import FunnelTestSupport
import Testing

@testable import FunnelLabCLI

/// Issue 58: names from data (arms, variant, screen and expectation ids, file paths) reach
/// every report format and message as text: no output line is a CI workflow command or a
/// terminal escape, whatever the command and format (`check --format github`'s own
/// annotations aside).
@Suite struct ForgedCommandTests {
  /// Arm names a command line can give (`--arm name=users:conversions`: no `=` in a name).
  static let armNames = [
    "::warning::x", "  ::error::z", "##[error]w", "%0A::notice::p", "\u{1B}[31mred", "\u{9B}31m", "\u{202E}gnp", "x\n::warning::y",
    "x\r::error::y", "##vso[task.setvariable]1",
  ]

  static let formats = ["table", "json", "csv", "markdown", "html"]

  /// Every output of a run, stdout and stderr, with the offending lines.
  func expectNoForgedLines(_ arguments: [String], annotations: Bool = false, sourceLocation: SourceLocation = #_sourceLocation) {
    let r = funnellab(arguments)
    let problems = forgedCommandLines(r.out, annotations: annotations) + forgedCommandLines(r.err)
    #expect(
      problems.isEmpty, "\(arguments.joined(separator: " ").debugDescription) → \(r.code): \(problems)", sourceLocation: sourceLocation)
  }

  @Test(arguments: formats)
  func analyzeArmFlags(format: String) {
    let arms = Self.armNames.enumerated().flatMap { i, name in ["--arm", "\(name)=1000:\(100 + 5 * i)"] }
    expectNoForgedLines(["analyze", "--arm", "control=1000:100"] + arms + ["--format", format])
  }

  @Test(arguments: formats)
  func analyzeDataFile(format: String) throws {
    let rows = Self.armNames.enumerated().map { i, name in "\"\(name)\",1000,\(100 + 5 * i)" }
    let data = try temporaryFile(
      "arms.csv", contents: (["arm,users,conversions", "control,1000,100"] + rows).joined(separator: "\n") + "\n")
    expectNoForgedLines(["analyze", "--data", data, "--format", format])
  }

  /// A file path that is a workflow command, in a message.
  @Test func aHostilePathInAMessage() throws {
    let dir = try scratchFolder("forged")
    let path = dir.appendingPathComponent("##[error]x\n::warning::y.csv").path
    expectNoForgedLines(["analyze", "--data", path])
  }

  /// A spec whose ids are hostile but legal: colons, `#` and brackets are allowed in ids.
  static let spec = """
    {"name": "::warning title=e::f ##[error]g", "seed": 1, "users": 2000,
     "flow": {"screens": [
       {"id": "::screen", "kind": "info", "actions": {"continue": 0.8, "quit": 0.2}},
       {"id": "##[error]goal", "kind": "info", "actions": {"continue": 0.9, "quit": 0.1}}]},
     "variants": [{"id": "::warning::x", "description": "d\\n::warning::d \\u001b[31m ##[error]e"}, {"id": "  ::error::z",
       "patches": [{"op": "setAction", "screen": "::screen", "action": "continue", "probability": 0.7},
         {"op": "setAction", "screen": "::screen", "action": "quit", "probability": 0.3}]},
       {"id": "##vso[task.complete]v"}],
     "expectations": [
       {"id": "::warning title=x::passes", "kind": "range", "variant": "::warning::x", "metric": "completionRate", "min": 0, "max": 1},
       {"id": "##[error]fails", "kind": "range", "variant": "  ::error::z", "metric": "completionRate", "min": 0.99, "max": 1}]}
    """

  @Test(arguments: formats)
  func exactAndRun(format: String) throws {
    let spec = try temporaryFile("hostile.json", contents: Self.spec)
    let valid = funnellab(["validate", spec])
    #expect(valid.code == 0, "\(valid.err)")
    expectNoForgedLines(["exact", spec, "--format", format])
    expectNoForgedLines(["run", spec, "--format", format])
  }

  @Test(arguments: ["table", "json", "markdown", "html", "github"])
  func check(format: String) throws {
    let spec = try temporaryFile("hostile.json", contents: Self.spec)
    let junit = try temporaryFile("junit.xml")
    let r = funnellab(["check", spec, "--format", format, "--junit", junit])
    #expect(r.code == 1, "\(r.out)\(r.err)")
    expectNoForgedLines(["check", spec, "--format", format], annotations: format == "github")
    let xml = try String(contentsOfFile: junit, encoding: .utf8)
    #expect(forgedCommandLines(xml).isEmpty, "\(xml)")
    if format == "github" { #expect(r.out.components(separatedBy: "\n::error file=").count == 2, "\(r.out)") }
  }

  @Test(arguments: ["table", "json", "markdown"])
  func diff(format: String) throws {
    let spec = try temporaryFile("hostile.json", contents: Self.spec)
    let moved = try temporaryFile(
      "moved.json", contents: Self.spec.replacingOccurrences(of: "\"continue\": 0.9", with: "\"continue\": 0.5"))
    expectNoForgedLines(["diff", spec, moved, "--format", format])
  }

  /// Ids with control characters are refused where they are defined, naming the JSON path (65).
  @Test(arguments: [
    ("\"name\": \"::warning title=e::f ##[error]g\"", "\"name\": \"a\\nb\"", "name"),
    ("\"id\": \"::warning::x\",", "\"id\": \"x\\u001b[31m\",", "variants[0].id"),
    ("\"id\": \"::screen\"", "\"id\": \"s\\r::error::q\"", "flow.screens[0].id"),
    ("{\"continue\": 0.8, \"quit\": 0.2}", "{\"continue\": 0.8, \"q\\u202euit\": 0.2}", "flow.screens[0].actions"),
  ])
  func controlCharactersInIdsAreRefused(original: String, replacement: String, path: String) throws {
    let text = Self.spec.replacingOccurrences(of: original, with: replacement)
    try #require(text != Self.spec)
    let r = funnellab(["validate", try temporaryFile("bad.json", contents: text)])
    #expect(r.code == 65, "\(r.err)")
    #expect(r.err.contains(path), "\(r.err)")
    #expect(forgedCommandLines(r.out + r.err).isEmpty, "\(r.err)")
  }
}
