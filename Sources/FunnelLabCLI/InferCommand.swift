import Foundation
import FunnelLab
import FunnelReport

/// `funnellab infer`: the spec of the flow an analytics event log shows.
enum InferCommand: Command {
  static let spec = CommandSpec(
    name: "infer",
    abstract: "Infer the flow, its probabilities and its dwell times from an analytics event log.",
    discussion: """
      Reads an event log (the taxonomy 'trace' writes, or your own with --events-map;
      or, with --log-format, a clickstream of screen views or an Amplitude, Mixpanel,
      Segment, GA4 or PostHog export, where each move to another screen is a continue,
      back or skip by the screens' order, and a walk's end without completion a quit),
      follows each user (user_id, in time order by timestamp_ms) through the screens and
      writes a spec that 'validate', 'exact', 'run' and 'calibrate' accept: every screen
      users viewed, every action they took with the screen it led to, each action's
      probability per view by maximum likelihood, failed attempts, lognormal dwell
      times, the paywall's plans in the shares users chose them and the store's
      outcomes (prices are not in a log: set them). The behavior model is neutral, so the
      exact engine walks the log's probabilities, and the report says whether it holds:
      the inferred spec's predicted completion and reach per screen against the log's,
      with intervals; a chi-square test per screen of whether users act differently on a
      return visit (a first-order Markov walk cannot); a test per screen of drift, whether
      its actions' shares moved over the log's span (a release that broke a screen, an
      outage), naming the period, so that --since and --until can fit a stable window;
      users who came back after their walk ended, and the screens seen too rarely to fit. Memory holds the users on the
      way, never the events. Add variants to the inferred spec as patches, then plan.
      The spec goes to -o (default: standard output); the report to --report, or to
      standard output when the spec went to a file, else to standard error.
      """,
    positionals: [
      PositionalSpec(
        name: "events", help: "The event log (NDJSON or CSV); '-' or nothing: standard input.", standardInputWhenAbsent: true)
    ],
    options: [EventOptions.eventsMap, EventOptions.inputFormatOption, EventOptions.maximumBadLinesOption] + LogShapeOptions.options + [
      Key.variantProperty, Key.variant, Key.segmentProperty, Key.variantsFrom, Key.since, Key.until, Key.name, Key.report,
      SharedOptions.alpha, Key.format, OutputDestination.option,
    ],
    requirements: LogShapeOptions.requirements + [
      OptionRequirement(
        Key.variantProperty, needs: Key.variant, message: "--variant-property needs --variant ID", hint: "infer reads one variant's events"),
      OptionRequirement(
        Key.variant, needs: Key.variantProperty, message: "--variant needs --variant-property NAME",
        hint: "the property naming each event's variant"),
    ],
    examples: [
      "funnellab infer experiments/data/klick-events.ndjson --events-map experiments/data/klick-events-map.json --variant-property variant --variant control -o inferred.json",
      "funnellab infer experiments/data/klick-events.ndjson --events-map experiments/data/klick-events-map.json --variant-property variant --variant control -o inferred.json --format html --report inferred.html",
      "funnellab infer experiments/data/clickstream-example.csv --completion-event order_confirmation --purchase-event checkout_success -o inferred.json",
    ])

  /// The options of `infer` (the log's shape: ``LogShapeOptions``).
  enum Key {
    static let variantProperty = Option<String?>.text(
      "variant-property", valueName: "name", help: "With --variant: the property naming each event's variant.")
    static let variant = Option<String?>.text(
      "variant", valueName: "id", help: "Read only this variant's events (a log of several variants).")
    static let segmentProperty = Option<String?>.text(
      "segment-property", valueName: "name",
      help: "Segments from this property (e.g. segment): per-segment probabilities where a test says segments differ.")
    static let variantsFrom = Option<String?>.text(
      "variants-from", valueName: "spec",
      help: "Add this spec's variants (their patches) to the inferred flow, to plan them from the log's baseline.", file: .reads)
    static let since = Option<String?>.text(
      "since", valueName: "time",
      help: "Count only walks that start at or after this time (UTC): YYYY-MM-DD, YYYY-MM-DD HH:MM:SS, ISO 8601 or epoch.")
    static let until = Option<String?>.text(
      "until", valueName: "time", help: "Count only walks that start before this time (as --since).")
    static let name = Option<String?>.text("name", valueName: "name", help: "The inferred spec's name (default: inferred-<log name>).")
    static let report = Option<String?>.text("report", valueName: "file", help: "Write the report there, in --format.", file: .writes)
    static let alpha = SharedOptions.alpha.within(1e-12...0.5)
    static let format = Option<OutputFormat>.format(for: InferenceRenderer.Report.self)
  }

