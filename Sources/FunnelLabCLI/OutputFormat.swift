import FunnelReport

/// A report format of `--format`, parsed once when a command starts (FunnelReport's
/// ``ReportFormat``, with the command line's option and lists).
typealias OutputFormat = ReportFormat

extension ReportFormat {
  /// The formats of a command that writes every kind of report.
  static let all: [OutputFormat] = allCases
  /// The formats of a command that writes a terminal table or JSON only.
  static let tableOrJSON: [OutputFormat] = [.table, .json]

  /// The `--format` option of a command that writes `formats`, the first one by default:
  /// `table, json, csv, markdown or html (default: table).`
  static func option(_ formats: [OutputFormat]) -> OptionSpec {
    let names = formats.map(\.rawValue)
    let list = names.count < 2 ? names.joined() : names.dropLast().joined(separator: ", ") + " or " + (names.last ?? "")
    return OptionSpec(name: "format", short: "f", valueName: "format", help: "\(list) (default: \(names.first ?? "")).")
  }
}
