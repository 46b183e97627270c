import FunnelLab
import FunnelTestSupport
import Testing

@testable import FunnelLabCLI

/// A run estimated to take over a minute of one core is announced before it starts, with the
/// cost model's numbers; off a terminal it then prints a line at every 10 %.
@Suite struct WorkEstimateTests {
  static func klick() throws -> Experiment { try ExperimentLoader.load(contentsOf: experimentPath("klick-onboarding")) }

  @Test func walksFollowTheRunsUsersArmsAndShard() throws {
    let e = try Self.klick()
    let steps = try ExactEngine.solve(FlowCompiler.compile(e, variant: 0)).expectedScreens
    let truth = try #require(WorkEstimate.run(e, options: RunOptions(users: 100_000_000)))
    #expect(truth.walks == 100_000_000 * Double(e.variants.count))
    #expect(truth.stepsPerWalk == steps)
    #expect(truth.stepsPerWalk > 1 && truth.stepsPerWalk < Double(e.flow.screens.count) * 3)
    let expected = truth.walks * steps * WorkEstimate.nanosecondsPerStep * WorkEstimate.buildSlowdown * 1e-9
    #expect(abs(truth.cpuSeconds - expected) <= 1e-9 * expected)
    #expect(truth.wallSeconds(threads: 2) > ProgressBar.announcedAboveSeconds)
    // --variant: the control and the variants named; a shard: its share of the users.
    var options = RunOptions(users: 100_000_000, variants: ["features5", "features5"])
    options.shard = Shard(index: 1, count: 4)
    #expect(WorkEstimate.run(e, options: options)?.walks == 50_000_000)
    #expect(WorkEstimate.run(e, options: RunOptions(), usersPerDay: 2_000_000, days: 10)?.walks == 20_000_000)
    // Too few walks to take 10 seconds: nothing is solved.
    #expect(WorkEstimate.run(e, options: RunOptions(users: 100_000)) == nil)
  }

  @Test func aLongRunIsAnnouncedAndReportsEveryTenthOffATerminal() {
    let console = CapturingConsole()
    let long = WorkEstimate(walks: 1e9, stepsPerWalk: 5)
    let bar = ProgressBar(console: console, label: "simulating", enabled: true, estimate: long, threads: 2)
    for done in stride(from: 0, through: 1000, by: 7) { bar.update(done: done, total: 1000) }
    bar.update(done: 1000, total: 1000)
    bar.finish()
    let lines = console.stderr.split(separator: "\n")
    #expect(lines.first?.hasPrefix("Note: this run should take about ") == true, "\(console.stderr)")
    #expect(lines.first?.contains("1,000,000,000 user walks × 5.0 screens") == true)
    let tenths: [String?] = lines.dropFirst().map { $0.split(separator: " · ").first.map(String.init) }
    #expect(tenths == (1...10).map { "simulating: \($0 * 10)%" })
    #expect(lines.last?.hasSuffix("about 0 s left") == true, "\(console.stderr)")
    #expect(console.stdout.isEmpty)
  }

  @Test func shortQuietOrTerminalRunsPrintNoLines() {
    let short = WorkEstimate(walks: 1e6, stepsPerWalk: 5)
    let long = WorkEstimate(walks: 1e9, stepsPerWalk: 5)
    for (estimate, enabled) in [(short, true), (long, false), (nil, true)] {
      let console = CapturingConsole()
      let bar = ProgressBar(console: console, label: "grid", enabled: enabled, estimate: estimate)
      for done in [0, 500, 1000] { bar.update(done: done, total: 1000) }
      #expect(console.stderr.isEmpty)
    }
    // On a terminal the bar redraws in place: the announcement, then no line of its own.
    let terminal = CapturingConsole(terminal: true)
    let bar = ProgressBar(console: terminal, label: "grid", enabled: true, estimate: long)
    bar.update(done: 1000, total: 1000)
    #expect(terminal.stderr.hasPrefix("Note: ") && !terminal.stderr.contains("grid: 100%"))
  }

  /// Any bar announces a run whose pace, after its first second, says it takes over 10 s (once,
  /// with what is left; then a line per 10 % off a terminal); a short or quiet run says nothing.
  @Test func aBarAnnouncesALongRunFromItsPace() throws {
    let console = CapturingConsole()
    let bar = ProgressBar(console: console, label: "planning", enabled: true, unit: "replicates", note: nil)
    bar.update(done: 10, total: 1000, elapsed: 0.5)
    #expect(console.stderr.isEmpty, "too early to trust the pace")
    bar.update(done: 20, total: 1000, elapsed: 1.2)
    bar.update(done: 150, total: 1000, elapsed: 9)
    let lines = console.stderr.split(separator: "\n")
    #expect(
      lines.first == "Note: planning should take about 59 s more (2 % of 1,000 replicates in 1 s); progress follows, --quiet hides it.",
      "\(console.stderr)")
    #expect(lines.dropFirst().first == "planning: 15% · 9 s so far · about 51 s left", "\(console.stderr)")
    #expect(console.stderr.components(separatedBy: "Note:").count == 2, "announced once")
    for (elapsed, quiet) in [(1.5, false), (30.0, true)] {
      let short = CapturingConsole()
      try TerminalOptions.$isQuiet.withValue(quiet) {
        let bar = ProgressBar(console: short, label: "planning", enabled: true, unit: "replicates", note: nil)
        bar.update(done: quiet ? 10 : 500, total: 1000, elapsed: elapsed)
        try #require(short.stderr.isEmpty, "\(short.stderr)")
      }
    }
  }

  /// Work paced by its first report: announced when the rest is long, silent when short.
  @Test func pacedWorkIsAnnouncedFromItsFirstReport() {
    for (long, expected) in [(true, 4), (false, 0)] {
      let console = CapturingConsole()
      let progress = PacedProgress(console: console, label: "points", unit: "points") { _, done, total in
        #expect(done == 1 && total == 10)
        return long ? "Note: long.\n" : nil
      }
      for done in [1, 5, 10] { progress.update(done: done, total: 10) }
      progress.finish()
      // The note, then a line at 10 %, 50 % and 100 % (off a terminal).
      #expect(console.stderr.split(separator: "\n").count == expected, "\(console.stderr)")
    }
  }

  @Test func durationsReadAsPeopleSayThem() {
    #expect(ProgressBar.duration(0.132) == "132 ms")
    #expect(ProgressBar.duration(45) == "45 s")
    #expect(ProgressBar.duration(192) == "3.2 min")
    #expect(ProgressBar.duration(5_400) == "1.5 h")
  }
}
