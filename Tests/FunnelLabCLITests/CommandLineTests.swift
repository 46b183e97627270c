import Foundation
import FunnelLab
import FunnelTestSupport
import Testing

@testable import FunnelLabCLI

/// Runs the command line in-process and returns (exit code, stdout, stderr).
func funnellab(_ arguments: String...) -> (code: Int32, out: String, err: String) { funnellab(arguments) }

/// Runs the command line in-process with an argument array.
func funnellab(_ arguments: [String]) -> (code: Int32, out: String, err: String) {
  let console = CapturingConsole()
  let code = FunnelLabCommandLine.run(arguments, console: console)
  return (code, console.stdout, console.stderr)
}

/// A path named `name` in a fresh scratch folder (removed when the tests end), written with `contents` when given.
func temporaryFile(_ name: String, contents: String? = nil) throws -> String {
  let dir = try scratchFolder("file")
  let path = dir.appendingPathComponent(name).path
  if let contents { try contents.write(toFile: path, atomically: true, encoding: .utf8) }
  return path
}

@Suite struct CommandLineTests {
  /// `help` shows the overview or one command's help, and refuses anything else
  /// (found by the long fuzz run: `help --o x --bogus=nan` printed the overview, exit 0).
  @Test func helpTakesAtMostOneCommand() {
    #expect(funnellab("help").code == 0)
    #expect(funnellab("--help").out.contains("COMMANDS:"))
    let run = funnellab("help", "run")
    #expect(run.code == 0 && run.out.contains("funnellab run"))
    let typo = funnellab("help", "rnu")
    #expect(typo.code == 64 && typo.out.isEmpty)
    #expect(typo.err.contains("no command 'rnu' to show help for; did you mean 'run'?"))
    let extra = funnellab("help", "run", "--bogus=nan")
    #expect(extra.code == 64 && extra.err.contains("help takes one command, not '--bogus=nan'"))
    #expect(funnellab("help", "--o", "x", "--format", "markdown").code == 64)
    #expect(funnellab("-h", "nosuch").code == 64)
  }

  @Test func runWithoutArgumentsUsesTheBuiltInExperiment() {
    let r = funnellab("run", "--users", "5000")
    #expect(r.code == 0, "\(r.err)")
    #expect(r.out.hasPrefix("klick-onboarding · seed 20261121 · 5,000 users per variant"))
    for variant in ["control", "upsellAfter3", "goalOptional", "features3", "features5"] {
      #expect(r.out.contains("Variant \(variant)"))
    }
    #expect(r.out.contains("Compared with control"))
    #expect(r.err.isEmpty, "no progress bar outside a terminal")
  }

  @Test func jsonIsByteIdenticalForOneAndTwoThreadsAndAcrossRuns() {
    let path = experimentPath("klick-onboarding")
    let users = TestStage.size(fast: "6000", long: "40000")
    let one = funnellab("run", path, "--format", "json", "--threads", "1", "--users", users)
    let two = funnellab("run", path, "--format=json", "--threads=2", "--users", users)
    let again = funnellab("run", path, "--format", "json", "--threads", "2", "--users", users)
    #expect(one.code == 0)
    #expect(one.out == two.out)
    #expect(two.out == again.out)
    #expect(one.out.hasPrefix("{\n  \"schemaVersion\": 1,"))
  }

  @Test(arguments: ["klick-onboarding", "betfree-onboarding", "urbannest-onboarding", "ncdb-first-launch"])
  func everySeedExperimentRuns(name: String) {
    let r = funnellab("run", experimentPath(name), "--users", "3000")
    #expect(r.code == 0, "\(r.err)")
    #expect(r.out.contains("Variant control"))
  }

