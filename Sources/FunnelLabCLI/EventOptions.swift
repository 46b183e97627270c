import FunnelLab

/// The options of `trace`, `ingest` and `infer` that read or write events (the map of event
/// names, the property naming the variant, the log's format and the bad lines allowed),
/// and the reading of a log that `ingest` and `infer` share.
enum EventOptions {
  /// `--input-format`, in a command's help.
  static let inputFormatOption = Option<String?>.choice(
    "input-format", valueName: "format", help: "ndjson or csv (default: csv for a .csv file, else ndjson).",
    EventIngest.Format.allCases.map(\.rawValue))
  /// `--max-bad-lines`, in a command's help.
  static let maximumBadLinesOption = Option<Int?>.integer(
    "max-bad-lines", valueName: "n", help: "Skip up to n bad lines, reported on stderr (default: 0).", in: 0...1_000_000_000_000)
  /// `--events-map`: `trace`'s, `ingest`'s and `infer`'s.
  static let eventsMap = Option<String?>.text(
    "events-map", valueName: "file", help: "A JSON object of your event names (FunnelLab name → yours).", file: .reads)

  /// `--input-format`; without it, CSV for a path ending in `.csv`, else NDJSON.
  static func inputFormat(_ arguments: ParsedArguments, path: String) throws(UsageError) -> EventIngest.Format {
    try arguments[inputFormatOption].flatMap(EventIngest.Format.init)
      ?? (path.lowercased().hasSuffix(".csv") ? .csv : .ndjson)
  }

  /// `--max-bad-lines` (default 0).
  static func maximumBadLines(_ arguments: ParsedArguments) throws(UsageError) -> Int {
    try arguments[maximumBadLinesOption] ?? 0
  }

  /// Streams the log at `path` (`-`: standard input) into `log`, stopping early once the bad
  /// lines pass `maximumBad` or a line is fatal; `label` names the progress bar.
  /// - Returns: why the reading stopped before the end, if the file could not be read on.
  static func read<Log: EventLogReading>(
    _ path: String, into log: inout Log, maximumBad: Int, label: String, console: any Console
  ) throws(CommandFailure) -> (line: Int, message: String)? {
    try InputFile.streamLines(
      path, label: label, console: console,
      line: { number, line in
        switch line {
        case .text(let text): log.add(line: text, number: number)
        case .problem(let message): log.addBadLine(message, number: number)
        }
      },
      goOn: { log.fatal == nil && log.badLines <= UInt64(maximumBad) }, finish: { log.finish() })
  }

  /// Refuses (65) a reading that stopped, met a fatal line or passed the bad lines allowed,
  /// naming the line and what to do.
  static func check(
    _ log: some EventLogReading, stopped: (line: Int, message: String)?, source: String, maximumBad: Int
  ) throws(CommandFailure) {
    if let stopped { throw .invalidInput("\(source):\(stopped.line): \(stopped.message); give a log with one event per line.") }
    if let fatal = log.fatal { throw .invalidInput("\(source):\(fatal.line): \(fatal.message.escapingControlCharacters).") }
    if log.badLines > UInt64(maximumBad), let first = log.firstBadLines.first {
      let more = maximumBad == 0 ? "" : " (more than \(maximumBad))"
      throw .invalidInput(
        "\(source):\(first.line): \(first.message.escapingControlCharacters)\(more); fix the line, or skip such lines with --max-bad-lines N "
          + "(each is counted and reported).")
    }
  }

  /// `--events-map`: the team's event names (FunnelLab name → theirs); none keeps every name.
  static func names(_ arguments: ParsedArguments, console: any Console) throws -> EventNameMap {
    guard let path = try arguments[eventsMap] else { return EventNameMap() }
    let text = try InputFile.read(path, console: console)
    do {
      return try EventNameMap(parsing: text, source: InputFile.displayName(path))
    } catch {
      throw CommandFailure.invalid(error)
    }
  }

  /// `--variant-property` (the command's `option`): the property naming the variant; an empty name is refused.
  static func variantProperty(_ arguments: ParsedArguments, _ option: Option<String?>) throws(UsageError) -> String? {
    let name = try arguments[option]
    if name?.isEmpty == true {
      throw UsageError(message: "--variant-property: the property's name is empty", hint: "e.g. --variant-property variant")
    }
    return name
  }
}

extension EventOptions {
  /// Refuses (64) a `--variant` no event of the log names, listing the variants it does
  /// name, closest first; or, when no event names a variant, the `--variant-property`.
  static func checkVariant(_ f: FlowInference, source: String) throws(UsageError) {
    guard let variant = f.variant, f.events == 0, f.otherVariants > 0 else { return }
    let asked = variant.value.escapingControlCharacters
    let property = variant.property.escapingControlCharacters
    guard !f.otherVariantIDs.isEmpty else {
      throw UsageError(
        message: "--variant-property \(property): no event of \(source) has the property \"\(property)\"",
        hint: "give the property that names each event's variant (e.g. --variant-property variant)")
    }
    let listed = NameSuggestion.nearestFirst(to: variant.value, in: f.otherVariantIDs).prefix(10)
    let more = f.otherVariantIDs.count > listed.count ? ", …" : ""
    throw UsageError(
      message: "--variant \(asked): no event of \(source) has \"\(property)\": \"\(asked)\"",
      hint: "the log's variants (closest first): " + listed.map { "'\($0.escapingControlCharacters)'" }.joined(separator: ", ") + more)
  }

  /// Refuses (65) a `--segment-property` that named no user's segment in the log: no event
  /// has it, or every value is empty, an array or an object.
  static func checkSegments(_ f: FlowInference, source: String) throws(CommandFailure) {
    guard let property = f.segmentProperty, f.segments.isEmpty else { return }
    let name = property.escapingControlCharacters
    let held = f.unusableSegments.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key == "empty" ? "empty" : "as " + $0.key)" }
    let found = held.isEmpty ? "no event has it" : "no event holds it as text (events hold it " + held.joined(separator: ", ") + ")"
    throw .invalidInput(
      "\(source): --segment-property \(name) names no segment: \(found); name the property that holds each user's segment"
        + " as text (e.g. --segment-property segment), or leave --segment-property out.")
  }
}
