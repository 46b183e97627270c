import FunnelReport

/// A report format of `--format`, parsed once when a command starts (FunnelReport's
/// ``ReportFormat``, with the command line's option and lists).
typealias OutputFormat = ReportFormat

extension ReportFormat {
  /// The `--format` option of a command that writes `formats`, the first one by default:
  /// `table, json, csv, markdown or html (default: table).`
  static func option(_ formats: [OutputFormat]) -> OptionSpec {
    let names = formats.map(\.rawValue)
    let list = names.count < 2 ? names.joined() : names.dropLast().joined(separator: ", ") + " or " + (names.last ?? "")
    return OptionSpec(name: "format", short: "f", valueName: "format", help: "\(list) (default: \(names.first ?? "")).")
  }

  /// `report` in this format, as a command writes it to `console`, which sees the report first
  /// (``Console/willWrite(_:)``).
  /// - Throws: ``UsageError`` when `report` is not written in this format.
  func text(of report: any Report, console: any Console) throws(UsageError) -> String {
    console.willWrite(report)
    return try text(of: report)
  }

  /// `report` in this format, as the command line writes it: a table rendered inside the
  /// command's ``TerminalOptions/layout`` and fitted to it (``terminal(_:)``).
  /// - Throws: ``UsageError`` when `report` is not written in this format (a command whose
  ///   `--format` offers it for another of its reports).
  func text(of report: any Report) throws(UsageError) -> String {
    guard let text = render(report, fittingTable: { terminal($0()) }) else {
      let formats = type(of: report).formats.map(\.rawValue)
      throw UsageError(
        message: "this report is not written as \(rawValue)", hint: "use --format \(formats.joined(separator: ", "))")
    }
    return text
  }
}

extension OutputDestination {
  /// Writes `report` in `format` (a table fitted to the terminal): the one way a command writes
  /// its report.
  /// - Throws: ``UsageError`` when `report` is not written in `format`; ``CommandFailure`` (73)
  ///   when the output cannot be written.
  func write(_ report: any Report, as format: OutputFormat, console: any Console) throws {
    try write(try format.text(of: report, console: console), console: console)
  }
}
