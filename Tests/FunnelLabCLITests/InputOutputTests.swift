import Foundation
import FunnelFuzz
import FunnelLab
import FunnelTestSupport
import Testing

@testable import FunnelLabCLI

/// The text of a committed experiment.
func experimentText(_ name: String) throws -> String { try String(contentsOfFile: experimentPath(name), encoding: .utf8) }

/// Runs the command line in-process with `input` as standard input.
func funnellab(_ arguments: [String], standardInput input: String) -> (code: Int32, out: String, err: String) {
  let console = CapturingConsole(standardInput: Array(input.utf8))
  let code = FunnelLabCommandLine.run(arguments, console: console)
  return (code, console.stdout, console.stderr)
}

/// Spec inputs from anywhere a shell can name: `-`, pipes, FIFOs.
@Suite struct InputTests {
  @Test func aSpecFromStandardInput() throws {
    let r = funnellab(["run", "-", "--users", "1000"], standardInput: try experimentText("klick-onboarding"))
    #expect(r.code == 0, "\(r.err)")
    #expect(r.out.hasPrefix("klick-onboarding · seed 20261121 · 1,000 users per variant"))
  }

  @Test func aShardOfAStandardInputSpecRecordsItsText() throws {
    let text = try experimentText("urbannest-onboarding")
    let r = funnellab(["run", "-", "--users", "100", "--shard", "0/2"], standardInput: text)
    #expect(r.code == 0, "\(r.err)")
    #expect(r.out.contains("\"funnellabShard\": \(ShardFile.formatVersion)"))
    #expect(
      r.out.contains(String(JSONWriter.write(.string(text), pretty: false).dropLast())), "the shard records the spec's text, read once")
  }

  @Test func aPipeOrProcessSubstitutionIsRead() throws {
    // `<(jq …)` names a pipe as /dev/fd/N: the same as this.
    let pipe = Pipe()
    let text = try experimentText("urbannest-onboarding")
    let writer = Thread {
      pipe.fileHandleForWriting.write(Data(text.utf8))
      try? pipe.fileHandleForWriting.close()
    }
    writer.start()
    let r = funnellab("validate", "/dev/fd/\(pipe.fileHandleForReading.fileDescriptor)")
    #expect(r.code == 0, "\(r.err)")
    #expect(r.out.contains("valid (4 screens, 3 variants)"))
  }

  @Test func aFIFOWithAWriterIsRead() throws {
    let path = try temporaryFile("spec.fifo")
    #expect(mkfifo(path, 0o600) == 0)
    let text = try experimentText("urbannest-onboarding")
    let writer = Thread { try? text.write(toFile: path, atomically: false, encoding: .utf8) }
    writer.start()
    let r = funnellab("validate", path)
    #expect(r.code == 0, "\(r.err)")
  }

  @Test func validateSkipsTheSchemaAsCheckDoes() throws {
    let names = try FileManager.default.contentsOfDirectory(atPath: repositoryRoot.appendingPathComponent("experiments").path)
    let all = names.filter { $0.hasSuffix(".json") }.sorted().map { repositoryRoot.appendingPathComponent("experiments/\($0)").path }
    #expect(all.contains { $0.hasSuffix("schema.json") })
    let r = funnellab(["validate"] + all)
    #expect(r.code == 0, "\(r.err)")
    #expect(r.err.contains("note: skipping") && r.err.contains("schema.json: a JSON Schema, not an experiment"))
  }

  struct Case: CustomTestStringConvertible, Sendable {
    var arguments: [String]
    var code: Int32
    var message: String
    var testDescription: String { arguments.joined(separator: " ") }
  }

  static let folder = FileManager.default.temporaryDirectory.path

  static let unreadable: [Case] = [
    Case(arguments: ["run", folder], code: 66, message: "Error: \(folder): a folder, not a file; name a file in it."),
    Case(arguments: ["analyze", "--data", folder], code: 66, message: "Error: \(folder): a folder, not a file"),
    Case(arguments: ["merge", folder], code: 66, message: "Error: \(folder): a folder, not a file"),
    Case(arguments: ["run", "/nonexistent/x.json"], code: 66, message: "Error: /nonexistent/x.json: no such file; check the path."),
    Case(arguments: ["trace", "--events-map", "/nonexistent/map.json"], code: 66, message: "Error: /nonexistent/map.json: no such file"),
  ]

  @Test(arguments: unreadable)
  func anUnreadableInputNamesItsCause(_ c: Case) {
    let r = funnellab(c.arguments)
    #expect(r.code == c.code)
    #expect(r.err.hasPrefix(c.message), "\(r.err)")
    #expect(r.out.isEmpty)
  }

  @Test func invalidUTF8IsAnInvalidFileNotAWrongPath() throws {
    let path = try temporaryFile("latin1.json")
    try Data([0x7B, 0x22, 0xE9, 0x22, 0x7D]).write(to: URL(fileURLWithPath: path))
    let r = funnellab("validate", path)
    #expect(r.code == 65)
    #expect(r.err == "Error: \(path): not UTF-8 text (invalid byte at offset 2); save it as UTF-8.\n")
  }

  @Test func anEmptyStandardInputIsAnInvalidSpec() {
    let r = funnellab(["validate", "-"], standardInput: "")
    #expect(r.code == 65)
    #expect(r.err.hasPrefix("standard input: "), "\(r.err)")
  }
}

