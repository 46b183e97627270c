package import FunnelLab
package import FunnelStats

extension AnalysisRenderer {
  /// `analyze`'s report of counts: the test, its days read as a live test and its segments when
  /// given (with days, the CSV is the day-by-day table).
  package struct Report: TableReport, JSONReport, CSVReport, MarkdownReport, HTMLReport {
    /// The analysis.
    package var report: ExperimentAnalysis.Report
    /// The days read as a live test, when the data has a day column.
    package var overTime: OverTime?
    /// The analysis by segment, when asked for.
    package var segments: SegmentReport?

    /// The report of `report`.
    package init(_ report: ExperimentAnalysis.Report, overTime: OverTime? = nil, segments: SegmentReport? = nil) {
      self.report = report
      self.overTime = overTime
      self.segments = segments
    }

    /// The terminal table.
    package func table() -> String { AnalysisRenderer.table(report, overTime: overTime, segments: segments) }
    /// The JSON document.
    package func json() -> String { AnalysisRenderer.json(report, overTime: overTime, segments: segments) }
    /// The CSV text: the day-by-day table when the data has days.
    package func csv() -> String { overTime.map { SequentialRenderer.csv($0.report) } ?? AnalysisRenderer.csv(report, segments: segments) }
    /// The Markdown text.
    package func markdown() -> String { AnalysisRenderer.markdown(report, overTime: overTime, segments: segments) }
    /// The HTML page.
    package func html() -> String { AnalysisRenderer.html(report, overTime: overTime, segments: segments) }
  }
}
