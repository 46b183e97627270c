/// A report: a value holding what its renderers need, computed once, and written in every
/// format it conforms to (``TableReport``, ``JSONReport``, ``CSVReport``, ``MarkdownReport``,
/// ``HTMLReport``, ``GitHubAnnotationsReport``).
///
/// The formats a report is written in are its conformances (``formats``), and
/// ``ReportFormat/render(_:fittingTable:)`` is the one place that maps a format to a rendering:
/// a command builds its report and writes it in the `--format` asked for, without switching on the
/// format. Adding a format is a case of ``ReportFormat``, a protocol beside these and a line in
/// that mapping, then one conformance per report that is written in it.
///
/// ```swift
/// struct Greeting: TableReport, JSONReport {
///   var name: String
///   func table() -> String { "Hello, \(name)\n" }
///   func json() -> String { "{\"hello\": \"\(name)\"}\n" }
/// }
/// Greeting.formats                                     // [.table, .json]
/// Greeting(name: "Ada").rendered(as: .json)            // "{\"hello\": \"Ada\"}\n"
/// ```
public protocol Report {}

/// A report written as aligned columns for a terminal (before it is fitted to a width).
public protocol TableReport: Report {
  /// The terminal table, folded to ``TerminalLayout/current`` where the report folds.
  func table() -> String
}

/// A report written as one JSON document (docs/reference/json-output.md).
public protocol JSONReport: Report {
  /// The JSON document.
  func json() -> String
}

/// A report written as RFC 4180 comma-separated values.
public protocol CSVReport: Report {
  /// The CSV text.
  func csv() -> String
}

/// A report written as GitHub-flavoured Markdown (a pull-request comment).
public protocol MarkdownReport: Report {
  /// The Markdown text.
  func markdown() -> String
}

/// A report written as one self-contained HTML page.
public protocol HTMLReport: Report {
  /// The HTML page.
  func html() -> String
}

/// A report written as GitHub Actions workflow commands (`::error file=…,line=…::`): annotations
/// at the lines of a pull request.
public protocol GitHubAnnotationsReport: Report {
  /// The workflow commands, one a line.
  func githubAnnotations() -> String
}

extension Report {
  /// The formats this report is written in, in ``ReportFormat``'s order: its conformances.
  public static var formats: [ReportFormat] { ReportFormat.formats(of: Self.self) }

  /// This report in `format`, a table unfitted; `nil` when it is not written in `format`.
  public func rendered(as format: ReportFormat) -> String? { format.render(self) }
}