/// One CSV reader (RFC 4180) behind analyze and calibrate.
@Suite struct CSVInputTests {
  static let crlf = "arm,users,conversions\r\ncontrol,1000,120\r\nb,1000,150\r\n"

  @Test func analyzeReadsCRLFABOMAndQuotedCommas() throws {
    let plain = funnellab("analyze", "--data", try temporaryFile("plain.csv", contents: Self.crlf.replacingOccurrences(of: "\r", with: "")))
    let crlf = funnellab("analyze", "--data", try temporaryFile("crlf.csv", contents: "\u{FEFF}" + Self.crlf))
    #expect(crlf.code == 0, "\(crlf.err)")
    #expect(crlf.out == plain.out)
    let quoted = funnellab(
      "analyze", "--data",
      try temporaryFile("q.csv", contents: "arm,users,conversions\r\n\"control, old\",1000,120\r\n\"b \"\"new\"\"\",1000,150\r\n"))
    #expect(quoted.code == 0, "\(quoted.err)")
    #expect(quoted.out.contains("control, old") && quoted.out.contains("b \"new\""))
  }

  @Test func calibrateReadsCRLFAndABOM() throws {
    let original = try String(
      contentsOfFile: repositoryRoot.appendingPathComponent("experiments/urbannest-observed.csv").path, encoding: .utf8)
    let path = try temporaryFile("observed.csv", contents: "\u{FEFF}" + original.replacingOccurrences(of: "\n", with: "\r\n"))
    let lf = funnellab(
      "calibrate", experimentPath("urbannest-onboarding"), repositoryRoot.appendingPathComponent("experiments/urbannest-observed.csv").path,
      "--wide")
    let crlf = funnellab("calibrate", experimentPath("urbannest-onboarding"), path, "--wide")
    #expect(crlf.code == 0, "\(crlf.err)")
    #expect(crlf.out.split(separator: "\n").dropFirst() == lf.out.split(separator: "\n").dropFirst())
  }

  @Test func aDataProblemNamesTheFileAndLineNotAnArmIndex() throws {
    let path = try temporaryFile("bad.csv", contents: "arm,users,conversions\r\ncontrol,1000,120\r\nb,100,150\r\n")
    let r = funnellab("analyze", "--data", path)
    #expect(r.code == 65)
    #expect(r.err.hasPrefix("Error: \(path):3 (conversions): 150 conversions exceed 100 users"), "\(r.err)")
    #expect(!r.err.contains("arms["))
  }

  @Test func anUnclosedQuoteIsASyntaxErrorWithItsLine() throws {
    let path = try temporaryFile("open.csv", contents: "arm,users,conversions\ncontrol,1000,120\n\"b,1000,150\n")
    let r = funnellab("analyze", "--data", path)
    #expect(r.code == 65)
    #expect(r.err == "Error: \(path):3: a quoted field is never closed\n")
  }
}

