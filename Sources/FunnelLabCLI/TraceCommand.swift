import FunnelLab
import FunnelReport

/// `funnellab trace`: the analytics event stream of each simulated user.
enum TraceCommand: Command {
  static let spec = CommandSpec(
    name: "trace",
    abstract: "Emit each simulated user's analytics events (NDJSON) for one variant or several.",
    discussion: """
      Walks users 0..<n through one variant with the engine of 'run' and the same
      random streams: user u here is user u of 'run' with the same seed, so the
      events summed over users give the counts 'run' reports. --first-user k walks
      users k..<k+n instead: the same users, at the same times, as in a longer trace,
      so a log can be written in parts (a week of another variant: a flow that drifted). One JSON object per
      line: user_id, timestamp_ms (simulated, from the user's onboarding_started),
      event and properties. --events-map renames events to your own taxonomy with a
      JSON object {"onboarding_started": "Onboarding Started", ...}. With --variant
      given more than once, each variant's users 0..<n follow one another (the log
      of an A/B test with those arms); a user id then repeats across variants, so
      --variant-property, which tells them apart, is required.
      """,
    positionals: [PositionalSpec(name: "spec", help: "An experiment spec (JSON); default: built-in klick-onboarding.")],
    options: [
      Key.users, Key.firstUser, SharedOptions.seed, Key.variant, EventOptions.eventsMap, Key.variantProperty, Key.format, Key.logFormat,
      Key.maximumOutput, OutputDestination.option,
    ],
    examples: [
      "funnellab trace --users 3 | head",
      "funnellab trace experiments/klick-onboarding.json --users 100 --variant features3 --format ndjson -o trace.ndjson",
      "funnellab trace --events-map experiments/data/klick-events-map.json",
      "funnellab trace --users 1000 --variant control --variant features3 --variant-property variant | funnellab ingest --variant-property variant",
      "funnellab trace --users 1000 --log-format clickstream -o clicks.csv",
      "funnellab trace --first-user 1000 --users 1000 --variant features3 --log-format clickstream  # the next 1000 minutes, changed",
    ])

  /// The options of `trace`.
  enum Key {
    static let users = Option<Int?>.integer(
      "users", short: "n", valueName: "n", help: "Users to trace, at most 100,000 (default: 100).", in: 1...100_000)
    static let firstUser = Option<Int?>.integer(
      "first-user", valueName: "k",
      help: "Trace users k..<k+n (default 0): the same users as in a longer trace, at the same times (a log in parts).",
      in: 0...1_000_000_000)
    static let variant = Option<[String]>.repeatable("variant", valueName: "id", help: "The variant to walk (default: the control).")
    static let variantProperty = Option<String?>.text(
      "variant-property", valueName: "name", help: "Add the variant's id to every event's properties under this name.")
    static let format = Option<String?>.choice("format", short: "f", valueName: "format", help: "ndjson (the only format).", ["ndjson"])
    static let logFormat = Option<String?>.choice(
      "log-format", valueName: "shape",
      help: "funnellab (default), clickstream (CSV), amplitude, mixpanel, segment, ga4 or posthog: the shape 'infer' reads.",
      EventLogFormat.allCases.map(\.rawValue))
    static let maximumOutput = Option<Int?>.integer(
      "max-output-mb", valueName: "n",
      help: "Refuse to start when the trace would exceed this many megabytes, estimated from the first 1,000 users (default 1,000).",
      in: 1...10_000_000)
  }

