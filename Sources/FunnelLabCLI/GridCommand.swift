import FunnelLab
import FunnelReport

/// `funnellab grid`: every cell of a spec's grid, ranked.
enum GridCommand: Command {
  static let spec = CommandSpec(
    name: "grid",
    abstract: "Run every cell of a spec's grid (factors × levels) and rank them by the primary metric.",
    discussion: """
      The spec's "grid" crosses factors (e.g. upsell position × goal required × default
      plan); each cell is a variant named factor=level,... and is compared with the
      control (the spec's first variant). Cells run in truth mode (the same users walk
      every cell) on all cores; results are byte-identical for any --threads. The table
      ranks cells by the spec's primary metric with raw, Holm- and Benjamini–Hochberg-
      adjusted p-values and the guardrails. A progress bar (rate, ETA) appears on stderr
      when it is a terminal; a grid estimated at over 10 s is announced first, and off
      a terminal it reports every 10 %. Without <spec>, runs the built-in
      Klick grid (18 cells).
      With --exact: no users and no seed; every cell (up to 100,000) is solved by the
      exact engine, streamed a block at a time, and ranked. The table, Markdown and HTML
      show the --top best cells (default 20), the Pareto front of purchase conversion
      against revenue per user and each factor's main effect; JSON and CSV carry every
      cell. With --shard, each shard solves a share of the cells and 'merge' ranks them:
      the same bytes for any shard count. The simulated grid runs its cells as variants
      (at most 999); a larger grid needs --exact.
      """,
    positionals: [PositionalSpec(name: "spec", help: "An experiment spec with a \"grid\" (default: built-in klick-onboarding).")],
    options: [
      Key.users, SharedOptions.seed, SharedOptions.threads, Key.top, Key.exact, Key.format, SharedOptions.alpha, OutputDestination.option,
    ] + SharedOptions.shardOptions,
    conflicts: SharedOptions.shardConflicts([Key.format, Key.top])
      + ([Key.users, SharedOptions.seed, SharedOptions.alpha] as [any OptionKey]).map { (option: any OptionKey) -> OptionConflict in
        OptionConflict(
          option, Key.exact, message: "--exact has no users, no seed and no test: --\(option.spec.name) does not apply",
          hint: "drop --\(option.spec.name), or drop --exact to simulate the grid")
      },
    examples: [
      "funnellab grid",
      "funnellab grid experiments/klick-onboarding.json --users 20000 --threads 2 --format json -o grid.json",
      "funnellab grid --exact --top 5",
    ])

  /// The options of `grid` (the shared ones are ``SharedOptions``).
  enum Key {
    static let users = Option<Int?>.integer(
      "users", short: "n", valueName: "n", help: "Users per cell (default: the spec's \"users\").", in: Limits.users)
    static let top = Option<Int?>.integer(
      "top", valueName: "k", help: "Show only the k best cells (table; with --exact also Markdown and HTML, default 20).",
      in: 1...10_000)
    static let exact = Option<Bool>.flag(
      "exact", help: "Rank every cell by the exact engine, streamed: no users, no seed, up to 100,000 cells.")
    static let format = Option<OutputFormat>.format(for: GridRenderer.Report.self, GridRankingRenderer.Report.self)
  }

  static func run(_ arguments: ParsedArguments, console: any Console) throws -> ExitCode {
    let users = try arguments[Key.users]
    let seed = try arguments[SharedOptions.seed]
    let threads = try arguments[SharedOptions.threads]
    let top = try arguments[Key.top]
    let format = try arguments[Key.format]
    if try arguments[Key.exact] { return try exact(arguments, format: format, top: top, threads: threads, console: console) }
    let spec = try LoadedSpec.load(arguments, console: console)
    var experiment = spec.experiment
    try applyAlpha(arguments, to: &experiment)
    if let cells = experiment.grid?.cellCount, cells + 1 > Limits.variants {
      throw CommandFailure(
        code: .invalidInput,
        text:
          "Error: the grid has \(cells) cells; the simulated grid runs at most \(Limits.variants - 1) (each cell a variant); rank every cell exactly with --exact.\n"
      )
    }
    guard let grid = experiment.grid, let gridded = experiment.gridExperiment() else {
      throw noGrid(experiment.name)
    }
    let result: RunResult
    var options = RunOptions(users: users, seed: seed, threads: threads)
    options.shard = try shard(arguments, console: console)
    let bar = ProgressBar(
      console: console, label: "grid", enabled: !(try arguments[TerminalOptions.quiet]),
      estimate: WorkEstimate.run(gridded, options: options),
      threads: threads)
    do {
      result = try Simulation.run(gridded, options: options) { done, total in
        bar.update(done: done, total: total)
      }.run
    } catch {
      bar.finish()
      throw CommandFailure.invalid(error)
    }
    bar.finish()
    if let shard = options.shard {
      let file = ShardFile(
        command: "grid", shard: shard, specText: spec.text, seed: result.seed, users: result.usersPerVariant,
        mode: .truth, variants: nil, aggregates: result.variants.map(\.aggregate), paired: result.variants.map(\.paired))
      try OutputDestination(path: try arguments[OutputDestination.option]).write(JSONWriter.write(file.json), console: console)
      return .success
    }
    let report = GridReport(result: result, grid: grid, spec: experiment.metrics)
    try OutputDestination(path: try arguments[OutputDestination.option]).write(
      GridRenderer.Report(report, top: top), as: format, console: console)
    return .success
  }

  /// `grid --exact`: every cell ranked by the exact engine (``GridRanking``), with a progress
  /// bar over the cells; with `--shard`, one shard's cells written for `merge`.
  static func exact(
    _ arguments: ParsedArguments, format: OutputFormat, top: Int?, threads: Int?, console: any Console
  ) throws -> ExitCode {
    let spec = try LoadedSpec.load(arguments, console: console)
    let experiment = spec.experiment
    guard experiment.grid != nil else {
      throw noGrid(experiment.name)
    }
    let shard = try shard(arguments, console: console)
    let bar = ProgressBar(console: console, label: "solving", enabled: !(try arguments[TerminalOptions.quiet]), unit: "cells")
    let part: GridRanking.Part
    do {
      part = try GridRanking.solve(experiment, shard: shard, threads: threads) { done, total in bar.update(done: done, total: total) }
    } catch {
      bar.finish()
      throw CommandFailure.invalid(error)
    }
    bar.finish()
    let output = OutputDestination(path: try arguments[OutputDestination.option])
    if let shard {
      let file = ExactGridShardFile(shard: shard, specText: spec.text, part: part)
      try output.write(JSONWriter.write(file.json), console: console)
      return .success
    }
    let ranking: GridRanking
    do { ranking = try GridRanking(experiment, parts: [part]) } catch { throw CommandFailure.invalid(error) }
    try output.write(GridRankingRenderer.Report(ranking, top: top), as: format, console: console)
    return .success
  }

  /// The refusal of a spec without a grid (exit 65).
  static func noGrid(_ name: String) -> CommandFailure {
    CommandFailure(
      code: .invalidInput,
      text: "Error: \(name) has no \"grid\"; add {\"grid\": {\"factors\": [...]}} (see experiments/klick-onboarding.json).\n")
  }

}