  static func run(_ arguments: ParsedArguments, console: any Console) throws -> ExitCode {
    let path = arguments.positionals.first ?? "-"
    let shapeOptions = try LogShapeOptions.read(arguments)
    let inputFormat = try EventOptions.inputFormat(arguments, path: path)
    let maximumBad = try EventOptions.maximumBadLines(arguments)
    let format = try arguments[Key.format]
    let alpha = try arguments[Key.alpha] ?? 0.05
    let names = try EventOptions.names(arguments, console: console)
    let base = (path as NSString).lastPathComponent.split(separator: ".").first.map(String.init) ?? "log"
    let name = try arguments[Key.name] ?? "inferred-" + (path == "-" ? "log" : base)
    guard !name.trimmingCharacters(in: .whitespaces).isEmpty, !name.unicodeScalars.contains(where: { $0.value < 0x20 }) else {
      throw UsageError(message: "--name is empty or holds a control character", hint: "e.g. --name klick-as-logged")
    }
    let source = InputFile.displayName(path)
    let segmentProperty = try arguments[Key.segmentProperty]
    try refuseSegmentProperty(segmentProperty)
    var variant: (property: String, value: String)?
    // Each needs the other (declared in the spec's requirements).
    if let p = try arguments[Key.variantProperty], let v = try arguments[Key.variant] { variant = (p, v) }
    let window = try timeWindow(arguments)
    var log = ScreenViewLog(
      inputFormat, options: shapeOptions,
      inference: FlowInference(
        format: inputFormat, names: names, variant: variant, segmentProperty: segmentProperty, window: window))
    let stopped = try EventOptions.read(path, into: &log, maximumBad: maximumBad, label: "infer", console: console)
    let inference = log.inference
    try check(log, stopped: stopped, source: source, maximumBad: maximumBad)
    let reading = LogReading(log)
    let text: String
    let loaded: LoadedSpec
    do {
      (text, loaded) = try spec(inference, name: name, source: source, arguments: arguments, console: console)
    } catch {
      // No spec, so no report: how the log was read helps find why.
      if let reading { console.err(InferenceRenderer.readingNote(reading) + "\n") }
      throw error
    }
    let solved = try ExactCommand.solve(loaded.experiment).first
    var reach: [String: Double] = [:]
    if let solved {
      for (k, id) in solved.flow.screenIDs.enumerated() where k < solved.exact.reach.count { reach[id] = solved.exact.reach[k] }
    }
    var report = FlowInferenceReport(
      inference, completion: solved?.exact.completion, purchase: solved?.exact.purchase, reach: reach,
      alpha: alpha)
    report.reading = reading
    let specDestination = OutputDestination(path: try arguments[OutputDestination.option])
    let outputPath = try arguments[OutputDestination.option]
    let reportPath = try arguments[Key.report]
    let specName = outputPath.map(InputFile.displayName) ?? "standard output"
    let rendered = try format.text(of: InferenceRenderer.Report(report, spec: specName), console: console)
    // The spec and the report, all or nothing.
    var outputs = OutputSet()
    outputs.add(text, to: specDestination)
    if let reportPath {
      outputs.add(rendered, to: OutputDestination(path: reportPath))
    } else if outputPath != nil, outputPath != "-" {
      outputs.add(rendered, to: OutputDestination(path: nil))
    }
    try outputs.write(console: console)
    if reportPath == nil, outputPath == nil || outputPath == "-" {
      console.err(rendered)
    } else if let reading = report.reading, let reportPath, reportPath != "-" {
      // The report went to a file: standard error still says how the log was read.
      console.err(InferenceRenderer.readingNote(reading) + "\n")
    }
    if inference.badLines > 0 {
      console.err("Skipped \(Vocabulary.plural(inference.badLines, "bad line")) (--max-bad-lines \(maximumBad)).\n")
    }
    return .success
  }

  /// The inferred spec's text, loaded (validated): 65 when no walk completes or the borrowed
  /// variants do not apply, 70 when the spec itself does not validate (a bug).
  private static func spec(
    _ inference: FlowInference, name: String, source: String, arguments: ParsedArguments, console: any Console
  ) throws -> (String, LoadedSpec) {
    let variants = try borrowedVariants(arguments, console: console)
    guard let document = InferredSpec.document(inference, name: name, source: source, variants: variants) else {
      throw CommandFailure(
        code: .invalidInput,
        text: "Error: \(source): no user who started where most did ('\(InferredSpec.order(inference).first ?? "")') completed;"
          + " a spec needs a path to completion: give a log with completed walks (onboarding_completed, or name the event"
          + " with --completion-event).\n")
    }
    let text = JSONWriter.write(document) + "\n"
    do {
      return (text, try LoadedSpec.load(text: text, source: "the inferred spec"))
    } catch {
      if !variants.isEmpty, let other = try arguments[Key.variantsFrom], (try? LoadedSpec.load(text: plain(document), source: "")) != nil {
        throw CommandFailure(
          code: .invalidInput,
          text: "Error: the variants of \(InputFile.displayName(other)) do not apply to the flow inferred from \(source):\n" + error.text)
      }
      throw CommandFailure(
        code: .software,
        text: "Error: the spec inferred from \(source) does not validate (a FunnelLab bug; please report it):\n" + error.text)
    }
  }

