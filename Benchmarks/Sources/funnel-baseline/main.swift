// funnel-baseline: the FunnelLab side of the numpy baseline, and a plain runner for
// memory measurements.
//
//   funnel-baseline export [--out DIR] [--users N] [--runs R] [--seed S]
//     Writes DIR/klick-control-chain.json (Klick control's compiled chain, for
//     baseline/klick_numpy.py) and DIR/klick-control-funnellab.json (FunnelLab's
//     results on users 0..<N and the wall time of R runs on one thread, and the same
//     for the bare walk, which must give identical counts).
//
//   funnel-baseline bare [--explicit] [--users N] [--seed S]
//     The bare table-driven walk of Klick control alone (for profiles: callgrind).
//
//   funnel-baseline run [--flow NAME] [--explicit] [--users N] [--threads T] [--seed S]
//     One Monte Carlo run of a seed flow's control variant; prints the users, the
//     completions and the seconds. Run under `/usr/bin/time -f %M` for peak RSS.
//
//   funnel-baseline scaling [--users N] [--runs R] [--screens 5,10,20,40,63] [--segments 1,4,16]
//     How cost grows with the work: for generated Klick-like flows of each number of
//     screens and segments (GeneratedFlow), the Monte Carlo cost a user on one thread and
//     the exact engine's time (medians of R runs), as the rows of a Markdown table.
//
//   funnel-baseline exact-grid [--spec PATH] [--threads T] [--runs R]
//     Every cell of a spec's grid (and its control) solved exactly on T workers
//     (ExactEngine.solveVariants: cells that differ only in a plan's trial, intro offer or
//     renewal share one walk); prints the median wall time
//     of R runs and the best cell. Default spec: experiments/klick-onboarding.json (18 cells).
import BenchmarkFlows
import Foundation
import FunnelLab

struct Options {
  var values: [String: String] = [:]
  var flags: Set<String> = []

  init(_ arguments: ArraySlice<String>) {
    var i = arguments.startIndex
    while i < arguments.endIndex {
      let a = arguments[i]
      if a == "--explicit" {
        flags.insert(a)
      } else if a.hasPrefix("--"), i + 1 < arguments.endIndex {
        values[String(a.dropFirst(2))] = arguments[i + 1]
        i += 1
      } else {
        fail("unexpected argument '\(a)'")
      }
      i += 1
    }
  }

  func int(_ key: String, _ fallback: Int) -> Int {
    guard let text = values[key] else { return fallback }
    guard let value = Double(text), value >= 0, value == value.rounded() else { fail("--\(key) needs a whole number, got '\(text)'") }
    return Int(value)
  }
}

func fail(_ message: String) -> Never {
  FileHandle.standardError.write(Data("funnel-baseline: \(message)\n".utf8))
  exit(2)
}

func median(_ values: [Double]) -> Double {
  let s = values.sorted()
  return s.count % 2 == 1 ? s[s.count / 2] : (s[s.count / 2 - 1] + s[s.count / 2]) / 2
}

func seconds(_ body: () throws -> Void) rethrows -> Double {
  let clock = ContinuousClock()
  let elapsed = try clock.measure(body)
  return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
}

/// FunnelLab's side of the comparison, as written to JSON.
struct FunnelLabResult: Codable {
  struct Timing: Codable {
    var runs: [Double]
    var medianSeconds: Double
    var medianUsersPerSecond: Double
  }
  var experiment: String
  var variant: String
  var seed: UInt64
  var users: UInt64
  var completed: UInt64
  var purchasers: UInt64
  var planPurchases: [UInt64]
  var plans: [String]
  var completionMeanSeconds: Double
  var completionStandardDeviationSeconds: Double
  var engine: Timing
  var bareWalk: Timing
  /// Whether the bare walk counted exactly what the engine counted.
  var bareWalkIdentical: Bool
}

