import Foundation
import FunnelLab
import FunnelTestSupport
import Testing

@testable import FunnelLabCLI

/// Issue 58: no output may be an input or another output, by any name of the file (a symbolic
/// link, `/dev/stdin`, `/proc/self/fd/0`, standard input redirected from it), and a command
/// that writes several files writes all of them or none.
@Suite struct FileCollisionTests {
  /// A scratch folder with `spec.json` (urbannest) and a copy of the events log.
  struct Folder {
    let url: URL
    let specText: String
    let logText: String
    func path(_ name: String) -> String { url.appendingPathComponent(name).path }
    var spec: String { path("spec.json") }
    var log: String { path("events.ndjson") }

    init() throws {
      url = try scratchFolder("collisions")
      specText = try experimentText("urbannest-onboarding")
      logText = try String(
        contentsOf: repositoryRoot.appendingPathComponent("experiments/data/klick-events.ndjson"), encoding: .utf8)
      try specText.write(toFile: url.appendingPathComponent("spec.json").path, atomically: true, encoding: .utf8)
      try logText.write(toFile: url.appendingPathComponent("events.ndjson").path, atomically: true, encoding: .utf8)
    }

    /// The file names in the folder (a temporary file left behind shows here).
    var names: Set<String> { Set((try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? []) }
  }

  static let observed = repositoryRoot.appendingPathComponent("experiments/urbannest-observed.csv").path
  static let eventsMap = repositoryRoot.appendingPathComponent("experiments/data/klick-events-map.json").path

  /// Runs in-process with standard input redirected from `file` (its bytes and its identity).
  func funnellab(_ arguments: [String], standardInputFrom file: String) throws -> (code: Int32, out: String, err: String) {
    let bytes = try Array(Data(contentsOf: URL(fileURLWithPath: file)))
    let console = CapturingConsole(standardInput: bytes, standardInputFile: file)
    let code = FunnelLabCommandLine.run(arguments, console: console)
    return (code, console.stdout, console.stderr)
  }

  /// An input named through a symbolic link, or an output that is a link to an input, is refused (64)
  /// and the input's bytes stay as they were.
  @Test func anInputThroughASymbolicLinkIsNotOverwritten() throws {
    let f = try Folder()
    try FileManager.default.createSymbolicLink(atPath: f.path("current.json"), withDestinationPath: f.spec)
    for arguments in [
      ["exact", f.path("current.json"), "-o", f.spec], ["exact", f.spec, "-o", f.path("current.json")],
      ["run", f.path("current.json"), "--users", "100", "-o", f.spec],
      ["check", f.path("current.json"), "--update-baseline", f.spec],
    ] {
      let r = FunnelLabCLITests.funnellab(arguments)
      #expect(r.code == 64, "\(arguments): \(r.err)")
      #expect(r.err.contains("is also an input"), "\(r.err)")
      #expect(try String(contentsOfFile: f.spec, encoding: .utf8) == f.specText)
    }
  }

  /// Standard input redirected from the output file (`ingest -o L < L`, also `-`, and `infer`'s
  /// `--report`) is refused before a byte is read.
  @Test(arguments: [
    ["ingest", "-o", "LOG"], ["ingest", "-", "-o", "LOG"], ["infer", "-o", "LOG"], ["infer", "-", "-o", "OTHER", "--report", "LOG"],
  ])
  func standardInputThatIsTheOutputIsRefused(arguments: [String]) throws {
    let f = try Folder()
    let line = arguments.map { $0 == "LOG" ? f.log : $0 == "OTHER" ? f.path("other.json") : $0 } + ["--events-map", Self.eventsMap]
    let r = try funnellab(line, standardInputFrom: f.log)
    #expect(r.code == 64, "\(r.err)")
    #expect(r.err.contains("(standard input)") && r.err.contains("is also an input"), "\(r.err)")
    #expect(try String(contentsOfFile: f.log, encoding: .utf8) == f.logText)
    #expect(!f.names.contains("other.json"))
  }

  /// Every option that reads a file is an input: `analyze --users-file u.csv -o u.csv` once replaced the data.
  @Test func analyzeUsersFileIsAnInput() throws {
    let f = try Folder()
    let csv = "arm,revenue\ncontrol,1\ncontrol,0\ncontrol,2\nb,1\nb,3\nb,0\n"
    let data = f.path("u.csv")
    try csv.write(toFile: data, atomically: true, encoding: .utf8)
    let r = FunnelLabCLITests.funnellab(["analyze", "--users-file", data, "--metric", "revenue", "-o", data])
    #expect(r.code == 64, "\(r.err)")
    #expect(try String(contentsOfFile: data, encoding: .utf8) == csv)
  }

  /// Two outputs on one file (existing or not, by any spelling) are refused, naming both options.
  @Test func twoOutputsOnOneFileAreRefused() throws {
    let f = try Folder()
    let cases: [(arguments: [String], options: [String])] = [
      (["check", f.spec, "-o", f.path("b.json"), "--update-baseline", f.path("./b.json")], ["--output", "--update-baseline"]),
      (["check", f.spec, "--allow-empty", "--junit", f.path("x.xml"), "-o", f.path("x.xml")], ["--junit", "--output"]),
      (["infer", f.log, "--events-map", Self.eventsMap, "-o", f.path("x"), "--report", f.path("x")], ["--output", "--report"]),
      (
        ["calibrate", f.spec, Self.observed, "--write-spec", f.path("new/s.json"), "-o", f.path("new/../new/s.json")],
        ["--write-spec", "--output"]
      ),
    ]
    for (arguments, options) in cases {
      let r = FunnelLabCLITests.funnellab(arguments)
      #expect(r.code == 64, "\(arguments): \(r.err)")
      #expect(options.allSatisfy(r.err.contains) && r.err.contains("are one file"), "\(r.err)")
    }
    try "kept".write(toFile: f.path("b.json"), atomically: true, encoding: .utf8)
    #expect(FunnelLabCLITests.funnellab(cases[0].arguments).code == 64)
    #expect(try String(contentsOfFile: f.path("b.json"), encoding: .utf8) == "kept")
    #expect(f.names == ["spec.json", "events.ndjson", "b.json"], "nothing was created")
  }

