package import FunnelLab

extension BanditRenderer {
  /// `run --mode bandit`'s report: the adaptive run and its timeline of allocations and intervals.
  package struct RunReport: TableReport, JSONReport, CSVReport, MarkdownReport, HTMLReport {
    /// The run.
    package var run: AdaptiveRun
    /// The run's days: allocations, estimates and the interval's measured coverage.
    package var timeline: BanditTimeline

    /// The report of `run` and its `timeline`.
    package init(_ run: AdaptiveRun, timeline: BanditTimeline) {
      self.run = run
      self.timeline = timeline
    }

    /// The terminal table.
    package func table() -> String { BanditRenderer.table(run, timeline: timeline) }
    /// The JSON document.
    package func json() -> String { BanditRenderer.json(run, timeline: timeline) }
    /// The CSV text: one row a day and arm.
    package func csv() -> String { BanditRenderer.csv(run) }
    /// The Markdown text.
    package func markdown() -> String { BanditRenderer.markdown(run, timeline: timeline) }
    /// The HTML page.
    package func html() -> String { BanditRenderer.html(run, timeline: timeline) }
  }
}
