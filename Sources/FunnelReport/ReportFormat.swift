/// A report format: `--format` of every command. Each report is written in the formats it
/// conforms to (``Report``), and ``render(_:fittingTable:)`` is the one switch over them.
public enum ReportFormat: String, CaseIterable, Sendable {
  /// Aligned columns for a terminal (the command line's default), control characters escaped.
  case table
  /// One JSON document (docs/reference/json-output.md).
  case json
  /// RFC 4180 comma-separated values.
  case csv
  /// GitHub-flavoured Markdown tables.
  case markdown
  /// One self-contained HTML page.
  case html
  /// GitHub Actions annotations (`::error file=…,line=…::`), which `check` writes.
  case github
}

extension ReportFormat {
  /// Whether a report of `type` is written in this format, and this format's rendering of a
  /// report (`fit` wraps the rendering of a table): the one switch over the formats.
  private var conformance: (isWritten: (any Report.Type) -> Bool, render: (any Report, (() -> String) -> String) -> String?) {
    switch self {
    case .table: ({ $0 is any TableReport.Type }, { report, fit in (report as? any TableReport).map { r in fit { r.table() } } })
    case .json: ({ $0 is any JSONReport.Type }, { report, _ in (report as? any JSONReport)?.json() })
    case .csv: ({ $0 is any CSVReport.Type }, { report, _ in (report as? any CSVReport)?.csv() })
    case .markdown: ({ $0 is any MarkdownReport.Type }, { report, _ in (report as? any MarkdownReport)?.markdown() })
    case .html: ({ $0 is any HTMLReport.Type }, { report, _ in (report as? any HTMLReport)?.html() })
    case .github:
      ({ $0 is any GitHubAnnotationsReport.Type }, { report, _ in (report as? any GitHubAnnotationsReport)?.githubAnnotations() })
    }
  }

  /// `report` in this format; `nil` when it is not written in it.
  /// - Parameters:
  ///   - report: the report.
  ///   - fit: wraps the rendering of a table (the command line renders it inside the terminal's
  ///     layout and fits it to the width); by default the table as rendered.
  public func render(_ report: any Report, fittingTable fit: (() -> String) -> String = { $0() }) -> String? {
    conformance.render(report, fit)
  }

  /// Whether reports of `type` are written in this format.
  public func isWritten(by type: any Report.Type) -> Bool { conformance.isWritten(type) }

  /// The formats any of `types` is written in, in declaration order: the `--format` choices of a
  /// command that writes these reports.
  public static func formats(of types: any Report.Type...) -> [ReportFormat] { formats(of: types) }

  /// The formats any of `types` is written in, in declaration order.
  public static func formats(of types: [any Report.Type]) -> [ReportFormat] {
    allCases.filter { format in types.contains { format.isWritten(by: $0) } }
  }
}