  static func run(_ arguments: ParsedArguments, console: any Console) throws -> ExitCode {
    let users = try arguments[Key.users] ?? 100
    let first = try arguments[Key.firstUser] ?? 0
    let maximumMegabytes = try arguments[Key.maximumOutput] ?? 1_000
    let seed = try arguments[SharedOptions.seed]
    _ = try arguments[Key.format]
    let output = OutputDestination(path: try arguments[OutputDestination.option])
    let variantProperty = try EventOptions.variantProperty(arguments, Key.variantProperty)
    if let name = variantProperty, TraceEvent.propertyNames.contains(name) {
      throw UsageError(
        message: "--variant-property: the events already have a property '\(name.escapingControlCharacters)'",
        hint: "choose another name, e.g. --variant-property variant")
    }
    let names = try EventOptions.names(arguments, console: console)
    let shape = try logShape(arguments)
    let experiment = try LoadedSpec.load(arguments, console: console).experiment
    let picked = try knownVariants(arguments[Key.variant], of: experiment)
    guard Set(picked).count == picked.count else {
      throw UsageError(message: "--variant: a variant is named twice", hint: "name each variant once")
    }
    if picked.count > 1, variantProperty == nil {
      throw UsageError(
        message: "--variant given \(picked.count) times: a user id repeats across the variants' users",
        hint: "add --variant-property variant, so each event says its variant")
    }
    let flows: [CompiledFlow]
    do {
      flows = try (picked.isEmpty ? [nil] : picked.map(Optional.some)).map { id throws(SpecErrors) in
        try UserTrace.flow(of: experiment, variant: id)
      }
    } catch {
      throw CommandFailure.invalid(error)
    }
    try refuseAnOversizedTrace(
      flows, users: users, seed: seed ?? experiment.seed, names: names, variantProperty: variantProperty,
      maximumMegabytes: maximumMegabytes)
    // Streamed user by user (in chunks of about 1 MB), never held whole.
    // A bar on a terminal's stderr, unless the events stream to that terminal too.
    let bar = ProgressBar(
      console: console, label: "tracing",
      enabled: (try arguments[OutputDestination.option].map { $0 != "-" } ?? false) || !console.outIsTerminal,
      unit: "users")
    defer { bar.finish() }
    var done = 0
    try output.stream(console: console) { (emit: (String) throws(CommandFailure) -> Void) throws(CommandFailure) in
      var buffer = shape == .clickstream ? TraceRenderer.csv([TraceShape.clickstreamHeader]) : ""
      for flow in flows {
        try UserTrace.walk(flow, users: UInt64(first)..<UInt64(first + users), seed: seed ?? experiment.seed, names: names) {
          (events: [TraceEvent]) throws(CommandFailure) in
          done += 1
          bar.update(done: done, total: users * flows.count)
          let named = variantProperty.map { name in events.map { $0.adding(name, .string(flow.variantID)) } } ?? events
          switch shape {
          case .funnellab: buffer += TraceRenderer.ndjson(named)
          case .clickstream: buffer += TraceRenderer.csv(TraceShape.clickstreamRows(named))
          default: buffer += TraceRenderer.lines(TraceShape.records(named, format: shape))
          }
          if buffer.utf8.count >= 1 << 20 {
            try emit(buffer)
            buffer = ""
          }
        }
      }
      try emit(buffer)
    }
    return .success
  }

  /// `--log-format` (default `funnellab`); a clickstream holds no renamed events nor variant
  /// column, so `--events-map` and `--variant-property` are refused with it (64), as is
  /// `--events-map` with any tool's shape (its screen views are the tool's).
  static func logShape(_ arguments: ParsedArguments) throws(UsageError) -> EventLogFormat {
    let shape = try arguments[Key.logFormat].flatMap(EventLogFormat.init) ?? .funnellab
    guard shape != .funnellab else { return shape }
    let refused: [any OptionKey] = [EventOptions.eventsMap] + (shape == .clickstream ? [Key.format, Key.variantProperty] : [])
    if let flag = arguments.firstGiven(refused)?.spec.name {
      throw UsageError(
        message: "--\(flag) does not apply to --log-format \(shape.rawValue)",
        hint: "leave --\(flag) out (a \(shape.rawValue) log is written in its own shape)")
    }
    return shape
  }

  /// Refuses before writing anything when the trace's size, estimated from the bytes of each
  /// variant's first 1,000 users (the same users it starts with), would pass `maximumMegabytes`: a
  /// flow whose users loop can write ~90 KB each, 9 GB for 100,000 users.
  static func refuseAnOversizedTrace(
    _ flows: [CompiledFlow], users: Int, seed: UInt64, names: EventNameMap, variantProperty: String?, maximumMegabytes: Int
  ) throws(UsageError) {
    let sample = min(users, 1_000)
    var bytes = 0
    for flow in flows {
      let extraBytesPerEvent = variantProperty.map { $0.utf8.count + flow.variantID.utf8.count + 6 } ?? 0
      _ = UserTrace.walk(flow, users: 0..<UInt64(sample), seed: seed, names: names) { (events: [TraceEvent]) in
        bytes += TraceRenderer.ndjson(events).utf8.count + events.count * extraBytesPerEvent
      }
    }
    let estimate = Double(bytes) / Double(sample) * Double(users)
    guard estimate > Double(maximumMegabytes) * 1e6 else { return }
    throw UsageError(
      message:
        "the trace would be about \(NumberText.grouped(Int(estimate / 1e6))) MB (\(NumberText.grouped(bytes / sample)) bytes per user"
        + " over the first \(NumberText.grouped(sample)) users), over the limit of \(NumberText.grouped(maximumMegabytes)) MB",
      hint: "trace fewer users, or raise the limit with --max-output-mb \(Int((estimate / 1e6).rounded(.up)))")
  }
}
