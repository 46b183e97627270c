package import FunnelLab

extension RevenuePlanRenderer {
  /// `power SPEC --metric revenuePerUser`'s report: the users each variant needs, from the exact revenue.
  package struct Report: TableReport, JSONReport, CSVReport, MarkdownReport, HTMLReport {
    /// The plan.
    package var plan: RevenuePlan

    /// The report of `plan`.
    package init(_ plan: RevenuePlan) { self.plan = plan }

    /// The terminal table.
    package func table() -> String { RevenuePlanRenderer.table(plan) }
    /// The JSON document.
    package func json() -> String { RevenuePlanRenderer.json(plan) }
    /// The CSV text.
    package func csv() -> String { RevenuePlanRenderer.csv(plan) }
    /// The Markdown text.
    package func markdown() -> String { RevenuePlanRenderer.markdown(plan) }
    /// The HTML page.
    package func html() -> String { RevenuePlanRenderer.html(plan) }
  }
}
