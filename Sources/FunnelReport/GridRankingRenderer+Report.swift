package import FunnelLab

extension GridRankingRenderer {
  /// `grid --exact`'s report: every cell of the grid ranked by its exact value, the first `top`
  /// shown in the table, Markdown and HTML (JSON and CSV hold every cell).
  package struct Report: TableReport, JSONReport, CSVReport, MarkdownReport, HTMLReport {
    /// The ranking.
    package var ranking: GridRanking
    /// The cells shown in the table, Markdown and HTML.
    package var top: Int

    /// The report of `ranking`, `top` cells shown (default ``GridRankingRenderer/defaultTop``).
    package init(_ ranking: GridRanking, top: Int? = nil) {
      self.ranking = ranking
      self.top = top ?? GridRankingRenderer.defaultTop
    }

    /// The terminal table.
    package func table() -> String { GridRankingRenderer.table(ranking, top: top) }
    /// The JSON document.
    package func json() -> String { GridRankingRenderer.json(ranking) }
    /// The CSV text.
    package func csv() -> String { GridRankingRenderer.csv(ranking) }
    /// The Markdown text.
    package func markdown() -> String { GridRankingRenderer.markdown(ranking, top: top) }
    /// The HTML page.
    package func html() -> String { GridRankingRenderer.html(ranking, top: top) }
  }
}
