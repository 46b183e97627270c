import Foundation
import FunnelTestSupport
import Testing

@testable import FunnelLab
@testable import FunnelLabCLI

/// Every example in every command's `--help` runs as written (from the repository
/// root), with its output files sent to a temporary folder.
@Suite struct HelpExampleTests {
  /// The EXAMPLES of a help text, one command each: a line ending in ` \\` continues on the
  /// next (a long example folded to the width), and a `# …` line above a command is its comment.
  static func examples(inHelp help: String) -> [String] {
    guard let start = help.range(of: "\nEXAMPLES:\n") else { return [] }
    var commands: [String] = []
    var pending = ""
    for line in help[start.upperBound...].split(separator: "\n").map({ $0.trimmingCharacters(in: .whitespaces) }) {
      guard !line.isEmpty, !line.hasPrefix("#") else { continue }
      if line.hasSuffix(" \\") {
        pending += line.dropLast(2) + " "
      } else {
        commands.append(pending + line)
        pending = ""
      }
    }
    return commands
  }

  static var commands: [String] { FunnelLabCommandLine.commands.map(\.spec.name) }

  @Test func everyCommandHasExamples() {
    for name in Self.commands {
      let help = funnellab(name, "--help").out
      #expect(!Self.examples(inHelp: help).isEmpty, "\(name) --help has no example")
    }
  }

  /// One example as argument vectors: the program name dropped, a `| …` pipe and a
  /// `# …` comment cut, globs expanded, inputs under the repository (or under `folder`, where
  /// an earlier example of the command wrote them), outputs under `folder`. An example writing shard 0/n stands for all n shards (its comment
  /// says so), so all of them are run.
  static func argumentVectors(_ line: String, folder: URL) throws -> [[String]] {
    var text = line
    if let pipe = text.range(of: " | ") { text = String(text[..<pipe.lowerBound]) }
    if let comment = text.range(of: "  #") { text = String(text[..<comment.lowerBound]) }
    var words = text.split(separator: " ").map(String.init)
    #expect(words.first == "funnellab")
    words.removeFirst()
    var arguments: [String] = []
    var isOutput = false
    for word in words {
      // Every option that names a file the command writes (the command line's own list), so no example writes into the repository.
      defer { isOutput = (["-o"] + FunnelLabCommandLine.outputOptionNames.map { "--" + $0 }).contains(word) }
      if isOutput {
        arguments.append(folder.appendingPathComponent(word).path)
      } else if word.contains("*") {
        arguments += try expand(word, roots: [repositoryRoot, folder])
      } else if !word.hasPrefix("-"), FileManager.default.fileExists(atPath: repositoryRoot.appendingPathComponent(word).path) {
        arguments.append(repositoryRoot.appendingPathComponent(word).path)
      } else if !word.hasPrefix("-"), FileManager.default.fileExists(atPath: folder.appendingPathComponent(word).path) {
        arguments.append(folder.appendingPathComponent(word).path)
      } else {
        arguments.append(word)
      }
    }
    guard let i = arguments.firstIndex(of: "--shard"), i + 1 < arguments.count, arguments[i + 1].hasPrefix("0/"),
      let n = Int(arguments[i + 1].dropFirst(2))
    else { return [arguments] }
    return (0..<n).map { k in
      arguments.enumerated().map { j, a in
        j == i + 1 ? "\(k)/\(n)" : a.hasSuffix("/0.json") ? String(a.dropLast(6)) + "/\(k).json" : a
      }
    }
  }

  /// A `folder/*.ext` glob, in the first root where the folder exists, sorted as a shell does.
  static func expand(_ glob: String, roots: [URL]) throws -> [String] {
    let folder = (glob as NSString).deletingLastPathComponent
    let suffix = String((glob as NSString).lastPathComponent.dropFirst())
    for root in roots {
      let dir = root.appendingPathComponent(folder)
      guard let names = try? FileManager.default.contentsOfDirectory(atPath: dir.path) else { continue }
      return names.filter { $0.hasSuffix(suffix) }.sorted().map { dir.appendingPathComponent($0).path }
    }
    return [glob]
  }

