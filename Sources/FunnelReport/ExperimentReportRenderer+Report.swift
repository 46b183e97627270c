package import FunnelLab

extension ExperimentReportRenderer {
  /// An experiment-mode run's report: the observed test and, when the run went by day, its days
  /// read as a live test (then the CSV is the day-by-day table).
  package struct Report: TableReport, JSONReport, CSVReport, MarkdownReport, HTMLReport {
    /// The test read from the observed run.
    package var report: ExperimentReport
    /// The observed run (the HTML page draws its funnels).
    package var observed: RunResult
    /// The days read as a live test, when the run went by day.
    package var overTime: AnalysisRenderer.OverTime?

    /// The report of `report`, observed as `observed`.
    package init(_ report: ExperimentReport, observed: RunResult, overTime: AnalysisRenderer.OverTime? = nil) {
      self.report = report
      self.observed = observed
      self.overTime = overTime
    }

    /// The terminal table.
    package func table() -> String { ExperimentReportRenderer.table(report, overTime: overTime) }
    /// The JSON document.
    package func json() -> String { ExperimentReportRenderer.json(report, overTime: overTime) }
    /// The CSV text: the day-by-day table when the run went by day.
    package func csv() -> String { overTime.map { SequentialRenderer.csv($0.report) } ?? ExperimentReportRenderer.csv(report) }
    /// The Markdown text.
    package func markdown() -> String { ExperimentReportRenderer.markdown(report, overTime: overTime) }
    /// The HTML page.
    package func html() -> String { ExperimentReportRenderer.html(report, observed: observed, overTime: overTime) }
  }
}
