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
      PositionalSpec(name: "events", help: "The event log (NDJSON or CSV); '-' or nothing: standard input.")
    ],
    options: [
      OptionSpec(name: "events-map", valueName: "file", help: "A JSON object of your event names (FunnelLab name → yours)."),
      OptionSpec(name: "variant-property", valueName: "name", help: "Count per variant: the property naming it on every event."),
      OptionSpec(name: "input-format", valueName: "format", help: "ndjson or csv (default: csv for a .csv file, else ndjson)."),
      OptionSpec(name: "max-bad-lines", valueName: "n", help: "Skip up to n bad lines, reported on stderr (default: 0)."),
      OutputDestination.option,
    ],
    examples: [
      "funnellab trace --users 1000 | funnellab ingest",
      "funnellab ingest experiments/data/klick-events.ndjson --events-map experiments/data/klick-events-map.json -o observed.csv",
      "funnellab ingest experiments/data/klick-events.csv --variant-property variant --max-bad-lines 1",
    ])

  static func run(_ arguments: ParsedArguments, console: any Console) throws -> ExitCode {
    let path = arguments.positionals.first ?? "-"
    let format =
      try arguments.choice("input-format", EventIngest.Format.allCases.map(\.rawValue)).flatMap(EventIngest.Format.init)
      ?? (path.lowercased().hasSuffix(".csv") ? .csv : .ndjson)
    let maximumBad = try arguments.integer("max-bad-lines", in: 0...1_000_000_000_000) ?? 0
    let variantProperty = try EventOptions.variantProperty(arguments)
    let output = OutputDestination(path: arguments.value("output"))
    let names = try EventOptions.names(arguments, console: console)
    var ingest = EventIngest(format: format, names: names, variantProperty: variantProperty)
    let stopped = try read(path, into: &ingest, maximumBad: maximumBad, console: console)
    let source = InputFile.displayName(path)
    try check(ingest, stopped: stopped, source: source, maximumBad: maximumBad)
    try output.write(IngestRenderer.csv(ingest, variants: variantProperty != nil), console: console)
    console.err(IngestRenderer.summary(ingest, source: source))
    return .success
  }

  /// Streams the log at `path` (`-`: standard input) into `ingest`, stopping early once
  /// the bad lines pass `maximumBad` or the log turns out unreadable.
  /// - Returns: why the reading stopped before the end, if it did.
  private static func read(
    _ path: String, into ingest: inout EventIngest, maximumBad: Int, console: any Console
  ) throws(CommandFailure) -> (line: Int, message: String)? {
    try InputFile.streamLines(
      path, label: "ingest", console: console,
      line: { number, line in
        switch line {
        case .text(let text): ingest.add(line: text, number: number)
        case .problem(let message): ingest.addBadLine(message, number: number)
        }
      },
      goOn: { ingest.fatal == nil && ingest.badLines <= UInt64(maximumBad) }, finish: { ingest.finish() })
  }

  /// Refuses a log that stopped the reading, has more bad lines than allowed, or counts nothing.
  private static func check(
    _ ingest: EventIngest, stopped: (line: Int, message: String)?, source: String, maximumBad: Int
  ) throws(CommandFailure) {
    func fail(_ text: String) -> CommandFailure { CommandFailure(code: .invalidInput, text: "Error: \(text)\n") }
    if let stopped { throw fail("\(source):\(stopped.line): \(stopped.message); give a log with one event per line.") }
    if let fatal = ingest.fatal {
      throw fail("\(source):\(fatal.line): \(fatal.message.escapingControlCharacters).")
    }
    if ingest.badLines > UInt64(maximumBad), let first = ingest.firstBadLines.first {
      let more = maximumBad == 0 ? "" : " (more than \(maximumBad))"
      throw fail(
        "\(source):\(first.line): \(first.message.escapingControlCharacters)\(more); fix the line, or skip such lines with --max-bad-lines N "
          + "(each is counted and reported).")
    }
    if ingest.counted == 0 {
      let seen = IngestRenderer.summary(ingest, source: source).split(separator: "\n").dropFirst().joined(separator: " ")
      throw fail(
        "\(source): no view or action among \(ingest.lines) lines\(seen.isEmpty ? "" : " (\(seen.trimmingCharacters(in: .whitespaces)))")"
          + "; are the events FunnelLab's, or renamed with --events-map?")
    }
  }
}