  @Test func validateAcceptsTheSeedsAndRejectsABadSpec() throws {
    let ok = funnellab("validate", experimentPath("klick-onboarding"), experimentPath("betfree-onboarding"))
    #expect(ok.code == 0)
    #expect(ok.out.contains("klick-onboarding.json: valid"))
    let bad = try temporaryFile("bad.json", contents: #"{"name": "x", "flow": {"screens": []}, "variants": []}"#)
    let r = funnellab("validate", bad)
    #expect(r.code == 65)
    #expect(r.err.contains("flow.screens (line 1): the flow has no screens"))
    #expect(r.err.contains("variants (line 1): the variant list is empty"))
    #expect(r.err.contains("Error: 2 problems in"))
  }

  @Test func anInvalidSpecProducesNoResult() throws {
    let text = try String(contentsOfFile: experimentPath("klick-onboarding"), encoding: .utf8)
      .replacingOccurrences(of: "\"continue\": 0.86", with: "\"continue\": 1.3")
    let path = try temporaryFile("broken.json", contents: text)
    let output = try temporaryFile("out.json")
    let r = funnellab("run", path, "-o", output)
    #expect(r.code == 65)
    #expect(r.out.isEmpty)
    #expect(r.err.contains("flow.screens[0].actions.continue.probability"))
    #expect(r.err.contains("nothing was run"))
    #expect(!FileManager.default.fileExists(atPath: output))
  }

  struct UsageCase: Sendable, CustomTestStringConvertible {
    var arguments: [String]
    var code: Int32
    var message: String
    var testDescription: String { arguments.joined(separator: " ") }
  }

  static let usageCases: [UsageCase] = [
    UsageCase(arguments: ["rnu"], code: 64, message: "Error: unknown command 'rnu'; did you mean 'run'?"),
    UsageCase(arguments: ["run", "--usrs", "10"], code: 64, message: "Error: unknown option '--usrs'; did you mean '--users'?"),
    UsageCase(arguments: ["run", "--users"], code: 64, message: "Error: --users needs a value <n>"),
    UsageCase(arguments: ["run", "--users", "ten"], code: 64, message: "Error: --users expects a whole number, got 'ten'"),
    UsageCase(
      arguments: ["run", "--users", "1000.5"], code: 64, message: "Error: --users expects a whole number, got '1000.5'; e.g. --users 1001"),
    UsageCase(arguments: ["run", "--users", "0"], code: 64, message: "Error: --users must be from 1 to"),
    UsageCase(arguments: ["run", "--threads", "0"], code: 64, message: "Error: --threads must be from 1 to 1024"),
    UsageCase(
      arguments: ["run", "--format", "xml"], code: 64, message: "Error: --format must be one of table, json, csv, markdown, html, got 'xml'"
    ),
    UsageCase(arguments: ["run", "--seed", "-1"], code: 64, message: "Error: --seed expects a whole number"),
    UsageCase(arguments: ["run", "a.json", "b.json"], code: 64, message: "Error: unexpected argument 'b.json'"),
    UsageCase(arguments: ["run", "--quiet=yes"], code: 64, message: "Error: --quiet takes no value"),
    UsageCase(arguments: ["run", "--users", "5", "--users", "6"], code: 64, message: "Error: --users was given more than once"),
    UsageCase(arguments: ["validate"], code: 64, message: "Error: missing argument <spec>"),
    UsageCase(
      arguments: ["run", "/nonexistent/spec.json"], code: 66, message: "Error: /nonexistent/spec.json: no such file; check the path."),
    UsageCase(
      arguments: ["run", "--variant", "nope", "--users", "10"], code: 64,
      message: "Error: --variant 'nope': klick-onboarding has no such variant"),
    UsageCase(
      arguments: ["run", "--users", "10", "-o", "/dev/null/dir/out.txt"], code: 73,
      message: "Error: cannot write '/dev/null/dir/out.txt': /dev/null is a file, not a folder"),
  ]

  @Test(arguments: usageCases)
  func badCommandLinesFailWithAClearMessage(_ c: UsageCase) {
    let console = CapturingConsole()
    let code = FunnelLabCommandLine.run(c.arguments, console: console)
    #expect(code == c.code)
    #expect(console.stderr.hasPrefix(c.message), "stderr: \(console.stderr)")
    #expect(console.stdout.isEmpty)
  }

  @Test func everyCommandHasHelp() {
    for command in ["run", "validate"] {
      let r = funnellab(command, "--help")
      #expect(r.code == 0)
      #expect(r.out.contains("USAGE: funnellab \(command)"))
      #expect(r.out.contains("EXAMPLES:"))
    }
    let top = funnellab("--help")
    #expect(top.out.contains("EXIT CODES:"))
    #expect(top.out.contains("65"))
    #expect(funnellab("--version").out == "funnellab \(FunnelLabCommandLine.version)\n")
  }

  @Test func progressGoesToAStderrTerminalOnlyAndNeverChangesTheResult() {
    let terminal = CapturingConsole(terminal: true)
    #expect(FunnelLabCommandLine.run(["run", "--users", "300000", "--variant", "goalOptional"], console: terminal) == 0)
    #expect(terminal.stderr.contains("simulating"))
    #expect(terminal.stderr.contains("100%"))
    let quiet = CapturingConsole(terminal: true)
    #expect(FunnelLabCommandLine.run(["run", "--users", "300000", "--variant", "goalOptional", "--quiet"], console: quiet) == 0)
    #expect(quiet.stderr.isEmpty)
    #expect(quiet.stdout == terminal.stdout)
  }

  /// check draws a bar over the expectations of every spec on a terminal (-q hides it), exact
  /// one over the variants it solves.
  @Test func checkAndExactShowProgressOnATerminal() {
    let specs = ["experiments/klick-onboarding.json", "experiments/urbannest-onboarding.json"]
    let terminal = CapturingConsole(terminal: true)
    #expect(FunnelLabCommandLine.run(["check"] + specs, console: terminal) == 0)
    #expect(terminal.stderr.contains("check █") && terminal.stderr.contains("100%"), "\(terminal.stderr)")
    let quiet = CapturingConsole(terminal: true)
    #expect(FunnelLabCommandLine.run(["check", "-q"] + specs, console: quiet) == 0)
    #expect(quiet.stderr.isEmpty && quiet.stdout == terminal.stdout)
    // exact: a bar over the variants it solves.
    let exact = CapturingConsole(terminal: true)
    #expect(FunnelLabCommandLine.run(["exact", "experiments/betfree-onboarding.json"], console: exact) == 0)
    #expect(exact.stderr.contains("solving █") && exact.stderr.contains("100%"), "\(exact.stderr)")
  }

  @Test func outputFileHoldsTheSameBytesAsStdout() throws {
    let path = try temporaryFile("run.json")
    let toFile = funnellab("run", "--users", "2000", "--format", "json", "-o", path)
    let toStdout = funnellab("run", "--users", "2000", "--format", "json")
    #expect(toFile.code == 0)
    #expect(toFile.out.isEmpty)
    #expect(try String(contentsOfFile: path, encoding: .utf8) == toStdout.out)
  }
}

/// Runs the built executable as a separate process (end to end), when it exists.
@Suite struct ExecutableTests {
  static var binary: URL? {
    let candidates = ["debug", "release"].map { repositoryRoot.appendingPathComponent(".build/\($0)/funnellab") }
    return candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) }
  }

  @Test(.enabled(if: binary != nil)) func processExitCodesAndStreams() throws {
    let binary = try #require(Self.binary)
    func run(_ args: [String]) throws -> (Int32, String, String) {
      let p = Process()
      p.executableURL = binary
      p.arguments = args
      let out = Pipe(), err = Pipe()
      p.standardOutput = out
      p.standardError = err
      try p.run()
      let o = out.fileHandleForReading.readDataToEndOfFile()
      let e = err.fileHandleForReading.readDataToEndOfFile()
      p.waitUntilExit()
      return (p.terminationStatus, String(decoding: o, as: UTF8.self), String(decoding: e, as: UTF8.self))
    }
    let ok = try run(["run", "--users", "1000", "--variant", "goalOptional"])
    #expect(ok.0 == 0)
    #expect(ok.1.contains("Variant goalOptional"))
    let bad = try run(["run", "--bogus"])
    #expect(bad.0 == 64)
    #expect(bad.2.hasPrefix("Error: unknown option '--bogus'"))
  }
}