/// Command-line values that are wrong exit 64 and name the flag; options a mode
/// does not use are refused.
@Suite struct CommandLineValueTests {
  static let usage: [InputTests.Case] = [
    .init(
      arguments: ["run", "--variant", "nosuch", "--users", "10"], code: 64,
      message:
        "Error: --variant 'nosuch': klick-onboarding has no such variant; its variants: control, upsellAfter3, goalOptional, features3, features5\n"
    ),
    .init(
      arguments: ["power", "--baseline", "0.1", "--mde", "0.95"], code: 64,
      message:
        "Error: --mde 0.95: the treatment rate 0.1 + 0.95 = 1.05 is not between 0 and 1; --mde is the difference in rate, e.g. --mde 0.01 for 0.1 → 0.11"
    ),
    .init(
      arguments: ["power", "--baseline", "0.5", "--relative-mde", "2"], code: 64,
      message: "Error: --relative-mde 2: the treatment rate 0.5 + 1 = 1.5 is not between 0 and 1"),
    .init(
      arguments: ["analyze", "--arm", "c=10:1", "--arm", "t=10:2", "--allocation", ""], code: 64,
      message: "Error: --allocation is empty; give name=weight for every arm"),
    .init(
      arguments: ["sensitivity", "--vary", "fatiguePerScreen=0:4999:1"], code: 64,
      message: "Error: --vary 'fatiguePerScreen=0:4999:1': fatiguePerScreen goes from -20 to 20; the unit is utility per screen seen"),
    .init(
      arguments: ["sensitivity", "--vary", "screensSeenCap=1.5:4:1"], code: 64,
      message: "Error: --vary 'screensSeenCap=1.5:4:1': screensSeenCap takes whole numbers"),
    .init(arguments: ["run", "--users", "0x10"], code: 64, message: "Error: --users expects a whole number, got '0x10'"),
    .init(
      arguments: ["power", "--baseline", "0x1p-3", "--mde", "0.01"], code: 64, message: "Error: --baseline expects a number, got '0x1p-3'"),
    .init(arguments: ["run", "-o", ""], code: 64, message: "Error: --output needs a file name, got ''"),
    .init(arguments: ["check", "x.json", "--junit="], code: 64, message: "Error: --junit needs a file name, got ''"),
    .init(
      arguments: ["power", "--baseline", "0.1", "--mde", "0.01", "--shard", "0/2"], code: 64,
      message: "Error: --shard is for planning a spec by simulation, not for the formula mode"),
    .init(
      arguments: ["power", "--baseline", "0.1", "--mde", "0.01", "--replicates", "500"], code: 64,
      message: "Error: --replicates is for planning a spec by simulation, not for the formula mode"),
    .init(
      arguments: ["power", "--baseline", "0.1", "--mde", "0.01", "--variant", "b"], code: 64,
      message: "Error: --variant is for planning a spec by simulation"),
    .init(
      arguments: ["run", "--shard", "0/2", "--shards", "2", "--users", "10"], code: 64,
      message: "Error: give --shard i/n or --shards n, not both"),
    .init(
      arguments: ["run", "--shard", "0/2", "-f", "html", "--users", "10"], code: 64,
      message: "Error: --format does not apply to a shard: it writes a partial result (JSON) for 'funnellab merge'"),
    .init(
      arguments: ["grid", "--shard", "0/2", "--top", "3", "--users", "10"], code: 64, message: "Error: --top does not apply to a shard"),
    .init(
      arguments: ["trace", "--variant", "nosuch"], code: 64, message: "Error: --variant 'nosuch': klick-onboarding has no such variant"),
    .init(
      arguments: ["analyze", "--arm", "c=10:11", "--arm", "t=10:2"], code: 64,
      message: "Error: --arm 'c=10:11' (conversions): 11 conversions exceed 10 users; check that users and conversions are not swapped\n"),
    .init(
      arguments: ["analyze", "--arm", "c=1e1:2", "--arm", "t=0x10:2"], code: 64,
      message: "Error: --arm 't=0x10:2' is not name=users:conversions"),
  ]

  @Test(arguments: usage)
  func aWrongValueNamesItsFlag(_ c: InputTests.Case) {
    let r = funnellab(c.arguments)
    #expect(r.code == c.code)
    #expect(r.err.hasPrefix(c.message), "\(r.err)")
    #expect(r.out.isEmpty)
  }

  @Test func seeHelpIsSaidOnce() {
    let r = funnellab("run", "--bogus")
    #expect(r.code == 64)
    #expect(r.err.components(separatedBy: "--help").count == 2, "\(r.err)")
    let short = funnellab("run", "-x")
    #expect(short.err.components(separatedBy: "--help").count == 2, "\(short.err)")
  }

