import Foundation
import FunnelLab
import FunnelReport

/// `funnellab ingest`: an analytics event log turned into the counts `calibrate` reads.
enum IngestCommand: Command {
  static let spec = CommandSpec(
    name: "ingest",
    abstract: "Count the views and actions of an analytics event log (NDJSON or CSV) for calibrate.",
    discussion: """
      Reads one event per line, streaming (memory does not grow with the number of
      events): the taxonomy 'trace' writes, or your own with --events-map (the same
      file as trace's: FunnelLab name → yours). Counts every screen's views
      (onboarding_screen_viewed) and every action taken on it (continued, skipped,
      back, goal selected, upgrade tapped, maybe later, restore tapped, failed, quit),
      per variant with --variant-property, and writes them as CSV: count,screen,action
      [,variant], a screen's views in the row with an empty action; 'calibrate' reads
      it. NDJSON lines name the event in "event" (or "event_type") and hold the
      properties in "properties" (or "event_properties"); a CSV has a header with an
      event column and one column per property. A line that is not an event, or an
      event that counts but lacks its screen, is a bad line: by default the first one
      stops the command (exit 65, no output); --max-bad-lines N skips up to N of them,
      each counted and the first ones named on stderr, never silently. A summary of
      what was read goes to stderr.
      """,
    positionals: [
      PositionalSpec(
        name: "events", help: "The event log (NDJSON or CSV); '-' or nothing: standard input.", standardInputWhenAbsent: true)
    ],
    options: [
      EventOptions.eventsMap, variantProperty, EventOptions.inputFormatOption, EventOptions.maximumBadLinesOption, OutputDestination.option,
    ],
    examples: [
      "funnellab trace --users 1000 | funnellab ingest",
      "funnellab ingest experiments/data/klick-events.ndjson --events-map experiments/data/klick-events-map.json -o observed.csv",
      "funnellab ingest experiments/data/klick-events.csv --variant-property variant --max-bad-lines 1",
    ])

  /// `--variant-property` of `ingest`.
  static let variantProperty = Option<String?>.text(
    "variant-property", valueName: "name", help: "Count per variant: the property naming it on every event.")

  static func run(_ arguments: ParsedArguments, console: any Console) throws -> ExitCode {
    let path = arguments.positionals.first ?? "-"
    let format = try EventOptions.inputFormat(arguments, path: path)
    let maximumBad = try EventOptions.maximumBadLines(arguments)
    let variantProperty = try EventOptions.variantProperty(arguments, Self.variantProperty)
    let output = OutputDestination(path: try arguments[OutputDestination.option])
    let names = try EventOptions.names(arguments, console: console)
    var ingest = EventIngest(format: format, names: names, variantProperty: variantProperty)
    let stopped = try EventOptions.read(path, into: &ingest, maximumBad: maximumBad, label: "ingest", console: console)
    let source = InputFile.displayName(path)
    try check(ingest, stopped: stopped, source: source, maximumBad: maximumBad)
    try output.write(IngestRenderer.csv(ingest, variants: variantProperty != nil), console: console)
    console.err(IngestRenderer.summary(ingest, source: source))
    return .success
  }

  /// Refuses a log that stopped the reading, has more bad lines than allowed, or counts nothing.
  private static func check(
    _ ingest: EventIngest, stopped: (line: Int, message: String)?, source: String, maximumBad: Int
  ) throws(CommandFailure) {
    try EventOptions.check(ingest, stopped: stopped, source: source, maximumBad: maximumBad)
    if ingest.counted == 0 {
      let seen = IngestRenderer.summary(ingest, source: source).split(separator: "\n").dropFirst().joined(separator: " ")
      throw .invalidInput(
        "\(source): no view or action among \(ingest.lines) lines\(seen.isEmpty ? "" : " (\(seen.trimmingCharacters(in: .whitespaces)))")"
          + "; are the events FunnelLab's, or renamed with --events-map?")
    }
  }
}