func export(_ options: Options) throws {
  let out = options.values["out"] ?? "baseline/out"
  let users = options.int("users", 4_000_000)
  let runs = max(1, options.int("runs", 5))
  let seed = UInt64(options.int("seed", 20_261_121))
  let experiment = try SeedFlows.experiment("klick-onboarding")
  let flow = try FlowCompiler.compile(experiment, variant: 0)
  let chain = try ChainTables(experiment, variant: 0)
  try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
  let encoder = JSONEncoder()
  encoder.outputFormatting = [.sortedKeys]
  try encoder.encode(chain).write(to: URL(fileURLWithPath: "\(out)/klick-control-chain.json"))

  // Engine and bare walk alternate, so that a change in the machine's load hits both.
  let engine = MonteCarloEngine(threads: 1)
  var aggregate = FunnelAggregate(for: flow)
  var engineRuns: [Double] = []
  let bare = BareWalk(chain)
  var counts = BareWalk.Counts(plans: 0)
  var bareRuns: [Double] = []
  for _ in 0..<runs {
    engineRuns.append(seconds { aggregate = engine.run(flow, users: users, seed: seed) })
    bareRuns.append(seconds { counts = bare.run(users: 0..<UInt64(users), seed: seed) })
  }
  let identical =
    counts.completed == aggregate[.completed] && counts.purchasers == aggregate[.purchasers]
    && counts.planPurchases == aggregate.planPurchases && counts.completionMillis == aggregate.completionTime.sumMillis
  func timing(_ r: [Double]) -> FunnelLabResult.Timing {
    .init(runs: r, medianSeconds: median(r), medianUsersPerSecond: Double(users) / median(r))
  }
  let result = FunnelLabResult(
    experiment: experiment.name, variant: flow.variantID, seed: seed, users: aggregate[.users],
    completed: aggregate[.completed], purchasers: aggregate[.purchasers], planPurchases: aggregate.planPurchases,
    plans: chain.plans, completionMeanSeconds: aggregate.completionTime.meanSeconds ?? 0,
    completionStandardDeviationSeconds: aggregate.completionTime.standardDeviationSeconds ?? 0,
    engine: timing(engineRuns), bareWalk: timing(bareRuns), bareWalkIdentical: identical)
  encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
  try encoder.encode(result).write(to: URL(fileURLWithPath: "\(out)/klick-control-funnellab.json"))
  print(
    "FunnelLab, 1 thread: \(users) users, median \(String(format: "%.3f", median(engineRuns))) s of \(runs) runs,",
    String(format: "%.2f M users/s", Double(users) / median(engineRuns) / 1e6))
  print(
    "bare walk, 1 thread: median \(String(format: "%.3f", median(bareRuns))) s,",
    String(format: "%.2f M users/s;", Double(users) / median(bareRuns) / 1e6),
    identical ? "counts identical to the engine's" : "COUNTS DIFFER from the engine's")
  if !identical { exit(1) }
}

func run(_ options: Options) throws {
  let name = options.values["flow"] ?? "klick-onboarding"
  var experiment = try SeedFlows.experiment(name)
  if options.flags.contains("--explicit") { experiment = experiment.explicitProbabilitiesOnly }
  let flow = try FlowCompiler.compile(experiment, variant: 0)
  let users = options.int("users", 10_000_000)
  let threads = max(1, options.int("threads", 1))
  var aggregate = FunnelAggregate(for: flow)
  let elapsed = seconds {
    aggregate = MonteCarloEngine(threads: threads).run(flow, users: users, seed: UInt64(options.int("seed", 1)))
  }
  // Draws a user takes: one for the segment and the intent bin (two when the bins are
  // not a power of two up to 2¹¹), one per view (outcome and dwell time), one per option.
  let chain = try ChainTables(experiment, variant: 0)
  let bins = flow.traitBins
  let cellDraws: Double = bins.nonzeroBitCount == 1 && bins <= 1 << 11 ? 1 : 2
  let perUser = Double(aggregate.views.reduce(0, +) + aggregate.optionCounts.reduce(0, +)) / Double(max(aggregate[.users], 1))
  let draws = cellDraws + perUser
  let steps = Double(aggregate.views.reduce(0, +)) / Double(max(aggregate[.users], 1))
  print(
    "\(name)\(options.flags.contains("--explicit") ? " (explicit)" : "") control, \(threads) thread(s): \(aggregate[.users]) users,",
    "\(aggregate[.completed]) completed,", String(format: "%.3f s, %.2f M users/s;", elapsed, Double(users) / elapsed / 1e6),
    String(format: "%.3f steps and %.3f draws a user;", steps, draws),
    "outcome tables \(chain.probabilities.count * 8 / 1024) KB")
}

func bare(_ options: Options) throws {
  let users = options.int("users", 10_000_000)
  var experiment = try SeedFlows.experiment("klick-onboarding")
  if options.flags.contains("--explicit") { experiment = experiment.explicitProbabilitiesOnly }
  let walk = try BareWalk(ChainTables(experiment, variant: 0))
  var counts = BareWalk.Counts(plans: 0)
  let elapsed = seconds { counts = walk.run(users: 0..<UInt64(users), seed: UInt64(options.int("seed", 1))) }
  print(
    "bare walk, klick-onboarding\(options.flags.contains("--explicit") ? " (explicit)" : "") control: \(counts.users) users, \(counts.completed) completed,",
    String(format: "%.3f s, %.2f M users/s", elapsed, Double(users) / elapsed / 1e6))
}

