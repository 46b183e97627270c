package import FunnelLab

extension UserAnalysisRenderer {
  /// `analyze --per-user`'s report: a metric of each user compared between the arms.
  package struct Report: TableReport, JSONReport, CSVReport, MarkdownReport, HTMLReport {
    /// The analysis.
    package var report: UserMetricAnalysis.Report

    /// The report of `report`.
    package init(_ report: UserMetricAnalysis.Report) { self.report = report }

    /// The terminal table.
    package func table() -> String { UserAnalysisRenderer.table(report) }
    /// The JSON document.
    package func json() -> String { UserAnalysisRenderer.json(report) }
    /// The CSV text.
    package func csv() -> String { UserAnalysisRenderer.csv(report) }
    /// The Markdown text.
    package func markdown() -> String { UserAnalysisRenderer.markdown(report) }
    /// The HTML page.
    package func html() -> String { UserAnalysisRenderer.html(report) }
  }
}
