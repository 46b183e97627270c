package import FunnelLab

extension InferenceRenderer {
  /// `infer`'s report: the flow read from an event log, and the name of the spec it wrote.
  package struct Report: TableReport, JSONReport, MarkdownReport, HTMLReport {
    /// The inference.
    package var report: FlowInferenceReport
    /// Where the inferred spec went (a file's name, or `standard output`).
    package var spec: String

    /// The report of `report`, the spec written to `spec`.
    package init(_ report: FlowInferenceReport, spec: String) {
      self.report = report
      self.spec = spec
    }

    /// The terminal table.
    package func table() -> String { InferenceRenderer.table(report, spec: spec) }
    /// The JSON document.
    package func json() -> String { InferenceRenderer.json(report, spec: spec) }
    /// The Markdown text.
    package func markdown() -> String { InferenceRenderer.markdown(report, spec: spec) }
    /// The HTML page.
    package func html() -> String { InferenceRenderer.html(report, spec: spec) }
  }
}
