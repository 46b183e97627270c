package import FunnelLab

extension ExactRenderer {
  /// `exact`'s report: every solved variant of one experiment (a baseline of `check` and `diff`
  /// in JSON).
  package struct Report: TableReport, JSONReport, CSVReport, MarkdownReport, HTMLReport {
    /// The experiment's name.
    package var experiment: String
    /// The solved variants, the control first.
    package var variants: [Variant]
    /// The spec's metrics (the primary metric and its margin).
    package var metrics: MetricsSpec

    /// The report of `variants` of `experiment`.
    package init(experiment: String, variants: [Variant], metrics: MetricsSpec) {
      self.experiment = experiment
      self.variants = variants
      self.metrics = metrics
    }

    /// The terminal table.
    package func table() -> String { ExactRenderer.table(experiment: experiment, variants: variants, metrics: metrics) }
    /// The JSON document.
    package func json() -> String { ExactRenderer.json(experiment: experiment, variants: variants, metrics: metrics) }
    /// The CSV text.
    package func csv() -> String { ExactRenderer.csv(experiment: experiment, variants: variants) }
    /// The Markdown text.
    package func markdown() -> String { ExactRenderer.markdown(experiment: experiment, variants: variants, metrics: metrics) }
    /// The HTML page.
    package func html() -> String { ExactRenderer.html(experiment: experiment, variants: variants, metrics: metrics) }
  }
}