  /// The most a size option may ask for in the fast stage (the long stage runs every example as
  /// written): the fast stage checks that each example parses and runs, the long one its full cost.
  /// Replicates take the least `power` accepts.
  static let fastCaps: [String: Int] = [
    "--users": 1_000, "--users-per-day": 500, "--replicates": Limits.Planning.replicates.lowerBound, "--draws": 4, "--days": 5,
  ]

  /// The commands whose examples that name no size simulate the spec's own number of users
  /// (100,000 for Klick): the fast stage gives them ``fastCaps``' `--users`.
  static let simulatingCommands: Set<String> = ["run", "grid"]

  /// `arguments` with every size option capped at ``fastCaps`` in the fast stage, and a
  /// simulation that names no size given the cap; unchanged in the long one.
  static func sized(_ arguments: [String]) -> [String] {
    guard !TestStage.isLong else { return arguments }
    var out = arguments
    for i in out.indices.dropLast() {
      guard let cap = fastCaps[out[i]], let value = Int(out[i + 1]), value > cap else { continue }
      out[i + 1] = String(cap)
    }
    let sizes = ["--users", "--users-per-day", "--parameter-uncertainty", "--exact"]
    if let command = out.first, simulatingCommands.contains(command), !out.contains(where: sizes.contains) {
      out += ["--users", String(fastCaps["--users"] ?? 1_000)]
    }
    return out
  }

  @Test func fastCapsLowerOnlyTheSizesAboveThem() {
    let example = ["run", "x.json", "--users", "200000", "--days", "3", "--seed", "99999"]
    let fast = ["run", "x.json", "--users", "1000", "--days", "3", "--seed", "99999"]
    #expect(Self.sized(example) == (TestStage.isLong ? example : fast))
    #expect(Self.sized(["grid"]) == (TestStage.isLong ? ["grid"] : ["grid", "--users", "1000"]))
    #expect(Self.sized(["exact"]) == ["exact"])
    #expect(Self.sized(["grid", "--exact"]) == ["grid", "--exact"])
  }

  /// How many of a command's examples run, in order: the first two in the fast stage (a
  /// command's first examples are its plainest, and a merge's shard example comes before the
  /// merge), every one in the long stage.
  static let examplesRun = TestStage.size(fast: 2, long: Int.max)

  /// Every command's examples in order (the first ``examplesRun`` of them), one folder per
  /// command (a merge example reads what the command's shard example wrote). Off a terminal
  /// and without `COLUMNS`, the help and every example's terminal output fit 100 columns.
  @Test(arguments: commands)
  func everyExampleRuns(command: String) throws {
    let folder = URL(fileURLWithPath: try temporaryFile("unused")).deletingLastPathComponent()
    let help = funnellab(command, "--help").out
    #expect(Self.wider(than: 100, help).isEmpty, "\(command) --help: \(Self.wider(than: 100, help))")
    for line in Self.examples(inHelp: help).prefix(Self.examplesRun) {
      for arguments in try Self.argumentVectors(line, folder: folder).map(Self.sized) {
        let r = funnellab(arguments)
        // Exit 0: `check` would exit 1 for a failed expectation, but the seeds' pass.
        #expect(r.code == 0, "\(line)\n\(r.err)")
        #expect(!r.out.isEmpty || arguments.contains("-o"), "\(line) printed nothing")
        // trace, ingest and schema write data (NDJSON, CSV, JSON) by default, not terminal text.
        let terminalText =
          !["trace", "ingest", "schema"].contains(command) && (!arguments.contains("--format") || arguments.contains("table"))
        if terminalText { #expect(Self.wider(than: 100, r.out).isEmpty, "\(line): \(Self.wider(than: 100, r.out))") }
      }
    }
  }

  /// The lines of `text` wider than `width` characters, but for a line that is one word (a
  /// long path, which nothing can fold).
  static func wider(than width: Int, _ text: String) -> [Substring] {
    text.split(separator: "\n").filter { $0.count > width && $0.split(separator: " ").count > 1 }
  }
}