  @Test func aPowerReachedByAnyValueIsNotCalledUnreachable() {
    let r = funnellab("power", "--baseline", "0.1", "--mde", "0.05", "--users-per-arm", "1000000", "--power", "0.8", "--solve", "alpha")
    #expect(r.code == 64)
    #expect(
      r.err.hasPrefix(
        "Error: --power 0.8 is reached with any value: even α = 1e-12 gives power 100.0%; lower --users-per-arm or the effect to solve for α"
      ), "\(r.err)")
    #expect(!r.err.contains("increase the sample size"))
  }
}

/// What a command writes: files only on success, folders created, formats escaped.
@Suite struct OutputTests {
  @Test func outputAndJUnitCreateMissingFolders() throws {
    let base = try temporaryFile("unused")
    let out = URL(fileURLWithPath: base).deletingLastPathComponent().appendingPathComponent("a/b/c/out.json").path
    #expect(funnellab("exact", experimentPath("urbannest-onboarding"), "-f", "json", "-o", out).code == 0)
    #expect(FileManager.default.fileExists(atPath: out))
    let junit = URL(fileURLWithPath: base).deletingLastPathComponent().appendingPathComponent("build/reports/check.xml").path
    let report = URL(fileURLWithPath: base).deletingLastPathComponent().appendingPathComponent("build/reports/check.txt").path
    // Expectations that fail still write both reports: CI needs them.
    let r = funnellab("check", try CheckCommandTests().spec(CheckCommandTests.wrong), "--junit", junit, "-o", report)
    #expect(r.code == 1, "\(r.err)")
    #expect(try String(contentsOfFile: junit, encoding: .utf8).hasPrefix("<?xml"))
    #expect(try String(contentsOfFile: report, encoding: .utf8).contains("FAIL"))
  }

  /// `check` writes two files: when the report cannot be written, the JUnit file (and its missing folder) is not
  /// created either.
  /// A file option given a value that looks like an option (`--junit -inf`, `-o -q`) is a
  /// usage error that names the way to mean such a file (`./-inf`), and nothing is written
  /// (a JUnit file named `-inf` once reached the repository this way).
  @Test(arguments: [
    ["check", experimentPath("urbannest-onboarding"), "--junit", "-inf"],
    ["run", "--users", "100", "-o", "-q"],
    ["exact", "--output=-nan"],
    ["ingest", experimentPath("urbannest-onboarding"), "--events-map", "-1"],
  ])
  func aFileOptionRefusesAValueThatLooksLikeAnOption(arguments: [String]) {
    let r = funnellab(arguments)
    #expect(r.code == 64, "\(r.err)")
    #expect(r.err.contains("which looks like an option"), "\(r.err)")
    #expect(r.err.contains("write ./-"), "\(r.err)")
    #expect(r.out.isEmpty)
    for name in ["-inf", "-q", "-nan", "-1"] {
      #expect(!FileManager.default.fileExists(atPath: name), "\(name) was written")
    }
  }

  @Test func aCheckThatCannotWriteItsReportWritesNoJUnit() throws {
    let base = URL(fileURLWithPath: try temporaryFile("unused")).deletingLastPathComponent()
    let folder = base.appendingPathComponent("junit-\(UUID().uuidString)")
    let junit = folder.appendingPathComponent("check.xml").path
    let r = funnellab("check", experimentPath("urbannest-onboarding"), "--junit", junit, "-o", base.path)
    #expect(r.code == 73, "\(r.err)")
    #expect(r.err.contains(": a folder, not a file"), "\(r.err)")
    #expect(!FileManager.default.fileExists(atPath: folder.path))
  }

  /// The format follows --format, not the file's name; a name that promises HTML or JSON gets a note when the
  /// text is not that.
  @Test func aFileNamedForAnotherFormatGetsANote() throws {
    let html = try temporaryFile("report.html")
    let plain = funnellab("exact", experimentPath("urbannest-onboarding"), "-o", html)
    #expect(plain.code == 0, "\(plain.err)")
    #expect(plain.err.contains("is named .html but is not HTML; the format follows --format, so add --format html"), "\(plain.err)")
    let right = funnellab("exact", experimentPath("urbannest-onboarding"), "--format", "html", "-o", html)
    #expect(right.code == 0 && !right.err.contains("Note:"), "\(right.err)")
    let json = try temporaryFile("report.json")
    #expect(funnellab("exact", experimentPath("urbannest-onboarding"), "-o", json).err.contains("add --format json"))
    #expect(!funnellab("exact", experimentPath("urbannest-onboarding"), "-f", "json", "-o", json).err.contains("Note:"))
  }

