import Foundation
import FunnelLab
import FunnelReport
import FunnelTestSupport
import Testing

@testable import FunnelLabCLI

/// Shards merged in any order give the single run's bytes; every refusal case.
@Suite struct ShardingTests {
  func writeShards(_ base: [String], count: Int, order: [Int], environment: [String: String] = [:]) throws -> [String] {
    var paths: [String] = []
    for i in order {
      let path = try temporaryFile("part-\(i).json")
      let r = funnellab(base + ["--shard", "\(i)/\(count)", "-o", path])
      #expect(r.code == 0, "\(r.err)")
      paths.append(path)
    }
    return paths
  }

  /// The shard orders merged and compared in JSON: three in the long stage, one in the fast; the
  /// last one's shards are merged in the other formats too.
  static let orders = TestStage.size(fast: [[3, 1, 0, 2]], long: [[0, 1, 2, 3], [3, 1, 0, 2], [2, 0, 3, 1]])
  /// The other formats compared: every one in the long stage, the HTML (the most rendering) in the fast.
  static let otherFormats = TestStage.size(fast: ["html"], long: ["table", "csv", "markdown", "html"])

  @Test(arguments: [
    ["run", "--users", "9000"],
    ["grid", "--users", TestStage.size(fast: "1000", long: "3000")],
    [
      "power", experimentPath("klick-onboarding"), "--variant", "features5", "--replicates", TestStage.size(fast: "200", long: "400"),
      "--users-per-day", "20000",
    ],
  ])
  func fourShardsMergeToTheSingleRunInAnyOrder(base: [String]) throws {
    // One single run, written as JSON and read in the other formats from the report it wrote.
    let formats = try Self.otherFormats.map { try #require(ReportFormat(rawValue: $0)) }
    let single = CapturingConsole(alsoRendering: formats)
    #expect(FunnelLabCommandLine.run(base + ["--format", "json"], console: single) == 0, "\(single.stderr)")
    var parts: [String] = []
    for order in Self.orders {
      parts = try writeShards(base, count: 4, order: order)
      let merged = funnellab(["merge"] + parts + ["--format", "json"])
      #expect(merged.code == 0, "\(merged.err)")
      #expect(merged.out == single.stdout, "\(base[0]) shards \(order)")
    }
    // The other formats of the single run too, byte for byte (HTML, CSV, Markdown, the table),
    // from the last order's shards.
    for format in formats {
      let merged = funnellab(["merge"] + parts + ["--format", format.rawValue])
      #expect(merged.code == 0, "\(merged.err)")
      #expect(merged.out == single.rendering(format), "\(base[0]) --format \(format.rawValue)")
    }
  }

  /// `grid --exact` in 1, 3 and 7 shards, merged in any order: the single run's bytes in every
  /// format (a shard takes whole blocks of cells that walk alike; 7 shards of the 18-cell grid
  /// leave some shards a single block). The fast stage merges the 7 shards only.
  @Test(arguments: TestStage.size(fast: [(7, [6, 3, 0, 5, 1, 4, 2])], long: [(1, [0]), (3, [2, 0, 1]), (7, [6, 3, 0, 5, 1, 4, 2])]))
  func exactGridShardsMergeToTheSingleRun(count: Int, order: [Int]) throws {
    let base = ["grid", "--exact", "-q"]
    let parts = try writeShards(base, count: count, order: order)
    // One single run, written as JSON and read as CSV and the table from the report it wrote.
    let single = CapturingConsole(alsoRendering: [.csv, .table])
    #expect(FunnelLabCommandLine.run(base + ["--format", "json", "--top", "4"], console: single) == 0, "\(single.stderr)")
    for format in [ReportFormat.json, .csv, .table] {
      let merged = funnellab(["merge"] + parts + ["--format", format.rawValue, "--top", "4"])
      #expect(merged.code == 0, "\(merged.err)")
      let expected: String? = format == .json ? single.stdout : single.rendering(format)
      #expect(merged.out == expected, "\(count) shards, --format \(format.rawValue)")
    }
  }

  /// Shards of `grid --exact`: a missing, doubled or edited shard, or one of another grid, is
  /// refused with exit 65 and nothing written; mixing them with a run's shards too.
  @Test func exactGridMergeRefusesMissingDoubledEditedAndForeignShards() throws {
    let a = try writeShards(["grid", "--exact", "-q"], count: 3, order: [0, 1, 2])
    let other = try writeShards(["grid", "Benchmarks/specs/klick-grid-1000.json", "--exact", "-q"], count: 3, order: [1])
    let runs = try writeShards(["run", "--users", "2000"], count: 3, order: [1])
    let edited = try temporaryFile(
      "edited-part.json",
      contents: try String(contentsOfFile: a[1], encoding: .utf8).replacingOccurrences(of: "\"walks\": ", with: "\"walks\": 1"))
    let cases: [([String], String)] = [
      ([a[0], a[2]], "missing shard 1/3"),
      ([a[0], a[1], a[1], a[2]], "shard 1/3 appears twice"),
      ([a[0], other[0], a[2]], "is from another grid than"),
      ([a[0], runs[0], a[2]], "mix shards of grid --exact"),
      ([a[0], edited, a[2]], "checksum"),
    ]
    for (files, message) in cases {
      let r = funnellab(["merge"] + files)
      #expect(r.code == 65, "\(files): \(r.err)")
      #expect(r.err.contains(message), "\(r.err)")
      #expect(r.out.isEmpty)
    }
  }

  @Test func shardsAsSeparateProcessesMergeToTheSingleRun() throws {
    guard let binary = ExecutableTests.binary else { return }
    func run(_ args: [String]) throws -> String {
      let p = Process()
      p.executableURL = binary
      p.arguments = args
      let out = Pipe()
      p.standardOutput = out
      try p.run()
      let data = out.fileHandleForReading.readDataToEndOfFile()
      p.waitUntilExit()
      #expect(p.terminationStatus == 0)
      return String(decoding: data, as: UTF8.self)
    }
    var parts: [String] = []
    for i in [1, 3, 0, 2] {
      let path = try temporaryFile("process-part-\(i).json")
      _ = try run(["run", "--users", "8000", "--shard", "\(i)/4", "-o", path])
      parts.append(path)
    }
    #expect(try run(["merge"] + parts + ["--format", "json"]) == run(["run", "--users", "8000", "--format", "json"]))
  }

  @Test func mergeRefusesMismatchedDuplicateAndMissingShards() throws {
    let a = try writeShards(["run", "--users", "4000"], count: 3, order: [0, 1, 2])
    let otherSeed = try writeShards(["run", "--users", "4000", "--seed", "7"], count: 3, order: [1])
    let otherCount = try writeShards(["run", "--users", "4000"], count: 4, order: [1])
    let otherSpec = try writeShards(["run", experimentPath("betfree-onboarding"), "--users", "4000"], count: 3, order: [1])
    let cases: [([String], String)] = [
      ([a[0], otherSeed[0], a[2]], "is from another run than"),
      ([a[0], otherCount[0], a[2]], "shard count 4 vs 3"),
      ([a[0], otherSpec[0], a[2]], "spec "),
      ([a[0], a[1], a[1], a[2]], "shard 1/3 appears twice"),
      ([a[0], a[2]], "missing shard 1/3"),
    ]
    for (files, message) in cases {
      let r = funnellab(["merge"] + files)
      #expect(r.code == 65, "\(files)")
      #expect(r.err.contains(message), "\(r.err)")
      #expect(r.out.isEmpty)
    }
    let top = funnellab(["merge"] + a + ["--top", "3"])
    #expect(top.code == 64, "\(top.err)")
    #expect(top.err.hasPrefix("Error: --top ranks the cells of a grid; these are run shards; drop --top"), "\(top.err)")
    #expect(top.out.isEmpty)
    let notShard = try temporaryFile("not-a-shard.json", contents: "{\"name\": 1}")
    let r = funnellab("merge", notShard)
    #expect(r.code == 65)
    #expect(r.err.contains("not a FunnelLab shard file"))
  }

  @Test(arguments: [
    (["JOB_COMPLETION_INDEX": "2"], 2),
    (["SLURM_ARRAY_TASK_ID": "5", "SLURM_ARRAY_TASK_MIN": "4"], 1),
    (["SLURM_ARRAY_TASK_ID": "3"], 3),
    (["AWS_BATCH_JOB_ARRAY_INDEX": "0"], 0),
  ])
  func shardIndexComesFromTheJobArrayEnvironment(environment: [String: String], index: Int) throws {
    let viaEnvironment = CapturingConsole(environment: environment)
    #expect(FunnelLabCommandLine.run(["run", "--users", "2000", "--shards", "4"], console: viaEnvironment) == 0)
    let explicit = funnellab("run", "--users", "2000", "--shard", "\(index)/4")
    #expect(viaEnvironment.stdout == explicit.out)
  }

  @Test func shardingErrorsAreUsageErrors() {
    #expect(funnellab("run", "--shards", "4").err.hasPrefix("Error: --shards 4 needs the shard index from JOB_COMPLETION_INDEX"))
    #expect(funnellab("run", "--shard", "4/4").err.hasPrefix("Error: --shard expects i/n with 0 ≤ i < n, got '4/4'"))
    let env = CapturingConsole(environment: ["JOB_COMPLETION_INDEX": "9"])
    #expect(FunnelLabCommandLine.run(["run", "--shards", "4"], console: env) == 64)
    #expect(env.stderr.hasPrefix("Error: JOB_COMPLETION_INDEX=9 is not an index below 4"))
    #expect(funnellab("run", "--mode", "experiment", "--shard", "0/2").code == 64)
  }

  /// The docs' examples are valid: the YAML parses, the script passes `bash -n`.
  @Test func shardingExamplesAreSyntacticallyValid() throws {
    let folder = repositoryRoot.appendingPathComponent("docs/sharding")
    func status(_ tool: String, _ args: [String]) throws -> Int32 {
      let p = Process()
      p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
      p.arguments = [tool] + args
      p.standardError = FileHandle.nullDevice
      try p.run()
      p.waitUntilExit()
      return p.terminationStatus
    }
    #expect(try status("bash", ["-n", folder.appendingPathComponent("slurm-array.sh").path]) == 0)
    guard (try? status("python3", ["-c", "import yaml"])) == 0 else { return }
    for file in ["kubernetes-indexed-job.yaml", "github-actions.yml"] {
      let path = folder.appendingPathComponent(file).path
      #expect(try status("python3", ["-c", "import sys, yaml; list(yaml.safe_load_all(open(sys.argv[1])))", path]) == 0, "\(file)")
    }
  }
}
