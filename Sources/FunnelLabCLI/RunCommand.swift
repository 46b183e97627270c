import FunnelLab
import FunnelReport

/// `funnellab run`: simulate every variant of an experiment and report the funnels.
enum RunCommand: Command {
  static let spec = CommandSpec(
    name: "run",
    abstract: "Simulate every variant of an experiment and show each funnel.",
    discussion: """
      Walks the same synthetic users through every variant (truth mode: common random
      numbers, so differences between variants are paired estimates over the same users,
      with paired intervals and tests) and reports, per variant, users reaching each screen, drop-off, completion, skip
      rate, paywall view rate, purchase conversion, plan mix and time to finish.
      Without <spec>, runs the built-in Klick onboarding experiment.
      Results depend only on the spec and the seed: any --threads gives the same bytes.
      A progress bar appears on stderr when it is a terminal.
      """,
    positionals: [PositionalSpec(name: "spec", help: "An experiment spec (JSON); default: built-in klick-onboarding.")],
    options: [
      OptionSpec(name: "users", short: "n", valueName: "n", help: "Users per variant (default: the spec's \"users\")."),
      OptionSpec(name: "seed", valueName: "n", help: "Random seed (default: the spec's \"seed\")."),
      OptionSpec(name: "threads", short: "j", valueName: "n", help: "Worker threads (default: all cores)."),
      OptionSpec(name: "variant", valueName: "id", help: "Run only this variant (and the control).", repeatable: true),
      OptionSpec(
        name: "mode", valueName: "mode",
        help: "truth (default: every user walks every variant) or experiment (users split among arms by hash, analysed like an A/B test, beside the truth)."),
      OptionSpec(name: "format", short: "f", valueName: "format", help: "table, json, csv, markdown or html (default: table)."),
      OutputDestination.option,
      OptionSpec(name: "quiet", short: "q", help: "No progress bar."),
    ] + shardOptions,
    examples: [
      "funnellab run",
      "funnellab run experiments/betfree-onboarding.json --users 1000000",
      "funnellab run experiments/klick-onboarding.json --format json --threads 1 -o klick.json",
      "funnellab run experiments/betfree-onboarding.json --mode experiment --users 50000",
    ])

  static func run(_ arguments: ParsedArguments, console: any Console) throws -> ExitCode {
    let users = try arguments.integer("users", in: 1...10_000_000_000)
    let seed = try arguments.unsigned("seed")
    let threads = try arguments.integer("threads", in: 1...1024)
    let format = try arguments.choice("format", ["table", "json", "csv", "markdown", "html"]) ?? "table"
    let mode = RunMode(rawValue: try arguments.choice("mode", RunMode.allCases.map(\.rawValue)) ?? "truth") ?? .truth
    let output = OutputDestination(path: arguments.value("output"))
    let experiment = try loadExperiment(arguments)
    let variants = arguments.all("variant")
    var options = RunOptions(users: users, seed: seed, threads: threads, variants: variants.isEmpty ? nil : variants)
    options.shard = try shard(arguments, console: console)
    if options.shard != nil, mode == .experiment {
      throw UsageError(message: "--shard works with --mode truth", hint: "shard the truth run, or run experiment mode on one machine")
    }
    let bar = ProgressBar(console: console, label: "simulating", enabled: !arguments.flag("quiet"))
    let result: RunResult
    var truth: RunResult?
    do {
      if mode == .experiment {
        var observedOptions = options
        observedOptions.mode = .experiment
        result = try ExperimentRunner.run(experiment, options: observedOptions) { done, total in
          bar.update(done: done / 2, total: total)
        }
        truth = try ExperimentRunner.run(experiment, options: options) { done, total in
          bar.update(done: total / 2 + done / 2, total: total)
        }
      } else {
        result = try ExperimentRunner.run(experiment, options: options) { done, total in bar.update(done: done, total: total) }
      }
    } catch {
      bar.finish()
      throw CommandFailure.invalid(error)
    }
    bar.finish()
    if mode == .experiment {
      let report = ExperimentReport(observed: result, truth: truth, spec: experiment.metrics)
      let text =
        switch format {
        case "json": ExperimentReportRenderer.json(report)
        case "csv": ExperimentReportRenderer.csv(report)
        case "markdown": ExperimentReportRenderer.markdown(report)
        case "html": ExperimentReportRenderer.html(report, observed: result)
        default: ExperimentReportRenderer.table(report)
        }
      try output.write(text, console: console)
      return .success
    }
    if let shard = options.shard {
      let file = ShardFile(
        command: "run", shard: shard, specText: try specText(arguments), seed: result.seed, users: result.usersPerVariant,
        mode: .truth, variants: options.variants, aggregates: result.variants.map(\.aggregate), paired: result.variants.map(\.paired))
      try output.write(JSONWriter.write(file.json), console: console)
      return .success
    }
    let summaries = FunnelSummary.all(result)
    let text =
      switch format {
      case "json": RunJSONRenderer.render(result, summaries: summaries)
      case "csv": RunCSVRenderer.render(result, summaries: summaries)
      case "markdown": RunMarkdownRenderer.render(result, summaries: summaries)
      case "html": RunHTMLRenderer.render(result, summaries: summaries)
      default: RunTableRenderer.render(result, summaries: summaries)
      }
    try output.write(text, console: console)
    return .success
  }
}

/// `funnellab validate`: check specs without running them.
enum ValidateCommand: Command {
  static let spec = CommandSpec(
    name: "validate",
    abstract: "Check experiment specs and list every problem with its JSON path and line.",
    discussion: """
      Reports JSON syntax errors, wrong types, unknown keys (with "did you mean"),
      unknown or duplicate screen ids, unreachable screens, flows that cannot
      complete, probabilities outside [0, 1] or not summing to 1 (tolerance 1e-6),
      negative prices or durations, and variants whose patches break the flow.
      Exits 0 when every spec is valid, 65 otherwise.
      """,
    positionals: [PositionalSpec(name: "spec", help: "Experiment specs (JSON).", optional: false, variadic: true)],
    options: [],
    examples: ["funnellab validate experiments/*.json"])

  static func run(_ arguments: ParsedArguments, console: any Console) throws -> ExitCode {
    var worst = ExitCode.success
    for path in arguments.positionals {
      do {
        let experiment = try ExperimentLoader.load(contentsOf: path)
        console.out("\(path): valid (\(experiment.flow.screens.count) screens, \(experiment.variants.count) variants)\n")
      } catch {
        let failure = CommandFailure.invalid(error)
        console.err(failure.text)
        if worst == .success || failure.code == .invalidInput { worst = failure.code }
      }
    }
    return worst
  }
}