  @Test func aFolderAsOutputIsNamedAsSuch() {
    let r = funnellab("exact", "-o", FileManager.default.temporaryDirectory.path)
    #expect(r.code == 73)
    #expect(r.err.contains(": a folder, not a file; give a file name, e.g. "), "\(r.err)")
    #expect(!r.err.contains("permission"))
  }

  /// A file to write that is also read is refused (64) before anything runs, by any path to
  /// it, and stays as it was; an output that merely shares a folder with the inputs is fine.
  @Test func anOutputThatIsAlsoAnInputIsRefused() throws {
    let text = try experimentText("urbannest-onboarding")
    let spec = try temporaryFile("spec.json", contents: text)
    let folder = URL(fileURLWithPath: spec).deletingLastPathComponent().path
    let otherPath = folder + "/./spec.json"
    let cases: [[String]] = [
      ["check", spec, "--update-baseline", spec], ["check", spec, "--junit", otherPath], ["exact", spec, "-o", otherPath],
      ["calibrate", spec, repositoryRoot.appendingPathComponent("experiments/urbannest-observed.csv").path, "--write-spec", spec],
      ["diff", spec, spec, "--output", spec],
    ]
    for arguments in cases {
      let r = funnellab(arguments)
      #expect(r.code == 64, "\(arguments): \(r.err)")
      #expect(r.err.contains("is also an input") && r.err.contains("write the result to another file"), "\(r.err)")
      #expect(r.out.isEmpty)
      #expect(try String(contentsOfFile: spec, encoding: .utf8) == text)
    }
    #expect(funnellab("exact", spec, "-o", folder + "/exact.json").code == 0)
  }

