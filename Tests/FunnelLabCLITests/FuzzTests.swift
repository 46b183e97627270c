import Foundation
import FunnelFuzz
import FunnelTestSupport
import Testing

@testable import FunnelLabCLI

/// The seeded fuzz suite, in-process: a few thousand generated cases (mutated
/// seed specs, command lines of every command, tampered shard files, malformed
/// CSVs, hostile ids) must each exit with a documented code, explain a failure in
/// one line, leave outputs untouched on failure and keep markup and terminal
/// escapes out of reports. A trap would kill the test process: the same generator
/// runs as subprocesses in `scripts/fuzz.sh` (its last result is in the README).
@Suite struct FuzzTests {
  static let casesPerChunk = 200
  /// All 12 chunks (2,400 cases) in the long stage; two of them (400 cases) in the fast one.
  static let chunks = TestStage.size(fast: [0, 6], long: Array(0..<12))

  /// The seeds, and shard files made by the command line itself.
  static let generator: FuzzGenerator = {
    let names = ["klick-onboarding.json", "betfree-onboarding.json", "urbannest-onboarding.json", "ncdb-first-launch.json"]
    func read(_ path: String) -> String {
      (try? String(contentsOf: repositoryRoot.appendingPathComponent(path), encoding: .utf8)) ?? ""
    }
    let sets = FuzzSeeds.shardCommands(klick: experimentPath("klick-onboarding"), urbannest: experimentPath("urbannest-onboarding")).prefix(
      1
    ).map {
      set in
      set.map { funnellab($0).out }
    }
    let seeds = FuzzSeeds(
      specs: names.map { ($0, read("experiments/\($0)")) },
      observed: (read("experiments/urbannest-onboarding.json"), read("experiments/urbannest-observed.csv")), shardSets: sets,
      baseline: funnellab(FuzzSeeds.baselineCommand(urbannest: experimentPath("urbannest-onboarding"))).out)
    // Numbers at the edges of their types (1e308, 2⁶³…) are the bounds' work: they
    // run in scripts/fuzz.sh, where a trap is counted instead of ending the tests.
    return FuzzGenerator(seed: 20_261_123, seeds: seeds, extremeNumbers: false, quick: true)
  }()

  /// Runs one case in-process in a fresh folder.
  static func run(_ c: FuzzCase, in folder: URL) throws -> FuzzRun {
    try c.lay(in: folder.path)
    let console = CapturingConsole(
      standardInput: c.standardInput, standardInputFile: c.standardInputFile.map { folder.appendingPathComponent($0).path })
    let code = FunnelLabCommandLine.run(c.arguments(in: folder.path), console: console)
    let after = c.observe(folder.path)
    return FuzzRun(
      code: code, stdout: Array(console.stdout.utf8), stderr: Array(console.stderr.utf8), outputs: after.outputs,
      folderNames: after.names, inputs: after.inputs)
  }

