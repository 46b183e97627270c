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
    try? FileManager.default.removeItem(at: folder)
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    for (name, bytes) in c.files { try Data(bytes).write(to: folder.appendingPathComponent(name)) }
    for case (let name, let before?) in c.outputs {
      let url = folder.appendingPathComponent(name)
      try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
      try Data(before).write(to: url)
    }
    let console = CapturingConsole(standardInput: c.standardInput)
    let code = FunnelLabCommandLine.run(c.arguments(in: folder.path), console: console)
    var outputs: [String: [UInt8]?] = [:]
    for name in c.outputs.keys { outputs[name] = .some((try? Data(contentsOf: folder.appendingPathComponent(name))).map(Array.init)) }
    return FuzzRun(
      code: code, stdout: Array(console.stdout.utf8), stderr: Array(console.stderr.utf8), outputs: outputs,
      folderNames: (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? [])
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