  @Test func aFailingTraceLeavesItsOutputUntouched() throws {
    let out = try temporaryFile("trace.ndjson", contents: "before\n")
    #expect(funnellab("trace", "--variant", "nosuch", "-o", out).code == 64)
    let bad = try temporaryFile("bad.json", contents: "{")
    #expect(funnellab("trace", bad, "-o", out).code == 65)
    #expect(try String(contentsOfFile: out, encoding: .utf8) == "before\n")
    let folder = URL(fileURLWithPath: out).deletingLastPathComponent().path
    #expect(
      try FileManager.default.contentsOfDirectory(atPath: folder).allSatisfy { !$0.contains("funnellab-") }, "no temporary file is left")
  }

  @Test func traceStreamsToAFileWithTheSameBytesAsStdout() throws {
    let out = try temporaryFile("trace.ndjson")
    let direct = funnellab("trace", "--users", "3000")
    #expect(funnellab("trace", "--users", "3000", "-o", out).code == 0)
    #expect(try String(contentsOfFile: out, encoding: .utf8) == direct.out)
    #expect(direct.out.utf8.count > 1 << 20, "more than one streamed chunk")
  }

  /// urbannest with a variant id that is HTML, a screen id that closes an attribute,
  /// and a variant id that is a Markdown link (an id with a control character is refused
  /// when the spec is read: ``idsWithControlCharactersAreRefused(id:path:)``).
  static func hostileSpec() throws -> String {
    try experimentText("urbannest-onboarding")
      .replacingOccurrences(of: "\"twoSlides\"", with: "\"<script>alert(1)</script>\"")
      .replacingOccurrences(of: "\"slide2\"", with: "\"\\\"><img src=x onerror=alert(1)>\"")
      .replacingOccurrences(of: "\"noSkipOnSlide1\"", with: "\"red](http://x)\"")
  }

  /// An id is printed in every table: a newline would split its row, an escape would reach the
  /// terminal. `validate` refuses both (65), naming the id's path, with the character escaped.
  @Test(arguments: [
    ("\"noSkipOnSlide1\"", "\"\\u001b[31mred\"", "variants[1].id (line 70): the variant id '\\u{1B}[31mred' contains a control character"),
    ("\"slide2\"", "\"slide\\n2\"", "flow.screens[1].id (line 32): the screen id 'slide\\n2' contains a control character"),
  ])
  func idsWithControlCharactersAreRefused(id: String, hostile: String, message: String) throws {
    let spec = try experimentText("urbannest-onboarding").replacingOccurrences(of: id, with: hostile)
    let r = funnellab("validate", try temporaryFile("hostile.json", contents: spec))
    #expect(r.code == 65)
    #expect(r.err.contains(message), "\(r.err)")
    #expect(!r.err.contains("\u{1B}") && r.out.isEmpty)
  }

  @Test(arguments: ["run", "exact", "power-plan", "grid"])
  func markdownAndTablesShowHostileIdsAsText(command: String) throws {
    var spec = try Self.hostileSpec()
    if command == "grid" {
      spec = spec.replacingOccurrences(
        of: "\"expectations\"",
        with:
          "\"grid\": {\"factors\": [{\"id\": \"<b>f</b>\", \"levels\": [{\"id\": \"<script>x</script>\", \"patches\": []}, {\"id\": \"[a](javascript:x)\", \"patches\": []}]}]}, \"expectations\""
      )
    }
    let path = try temporaryFile("hostile.json", contents: spec)
    let arguments: [String] =
      switch command {
      case "power-plan": ["power", path, "--users-per-arm", "200", "--replicates", "100"]
      case "exact": ["exact", path]
      default: [command, path, "--users", "300"]
      }
    let table = funnellab(arguments)
    #expect(table.code == 0, "\(table.err)")
    #expect(!table.out.contains("\u{1B}") && !table.err.contains("\u{1B}"), "a terminal escape reached the terminal")
    guard command != "exact" else { return }
    let markdown = funnellab(arguments + ["-f", "markdown"])
    #expect(markdown.code == 0, "\(markdown.err)")
    #expect(unescapedMarkup(in: markdown.out).isEmpty, "\(unescapedMarkup(in: markdown.out)) reached the Markdown raw")
    #expect(markdown.out.contains(command == "grid" ? "\\<script>x\\</script>" : "\\<script>alert(1)\\</script>"))
  }

  @Test func analyzeMarkdownEscapesArmNames() throws {
    let data = try temporaryFile("arms.csv", contents: "arm,users,conversions\n\"\"\"><img src=x onerror=alert(1)>\",1000,120\n")
    let r = funnellab("analyze", "--arm", "<script>alert(1)</script>=1000:100", "--data", data, "-f", "markdown")
    #expect(r.code == 0, "\(r.err)")
    #expect(unescapedMarkup(in: r.out).isEmpty, "\(unescapedMarkup(in: r.out))")
    #expect(r.out.contains("\\<script>alert(1)\\</script>") && r.out.contains("\">\\<img src=x onerror=alert(1)>"))
  }

  @Test func aNewlineInASpecValueCannotFakeAnErrorLine() throws {
    let spec = try experimentText("urbannest-onboarding")
      .replacingOccurrences(of: "\"to\": \"slide2\"", with: "\"to\": \"nowhere\\nError: all good, ignore the rest\\u001b[2J\"")
    let r = funnellab("validate", try temporaryFile("fake.json", contents: spec))
    #expect(r.code == 65)
    #expect(!r.err.contains("\nError: all good"), "\(r.err)")
    #expect(r.err.contains("unknown screen 'nowhere\\nError: all good, ignore the rest\\u{1B}[2J'"))
    #expect(!r.err.contains("\u{1B}"))
  }

  @Test func anEscapeInAPathOrArgumentIsShownEscaped() {
    let r = funnellab("run", "/nonexistent/\u{1B}[31mx\nError: fake.json")
    #expect(r.code == 66)
    #expect(r.err == "Error: /nonexistent/\\u{1B}[31mx\\nError: fake.json: no such file; check the path.\n")
    let u = funnellab("run", "--format", "x\u{1B}[0m")
    #expect(!u.err.contains("\u{1B}"))
  }
}

/// Raw HTML, autolinks and links a Markdown renderer would act on, and terminal escapes.
func unescapedMarkup(in markdown: String) -> [String] {
  FuzzCase.unescapedMarkup(in: markdown) + (markdown.contains("\u{1B}") ? ["ESC"] : [])
}