  @Test(arguments: chunks)
  func generatedCasesKeepEveryPromise(chunk: Int) throws {
    let base = URL(fileURLWithPath: try temporaryFile("unused")).deletingLastPathComponent()
    var failures: [String] = []
    var codes: [Int32: Int] = [:]
    for index in chunk * Self.casesPerChunk..<(chunk + 1) * Self.casesPerChunk {
      let c = Self.generator.generate(index)
      let result = try Self.run(c, in: base.appendingPathComponent("case"))
      codes[result.code ?? -1, default: 0] += 1
      for finding in c.judge(result) {
        let message = String(decoding: result.stderr, as: UTF8.self).split(separator: "\n").first ?? ""
        failures.append("case \(index) [\(c.kind.rawValue)] \(finding): \(c.shellLine)\n  \(message)")
      }
    }
    #expect(failures.isEmpty, "\(failures.count) findings:\n\(failures.prefix(15).joined(separator: "\n"))")
    #expect(
      codes.keys.contains(0) && codes.keys.contains(65) && codes.keys.contains(64),
      "the mix covers success and both kinds of failure: \(codes)")
  }

  /// The event-log cases reach `ingest`'s and `infer`'s successes and their refusals, not
  /// only usage errors.
  @Test func eventLogCasesReachSuccessAndRefusal() throws {
    let base = URL(fileURLWithPath: try temporaryFile("unused")).deletingLastPathComponent()
    let cases = (0..<4000).lazy.map { Self.generator.generate($0) }.filter { $0.kind == .eventLog }.prefix(120)
    var codes: [String: [Int32: Int]] = [:]
    for c in cases {
      let result = try Self.run(c, in: base.appendingPathComponent("case"))
      codes[c.rawArguments.first ?? "", default: [:]][result.code ?? -1, default: 0] += 1
      #expect(c.judge(result).isEmpty, "\(c.shellLine): \(c.judge(result))")
    }
    let ingest = codes["ingest", default: [:]]
    let infer = codes["infer", default: [:]]
    #expect(ingest[0, default: 0] >= 10 && ingest[65, default: 0] >= 10 && ingest[64, default: 0] >= 1, "ingest: \(ingest)")
    #expect(infer[0, default: 0] >= 3 && infer[65, default: 0] >= 3, "infer: \(infer)")
  }

  /// The collision cases (outputs that are inputs by another name, two outputs on one file,
  /// `/dev/full` after a file) reach their refusals (64) and failures (73) with every input kept.
  @Test func collisionCasesAreRefusedWithEveryInputKept() throws {
    let base = URL(fileURLWithPath: try temporaryFile("unused")).deletingLastPathComponent()
    let cases = (0..<4000).lazy.map { Self.generator.generate($0) }.filter { $0.kind == .collision }.prefix(60)
    var codes: [Int32: Int] = [:]
    for c in cases {
      let result = try Self.run(c, in: base.appendingPathComponent("case"))
      codes[result.code ?? -1, default: 0] += 1
      #expect(c.judge(result).isEmpty, "\(c.shellLine): \(c.judge(result))")
      #expect(result.inputs.count == c.files.count, "the inputs were observed")
    }
    #expect(codes[64, default: 0] >= 10 && codes[73, default: 0] >= 3 && codes[0, default: 0] >= 3, "\(codes)")
  }

  /// The judge flags what a CI runner or a terminal would act on, in any output, and an input the run changed.
  @Test func theJudgeFlagsForgedCommandsAndChangedInputs() {
    var c = FuzzCase(index: 0, kind: .collision, rawArguments: ["exact", "x", "-o", "{case}/out.txt"])
    c.files["x"] = Array("spec".utf8)
    c.outputs["out.txt"] = .some(nil)
    func run(out: String, output: String = "", input: String = "spec") -> FuzzRun {
      FuzzRun(
        code: 0, stdout: Array(out.utf8), stderr: [], outputs: ["out.txt": .some(Array(output.utf8))], folderNames: [],
        inputs: ["x": .some(Array(input.utf8))])
    }
    #expect(c.judge(run(out: "ok\n")).isEmpty)
    #expect(c.judge(run(out: "a\r  ::warning title=x::y\n")).contains { $0.bucket == "forged workflow command" })
    #expect(c.judge(run(out: "", output: "x ##[error]y")).contains { $0.bucket == "forged workflow command" })
    #expect(c.judge(run(out: "", input: "spec!")) == [.inputChanged("x")])
  }

  @Test func theGeneratorIsDeterministic() {
    for index in [0, 1, 77, 2_999] {
      #expect(Self.generator.generate(index) == Self.generator.generate(index))
    }
    #expect(Self.generator.generate(1) != Self.generator.generate(2))
  }

  /// The judge reads the format as the CLI does (`--format=csv` was taken for a table,
  /// and CSV's CRLF line ends for raw control characters, in the long run).
  @Test func theJudgeReadsTheFormatAsTheCommandLineDoes() {
    #expect(FuzzCase.format(of: ["run", "--format=csv"]) == "csv")
    #expect(FuzzCase.format(of: ["run", "-f", "json", "--format", "markdown"]) == "markdown")
    #expect(FuzzCase.format(of: ["run", "--users", "10"]) == "table")
    #expect(FuzzCase.format(of: ["run", "-f"]) == "table")
  }
}
