import FunnelLab
import FunnelReport

/// `funnellab trace`: the analytics event stream of each simulated user.
enum TraceCommand: Command {
  static let spec = CommandSpec(
    name: "trace",
    abstract: "Emit each simulated user's analytics events (NDJSON) for one variant.",
    discussion: """
      Walks users 0..<n through one variant with the engine of 'run' and the same
      random streams: user u here is user u of 'run' with the same seed, so the
      events summed over users give the counts 'run' reports. One JSON object per
      line: user_id, timestamp_ms (simulated, from the user's onboarding_started),
      event and properties. --events-map renames events to your own taxonomy with a
      JSON object {"onboarding_started": "Onboarding Started", ...}.
      """,
    positionals: [PositionalSpec(name: "spec", help: "An experiment spec (JSON); default: built-in klick-onboarding.")],
    options: [
      OptionSpec(name: "users", short: "n", valueName: "n", help: "Users to trace, at most 100,000 (default: 100)."),
      OptionSpec(name: "seed", valueName: "n", help: "Random seed (default: the spec's \"seed\")."),
      OptionSpec(name: "variant", valueName: "id", help: "The variant to walk (default: the control)."),
      OptionSpec(name: "events-map", valueName: "file", help: "A JSON object renaming events (FunnelLab name → yours)."),
      OptionSpec(
        name: "variant-property", valueName: "name", help: "Add the variant's id to every event's properties under this name."),
      OptionSpec(name: "format", short: "f", valueName: "format", help: "ndjson (the only format)."),
      OutputDestination.option,
    ],
    examples: [
      "funnellab trace --users 3 | head",
      "funnellab trace experiments/klick-onboarding.json --users 100 --variant features3 --format ndjson -o trace.ndjson",
      "funnellab trace --events-map experiments/data/klick-events-map.json",
      "funnellab trace --users 1000 --variant features3 --variant-property variant | funnellab ingest --variant-property variant",
    ])

  static func run(_ arguments: ParsedArguments, console: any Console) throws -> ExitCode {
    let users = try arguments.integer("users", in: 1...100_000) ?? 100
    let seed = try arguments.unsigned("seed")
    _ = try arguments.choice("format", ["ndjson"])
    let output = OutputDestination(path: arguments.value("output"))
    let variantProperty = try EventOptions.variantProperty(arguments)
    if let name = variantProperty, TraceEvent.propertyNames.contains(name) {
      throw UsageError(
        message: "--variant-property: the events already have a property '\(name.escapingControlCharacters)'",
        hint: "choose another name, e.g. --variant-property variant")
    }
    let names = try EventOptions.names(arguments, console: console)
    let experiment = try LoadedSpec.load(arguments, console: console).experiment
    _ = try knownVariants(arguments.all("variant"), of: experiment)
    let flow: CompiledFlow
    do {
      flow = try UserTrace.flow(of: experiment, variant: arguments.value("variant"))
    } catch {
      throw CommandFailure.invalid(error)
    }
    // Streamed user by user (in chunks of about 1 MB), never held whole.
    try output.stream(console: console) { (emit: (String) throws(CommandFailure) -> Void) throws(CommandFailure) in
      var buffer = ""
      try UserTrace.walk(flow, users: 0..<UInt64(users), seed: seed ?? experiment.seed, names: names) {
        (events: [TraceEvent]) throws(CommandFailure) in
        buffer += TraceRenderer.ndjson(
          variantProperty.map { name in events.map { $0.adding(name, .string(flow.variantID)) } } ?? events)
        if buffer.utf8.count >= 1 << 20 {
          try emit(buffer)
          buffer = ""
        }
      }
      try emit(buffer)
    }
    return .success
  }
}
