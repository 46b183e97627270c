package import FunnelLab

extension BanditRenderer {
  /// `power --bandit`'s report: a bandit against a fixed A/B test on replicates of the design.
  package struct Report: TableReport, JSONReport, CSVReport, MarkdownReport, HTMLReport {
    /// The comparison.
    package var comparison: BanditComparison

    /// The report of `comparison`.
    package init(_ comparison: BanditComparison) { self.comparison = comparison }

    /// The terminal table.
    package func table() -> String { BanditRenderer.table(comparison) }
    /// The JSON document.
    package func json() -> String { BanditRenderer.json(comparison) }
    /// The CSV text.
    package func csv() -> String { BanditRenderer.csv(comparison) }
    /// The Markdown text.
    package func markdown() -> String { BanditRenderer.markdown(comparison) }
    /// The HTML page.
    package func html() -> String { BanditRenderer.html(comparison) }
  }
}
