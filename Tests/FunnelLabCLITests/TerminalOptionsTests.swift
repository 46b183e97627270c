import FunnelTestSupport
import Testing

@testable import FunnelLabCLI

/// `--color`, `NO_COLOR`, `--wide` and the width: the terminal's, `COLUMNS`, or 100.
@Suite struct TerminalOptionsTests {
  static let escape = "\u{1B}["

  /// Runs `arguments` on a console with `environment` whose stdout is a terminal `columns` wide (or not one).
  static func run(_ arguments: [String], environment: [String: String] = [:], columns: Int? = nil) -> (code: Int32, out: String) {
    let console = CapturingConsole(environment: environment, terminalColumns: columns)
    let code = FunnelLabCommandLine.run(arguments, console: console)
    return (code, console.stdout)
  }

  static let experiment = ["run", "experiments/betfree-onboarding.json", "--mode", "experiment", "--users", "20000", "-q"]

  @Test func colourOnATerminalUnlessNoColorOrNever() {
    let spec = Self.experiment.map { $0.hasSuffix(".json") ? experimentPath("betfree-onboarding") : $0 }
    #expect(Self.run(spec, columns: 120).out.contains(Self.escape))
    #expect(!Self.run(spec).out.contains(Self.escape), "not a terminal: no colour")
    #expect(!Self.run(spec, environment: ["NO_COLOR": "1"], columns: 120).out.contains(Self.escape))
    #expect(!Self.run(spec + ["--color", "never"], columns: 120).out.contains(Self.escape))
    #expect(Self.run(spec + ["--color", "always"], environment: ["NO_COLOR": "1"]).out.contains(Self.escape))
    // JSON is never coloured.
    #expect(!Self.run(spec + ["--format", "json", "--color", "always"]).out.contains(Self.escape))
  }

  /// `grid` colours its table as the other commands colour their calls (issue 59): a cell truly worse
  /// than the control by more than the margin has its true Δ in red, on a terminal only.
  @Test func gridColoursTheTruthOnATerminal() {
    let grid = ["grid", experimentPath("klick-onboarding"), "--users", "300", "-q"]
    let coloured = Self.run(grid, columns: 200).out
    let worse = coloured.split(separator: "\n").first { $0.contains("upsell=after5,goal=required,default=monthly") } ?? ""
    #expect(worse.contains("\u{1B}[31m-0.92 pp\u{1B}[0m"), "\(worse)")
    #expect(!coloured.contains("\u{1B}[32m"), "no cell beats the control: no green")
    // Off a terminal the grid is plain as every command is (colourOnATerminalUnlessNoColorOrNever).
    #expect(!Self.run(grid + ["--color", "never"], columns: 200).out.contains(Self.escape))
  }

  @Test func aBadColorIsAUsageError() {
    let r = funnellab("run", "--color", "sometimes")
    #expect(r.code == 64)
    #expect(r.err.contains("--color must be one of auto, always, never, got 'sometimes'"), "\(r.err)")
  }

  @Test func theWidthIsTheTerminalsThenColumnsThen100() {
    let spec = Self.experiment.map { $0.hasSuffix(".json") ? experimentPath("betfree-onboarding") : $0 } + ["--color", "never"]
    func widest(_ r: (code: Int32, out: String)) -> Int { r.out.split(separator: "\n").map(\.count).max() ?? 0 }
    #expect(widest(Self.run(spec)) <= 100)
    #expect(widest(Self.run(spec, columns: 72)) <= 72)
    #expect(widest(Self.run(spec, environment: ["COLUMNS": "64"], columns: 200)) <= 64)
    #expect(widest(Self.run(spec + ["--wide"])) > 100, "--wide prints the tables whole")
    #expect(widest(Self.run(spec, environment: ["COLUMNS": "wide"])) <= 100, "a COLUMNS that is not a number is ignored")
  }

  /// Folding changes the layout, never the content: the same words in the same order.
  @Test func aFoldedReportHasTheWideReportsWordsInOrder() {
    let spec = ["exact", experimentPath("betfree-onboarding")]
    let wide = Self.run(spec + ["--wide"]).out
    let narrow = Self.run(spec, environment: ["COLUMNS": "70"]).out
    func words(_ s: String) -> [Substring] {
      s.split(whereSeparator: \.isWhitespace).filter { !$0.allSatisfy { $0 == "─" } }
    }
    // Split tables repeat their key columns and add a note; every word of the wide report is still there.
    #expect(Set(words(wide)).isSubset(of: Set(words(narrow))))
  }

  @Test func helpFoldsToTheWidth() {
    let console = CapturingConsole(environment: ["COLUMNS": "60"])
    #expect(FunnelLabCommandLine.run(["run", "--help"], console: console) == 0)
    #expect(console.stdout.split(separator: "\n").allSatisfy { $0.count <= 60 }, "\(console.stdout)")
    #expect(console.stdout.contains("--color <when>") && console.stdout.contains("--wide"))
  }

  static let colouredCommands: [[String]] = [
    ["run", experimentPath("betfree-onboarding"), "--mode", "experiment", "--users", "20000", "-q"],
    ["run", experimentPath("klick-onboarding"), "--users", "2000", "-q"],
    ["run", experimentPath("klick-onboarding"), "--mode", "bandit", "--users-per-day", "1000", "--days", "3", "-q"],
    ["exact", experimentPath("klick-onboarding")],
    ["grid", experimentPath("klick-onboarding"), "--users", "300", "-q"],
    ["analyze", "--arm", "control=1000:120", "--arm", "b=1000:150"],
  ]
  static let fileFormats = ["json", "csv", "markdown", "html"]

  /// The commands read in the `index`th file format: every one in the long stage; in the fast
  /// stage two, taken in turn so that every command is read in some file format.
  static func colouredCommands(format index: Int) -> [[String]] {
    let all = colouredCommands
    return TestStage.size(fast: [all[(2 * index) % all.count], all[(2 * index + 1) % all.count]], long: all)
  }

  @Test func everyColouredCommandIsReadInSomeFileFormat() {
    let read = Self.fileFormats.indices.flatMap { Self.colouredCommands(format: $0) }
    #expect(Self.colouredCommands.allSatisfy { read.contains($0) })
  }

  /// Colour marks never reach a file format: every format of the reports that colour their terminal text.
  @Test(arguments: fileFormats)
  func noFormatButTheTerminalCarriesColourMarks(format: String) {
    let marks: Set<Character> = ["\u{E000}", "\u{E001}", "\u{E002}", "\u{E003}"]
    for arguments in Self.colouredCommands(format: Self.fileFormats.firstIndex(of: format) ?? 0) {
      let r = Self.run(arguments + ["--format", format, "--color", "always"])
      #expect(r.code == 0, "\(arguments)")
      #expect(!r.out.contains { marks.contains($0) }, "\(arguments) --format \(format)")
      #expect(!r.out.contains(Self.escape), "\(arguments) --format \(format)")
    }
  }
}