  /// A failing write leaves every earlier output of the command as it was, and no temporary file.
  @Test func aFailingOutputReplacesNoEarlierOne() throws {
    let f = try Folder()
    let before = "earlier\n"
    for name in ["j.xml", "b.json", "s.json", "spec-out.json"] {
      try before.write(toFile: f.path(name), atomically: true, encoding: .utf8)
    }
    try FileManager.default.createDirectory(atPath: f.path("folder"), withIntermediateDirectories: false)
    let cases: [[String]] = [
      ["check", f.spec, "--allow-empty", "--junit", f.path("j.xml"), "-o", "/dev/full"],
      ["check", f.spec, "--update-baseline", f.path("b.json"), "-o", "/dev/full"],
      ["calibrate", f.spec, Self.observed, "-o", "/dev/full", "--write-spec", f.path("s.json")],
      ["infer", f.log, "--events-map", Self.eventsMap, "-o", f.path("spec-out.json"), "--report", f.path("folder")],
    ]
    for arguments in cases {
      let r = FunnelLabCLITests.funnellab(arguments)
      #expect(r.code == 73, "\(arguments): \(r.err)")
      for name in ["j.xml", "b.json", "s.json", "spec-out.json"] {
        #expect(try String(contentsOfFile: f.path(name), encoding: .utf8) == before, "\(arguments) replaced \(name)")
      }
      #expect(f.names.allSatisfy { !$0.contains(".funnellab-") }, "a temporary file was left: \(f.names)")
    }
  }

  /// An output named by a symbolic link is written through it (the link stays), and a device stays a device.
  @Test func outputsThroughLinksAndDevices() throws {
    let f = try Folder()
    try FileManager.default.createSymbolicLink(atPath: f.path("latest.json"), withDestinationPath: f.path("run-1.json"))
    try "old".write(toFile: f.path("run-1.json"), atomically: true, encoding: .utf8)
    #expect(FunnelLabCLITests.funnellab(["exact", f.spec, "-f", "json", "-o", f.path("latest.json")]).code == 0)
    #expect(try FileManager.default.destinationOfSymbolicLink(atPath: f.path("latest.json")) == f.path("run-1.json"))
    #expect(try String(contentsOfFile: f.path("run-1.json"), encoding: .utf8).hasPrefix("{"))
    try FileManager.default.createSymbolicLink(atPath: f.path("null"), withDestinationPath: "/dev/null")
    #expect(FunnelLabCLITests.funnellab(["exact", f.spec, "-o", f.path("null")]).code == 0)
    #expect(try FileManager.default.destinationOfSymbolicLink(atPath: f.path("null")) == "/dev/null", "the link to a device stays")
    #expect(f.names.allSatisfy { !$0.contains(".funnellab-") })
  }

  /// Every option whose value is a file declares whether it reads or writes it (the one list the
  /// collision check reads), and a positional that may be absent reads standard input only where said.
  @Test func everyFileOptionDeclaresItsRole() {
    for command in FunnelLabCommandLine.commands {
      for option in command.spec.allOptions {
        let looksLikeAFile = option.valueName.map { $0.hasPrefix("file") || $0 == "spec" } ?? false
        #expect(looksLikeAFile == (option.file != nil), "funnellab \(command.spec.name) --\(option.name)")
      }
    }
    #expect(FunnelLabCommandLine.outputOptionNames == ["output", "junit", "update-baseline", "write-spec", "report"])
  }
}

/// The same refusals through the built binary, where standard input is really a file and
/// `/dev/stdin` and `/proc/self/fd/0` really name it.
@Suite struct FileCollisionProcessTests {
  @Test(.enabled(if: ExecutableTests.binary != nil), arguments: ["/dev/stdin", "/proc/self/fd/0", "-"])
  func aLogReadFromStandardInputIsNotTruncated(name: String) throws {
    let binary = try #require(ExecutableTests.binary)
    let folder = try scratchFolder("stdin")
    let log = folder.appendingPathComponent("events.ndjson").path
    let text = try String(contentsOf: repositoryRoot.appendingPathComponent("experiments/data/klick-events.ndjson"), encoding: .utf8)
    try text.write(toFile: log, atomically: true, encoding: .utf8)
    let map = repositoryRoot.appendingPathComponent("experiments/data/klick-events-map.json").path
    for command in ["ingest", "infer"] {
      let p = Process()
      p.executableURL = binary
      p.arguments = [command, name, "--events-map", map, "-o", log]
      p.standardInput = try FileHandle(forReadingFrom: URL(fileURLWithPath: log))
      let err = Pipe()
      p.standardError = err
      p.standardOutput = FileHandle.nullDevice
      try p.run()
      let message = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
      p.waitUntilExit()
      #expect(p.terminationStatus == 64, "\(command) \(name): \(message)")
      #expect(message.contains("is also an input"), "\(message)")
      #expect(try String(contentsOfFile: log, encoding: .utf8) == text)
    }
  }
}