func exactGrid(_ options: Options) throws {
  let path = options.values["spec"] ?? "\(SeedFlows.experimentsDirectory)/klick-onboarding.json"
  let experiment = try ExperimentLoader.load(contentsOf: path)
  guard let gridded = experiment.gridExperiment() else { fail("\(path) has no grid") }
  let threads = max(1, options.int("threads", 2))
  var funnels: [ExactFunnel] = []
  var runs: [Double] = []
  for _ in 0..<max(1, options.int("runs", 5)) {
    runs.append(try seconds { funnels = try ExactEngine.solveVariants(of: gridded, threads: threads) })
  }
  // Where a variant's time goes, on one thread: compiling it, and solving it.
  let sample = min(gridded.variants.count, 50)
  var flows: [CompiledFlow] = []
  let compile = try seconds { flows = try (0..<sample).map { k throws(SpecErrors) in try FlowCompiler.compile(gridded, variant: k) } }
  let solve = seconds { for flow in flows { _ = ExactEngine.solve(flow) } }
  let metric = experiment.metrics.primary
  let values = funnels.map { $0.value(of: metric) ?? -.infinity }
  let best = values.indices.dropFirst().max { values[$0] < values[$1] } ?? 0
  print(
    "\(experiment.name): \(gridded.variants.count) variants (control + \(gridded.variants.count - 1) cells) solved exactly on",
    "\(threads) thread(s): median \(String(format: "%.3f", median(runs))) s of \(runs.count) runs",
    "(\(runs.map { String(format: "%.3f", $0) }.joined(separator: ", ")));",
    "best cell \(gridded.variants[best].id): \(metric) \(String(format: "%.5f", values[best]))",
    "(control \(String(format: "%.5f", values[0])));",
    "one thread, first \(sample) variants: compile \(String(format: "%.1f", compile / Double(sample) * 1000)) ms",
    "and solve \(String(format: "%.1f", solve / Double(sample) * 1000)) ms a variant")
}

func scaling(_ options: Options) throws {
  func list(_ key: String, _ fallback: [Int]) -> [Int] {
    guard let text = options.values[key] else { return fallback }
    return text.split(separator: ",").map { part in
      guard let n = Int(part), n > 0 else { fail("--\(key) needs whole numbers separated by commas, got '\(text)'") }
      return n
    }
  }
  let users = options.int("users", 1_000_000)
  let runs = max(1, options.int("runs", 3))
  print(
    "| screens | segments | steps / user | draws / user | outcome tables | Monte Carlo, 1 thread | ns / user | ns / step | exact engine |")
  print("|---|---|---|---|---|---|---|---|---|")
  for screens in list("screens", [5, 10, 20, 40, 63]) {
    for segments in list("segments", [1, 4, 16]) {
      let experiment = try ExperimentLoader.load(
        text: GeneratedFlow.spec(screens: screens, segments: segments), source: "generated-\(screens)x\(segments)")
      let flow = try FlowCompiler.compile(experiment, variant: 0)
      let tableKB = try ChainTables(experiment, variant: 0).probabilities.count * 8 / 1024
      let engine = MonteCarloEngine(threads: 1)
      var aggregate = FunnelAggregate(for: flow)
      let mc = median((0..<runs).map { _ in seconds { aggregate = engine.run(flow, users: users, seed: 7) } })
      let exact = median((0..<runs).map { _ in seconds { _ = ExactEngine.solve(flow) } })
      let n = Double(max(aggregate[.users], 1))
      let steps = Double(aggregate.views.reduce(0, +)) / n
      let cellDraws: Double = flow.traitBins.nonzeroBitCount == 1 && flow.traitBins <= 1 << 11 ? 1 : 2
      let draws = cellDraws + Double(aggregate.views.reduce(0, +) + aggregate.optionCounts.reduce(0, +)) / n
      print(
        "| \(screens) | \(segments) | \(String(format: "%.2f", steps)) | \(String(format: "%.2f", draws)) |",
        "\(tableKB) KB | \(String(format: "%.2f", n / mc / 1e6)) M users/s |",
        "\(String(format: "%.1f", mc / n * 1e9)) | \(String(format: "%.1f", mc / n / steps * 1e9)) |",
        "\(String(format: "%.1f", exact * 1000)) ms |")
    }
  }
}

let arguments = CommandLine.arguments.dropFirst()
do {
  switch arguments.first {
  case "export": try export(Options(arguments.dropFirst()))
  case "run": try run(Options(arguments.dropFirst()))
  case "bare": try bare(Options(arguments.dropFirst()))
  case "exact-grid": try exactGrid(Options(arguments.dropFirst()))
  case "scaling": try scaling(Options(arguments.dropFirst()))
  default: fail("usage: funnel-baseline export|run|bare|exact-grid|scaling [options] (see the comment at the top of main.swift)")
  }
} catch {
  fail("\(error)")
}
