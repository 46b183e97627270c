package import FunnelLab

extension GridRenderer {
  /// `grid`'s report: every cell of the grid simulated, `top` cells in the table (all when `nil`).
  package struct Report: TableReport, JSONReport, CSVReport, MarkdownReport, HTMLReport {
    /// The simulated grid.
    package var report: GridReport
    /// The cells shown in the table; `nil`: all.
    package var top: Int?

    /// The report of `report`, `top` cells in the table.
    package init(_ report: GridReport, top: Int? = nil) {
      self.report = report
      self.top = top
    }

    /// The terminal table.
    package func table() -> String { GridRenderer.table(report, top: top) }
    /// The JSON document.
    package func json() -> String { GridRenderer.json(report) }
    /// The CSV text.
    package func csv() -> String { GridRenderer.csv(report) }
    /// The Markdown text.
    package func markdown() -> String { GridRenderer.markdown(report) }
    /// The HTML page.
    package func html() -> String { GridRenderer.html(report) }
  }
}