  /// The variants of `--variants-from`'s spec but its control (the first, or the one named
  /// `control`), as written.
  private static func borrowedVariants(_ arguments: ParsedArguments, console: any Console) throws -> [JSONValue] {
    guard let path = try arguments[Key.variantsFrom] else { return [] }
    let loaded = try LoadedSpec.load(path, console: console)
    guard case .array(let variants)? = (try? JSONParser.parse(loaded.text))?["variants"]?.kind else { return [] }
    let control = loaded.experiment.variants.first?.id ?? "control"
    let borrowed = variants.filter { v in
      if case .string(let id)? = v["id"]?.kind { return id != control && id != "control" }
      return false
    }
    if !borrowed.isEmpty {
      console.err(
        "Note: the inferred spec's behavior model is neutral, so variants that act through it (features, prices, a default plan,"
          + " an optional question's skip share) change nothing until its parameters are calibrated; moves, removals and new"
          + " probabilities apply as written.\n")
    }
    return borrowed
  }

  /// The window of `--since` and `--until` (64 when either is not a time, or the window is
  /// empty); `nil` without them.
  private static func timeWindow(_ arguments: ParsedArguments) throws(UsageError) -> Range<Double>? {
    func time(_ option: Option<String?>) throws(UsageError) -> Double? {
      let flag = option.spec.name
      guard let text = try arguments[option] else { return nil }
      let dated = text.count == 10 ? text + " 00:00:00" : text
      guard let read = LogTimestamp.milliseconds(dated) else {
        throw UsageError(
          message: "--\(flag) '\(text.escapingControlCharacters)' is not a time",
          hint: "e.g. --\(flag) 2026-01-12, or 2026-01-12 08:00:00, ISO 8601 or epoch seconds (UTC)")
      }
      return read.milliseconds
    }
    let since = try time(Key.since)
    let until = try time(Key.until)
    guard since != nil || until != nil else { return nil }
    let lower = since ?? 0
    let upper = until ?? FlowInference.timestamps.upperBound
    guard lower < upper else {
      throw UsageError(message: "--since must come before --until", hint: "the window is where walks start: [since, until)")
    }
    return lower..<upper
  }

  /// Refuses (64) a `--segment-property` that cannot name a segment: empty, or the user id or
  /// the time (each user, each event, would be a segment of its own).
  private static func refuseSegmentProperty(_ name: String?) throws(UsageError) {
    guard let name else { return }
    let hint = "name the property holding each user's segment, e.g. --segment-property segment"
    if name.isEmpty { throw UsageError(message: "--segment-property: the property's name is empty", hint: hint) }
    if name == "user_id" || name == "timestamp_ms" {
      throw UsageError(message: "--segment-property \(name): \(name) is not a segment (each user would be one of their own)", hint: hint)
    }
  }

  /// The inferred document without its borrowed variants.
  private static func plain(_ document: JSONValue) -> String {
    guard case .object(let members) = document.kind else { return "" }
    let kept = members.map { m -> (String, JSONValue) in
      guard m.key == "variants", case .array(let v) = m.value.kind else { return (m.key, m.value) }
      return (m.key, .array(Array(v.prefix(1))))
    }
    return JSONWriter.write(.object(kept))
  }

  /// Refuses a log that stopped the reading, has more bad lines than allowed, no event of
  /// `--variant` (64), no user whose walk ended, or no segment in `--segment-property`.
  private static func check(
    _ log: ScreenViewLog, stopped: (line: Int, message: String)?, source: String, maximumBad: Int
  ) throws {
    let f = log.inference
    try EventOptions.check(f, stopped: stopped, source: source, maximumBad: maximumBad)
    try EventOptions.checkVariant(f, source: source)
    guard f.users > 0, !f.screens.isEmpty else {
      guard let format = log.format, format != .funnellab else {
        throw CommandFailure.invalidInput(
          "\(source): no user's walk from a screen view to its end among \(f.lines) lines (\(f.events) events of the taxonomy);"
            + " are the events FunnelLab's, or renamed with --events-map, with user_id and timestamp_ms? (another shape: --log-format)")
      }
      throw CommandFailure.invalidInput(
        "\(source): no walk with a screen view among \(log.lines) lines read as a \(format.rawValue) log (\(log.sideEvents) other events);"
          + " name the screen views with --screen-event and --screen-property, or the events that are not with --side-event")
    }
    try EventOptions.checkSegments(f, source: source)
  }
}
