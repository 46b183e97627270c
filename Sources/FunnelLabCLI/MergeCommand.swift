import Foundation
import FunnelLab
import FunnelReport

/// `funnellab merge`: combine shard files into the result of the single run.
enum MergeCommand: Command {
  static let spec = CommandSpec(
    name: "merge",
    abstract: "Merge the partial results of a sharded run or grid into the single-run result.",
    discussion: """
      Each shard file (written by 'run' or 'grid' with --shard i/n or --shards n) holds
      integer sufficient statistics of its slice of users, the spec and the settings
      (a shard of 'grid --exact' holds the exact values of its share of the cells).
      merge checks that every file comes from the same spec, seed, settings and shard
      count, that each shard appears once and none is missing, sums the statistics (in
      any order: the sums are exact) and renders exactly the bytes the single run would.
      """,
    positionals: [PositionalSpec(name: "shard-file", help: "Shard files, in any order.", optional: false, variadic: true)],
    options: [Key.format, Key.top, OutputDestination.option],
    examples: [
      "funnellab run experiments/klick-onboarding.json --shard 0/4 -o parts/0.json   # … 1/4, 2/4, 3/4",
      "funnellab merge parts/*.json --format json -o result.json",
    ])

  /// The options of `merge`.
  enum Key {
    static let format = Option<OutputFormat>.format(
      for: RunReport.Content.self, GridRenderer.Report.self, GridRankingRenderer.Report.self, PlanningRenderer.Report.self)
    static let top = Option<Int?>.integer(
      "top", valueName: "k", help: "For a grid: show only the k best cells (table).", in: 1...10_000)
  }

  static func run(_ arguments: ParsedArguments, console: any Console) throws -> ExitCode {
    let format = try arguments[Key.format]
    let top = try arguments[Key.top]
    var files: [(source: String, file: ShardFile)] = []
    var plans: [(source: String, file: PlanningShardFile)] = []
    var exactGrids: [(source: String, file: ExactGridShardFile)] = []
    for path in arguments.positionals {
      let text = try InputFile.read(path, console: console)
      do {
        if let document = try? JSONParser.parse(text), case .string("power")? = document["command"]?.kind {
          plans.append((path, try PlanningShardFile.read(document, source: path)))
        } else if let document = try? JSONParser.parse(text), ExactGridShardFile.isExactGrid(document) {
          exactGrids.append((path, try ExactGridShardFile.read(document, source: path)))
        } else {
          files.append((path, try ShardFile.read(text: text, source: path)))
        }
      } catch {
        throw CommandFailure.invalid(error)
      }
    }
    if !exactGrids.isEmpty {
      guard files.isEmpty, plans.isEmpty else {
        throw CommandFailure.invalidInput("the files mix shards of grid --exact with other shards; merge one run at a time.")
      }
      let ranking: GridRanking
      do { ranking = try ExactGridShardFile.merge(exactGrids) } catch {
        throw CommandFailure(code: ExitCode(error), text: error.errors.map(mergeErrorLine).joined())
      }
      try OutputDestination(path: try arguments[OutputDestination.option]).write(
        GridRankingRenderer.Report(ranking, top: top), as: format, console: console)
      return .success
    }
    if !plans.isEmpty {
      guard files.isEmpty else {
        throw CommandFailure.invalidInput(
          "the files mix planning shards with run or grid shards; merge one run at a time.")
      }
      if top != nil { throw Self.topNeedsAGrid("planning") }
      let report: PlanningReport
      do { report = try PlanningShardFile.merge(plans) } catch {
        throw CommandFailure(code: ExitCode(error), text: error.errors.map(mergeErrorLine).joined())
      }
      try OutputDestination(path: try arguments[OutputDestination.option]).write(
        PlanningRenderer.Report(report), as: format, console: console)
      return .success
    }
    let merged: (Experiment, RunResult, ShardFile)
    do {
      merged = try ShardFile.merge(files)
    } catch {
      throw CommandFailure(code: ExitCode(error), text: error.errors.map(mergeErrorLine).joined())
    }
    let (experiment, result, first) = merged
    let report: any Report
    if first.command == "grid" {
      let original = try ExperimentLoader.load(text: first.specText, source: files[0].source)
      guard let grid = original.grid else { return .software }
      report = GridRenderer.Report(GridReport(result: result, grid: grid, spec: original.metrics), top: top)
    } else {
      if top != nil { throw Self.topNeedsAGrid("run") }
      report = RunReport.Content(result, metrics: experiment.metrics)
    }
    try OutputDestination(path: try arguments[OutputDestination.option]).write(report, as: format, console: console)
    return .success
  }

  /// `--top` given for shards that are not a grid's: refused rather than ignored.
  static func topNeedsAGrid(_ kind: String) -> UsageError {
    UsageError(message: "--top ranks the cells of a grid; these are \(kind) shards", hint: "drop --top")
  }

  /// One merge problem as a line: the field it concerns (when it has one), what is wrong
  /// and what to do.
  static func mergeErrorLine(_ e: SpecError) -> String {
    let field = e.path.components.isEmpty ? "" : "\(e.path): "
    return "Error: \(field)\(e.message)" + (e.hint.map { "; \($0)" } ?? "") + "\n"
  }
}