@Suite struct GridAndExperimentCommandTests {
  @Test func gridIsByteIdenticalForOneAndTwoThreads() {
    let users = TestStage.size(fast: "1000", long: "20000")
    let one = funnellab("grid", "--users", users, "--threads", "1", "--format", "json")
    let two = funnellab("grid", "--users", users, "--threads", "2", "--format", "json")
    #expect(one.code == 0, "\(one.err)")
    #expect(one.out == two.out)
    #expect(one.out.contains("\"command\": \"grid\""))
  }

  /// Holm and BH in the grid report match statsmodels' multipletests on the same raw
  /// p-values (fixture made by scripts/make-grid-fixture.py).
  @Test(.longStage) func gridAdjustedPValuesMatchStatsmodels() throws {
    let fixtureURL = repositoryRoot.appendingPathComponent("Tests/FunnelLabCLITests/Fixtures/klick-grid-adjusted.json")
    let fixture = try JSONParser.parse(String(contentsOf: fixtureURL, encoding: .utf8))
    let run = funnellab("grid", "--users", "20000", "--format", "json")
    let report = try JSONParser.parse(run.out)
    guard case .array(let expected)? = fixture["cells"]?.kind, case .array(let cells)? = report["cells"]?.kind else {
      Issue.record("malformed fixture or report")
      return
    }
    func number(_ v: JSONValue?) -> Double? {
      if case .number(let x, _)? = v?.kind { return x }
      return nil
    }
    #expect(expected.count == 18)
    for e in expected {
      guard case .string(let id)? = e["id"]?.kind, let cell = cells.first(where: { $0["id"]?.kind == .string(id) }) else {
        Issue.record("cell missing")
        continue
      }
      for (key, reference) in [("pValue", "pValue"), ("holm", "holm"), ("benjaminiHochberg", "benjaminiHochberg")] {
        let x = try #require(number(cell[key]), "\(id) \(key)")
        let y = try #require(number(e[reference]))
        #expect(abs(x - y) <= 1e-12 * max(1, abs(y)), "\(id) \(key): \(x) vs statsmodels \(y)")
      }
    }
  }

  @Test func gridNeedsAGrid() throws {
    let r = funnellab("grid", experimentPath("betfree-onboarding"))
    #expect(r.code == 65)
    #expect(r.err.hasPrefix("Error: betfree-onboarding has no \"grid\""))
  }

  @Test func experimentModeIsDeterministicAndShowsTheTruth() {
    let one = funnellab("run", "--mode", "experiment", "--users", "20000", "--threads", "1", "--format", "json")
    let two = funnellab("run", "--mode", "experiment", "--users", "20000", "--threads", "2", "--format", "json")
    #expect(one.code == 0, "\(one.err)")
    #expect(one.out == two.out)
    #expect(one.out.contains("\"trueDifference\""))
    let table = funnellab("run", "--mode", "experiment", "--users", "20000")
    #expect(table.out.contains("Sample ratio:"))
    #expect(table.out.contains("Decision (ship when purchase conversion is significantly better"))
  }
}
