package import FunnelLab

/// A plan's report in the formats every planning report is written in: what ``PlanningRenderer/Report``
/// and ``PlanningRenderer/AssuranceReport`` share.
package protocol PlanningReportRendering: TableReport, JSONReport, MarkdownReport, HTMLReport {
  /// The plan.
  var report: PlanningReport { get }
}

extension PlanningReportRendering {
  /// The terminal table.
  package func table() -> String { PlanningRenderer.table(report) }
  /// The JSON document.
  package func json() -> String { PlanningRenderer.json(report) }
  /// The Markdown text.
  package func markdown() -> String { PlanningRenderer.markdown(report) }
  /// The HTML page.
  package func html() -> String { PlanningRenderer.html(report) }
}

extension PlanningRenderer {
  /// `power SPEC`'s report: the users each variant needs, planned by simulation.
  package struct Report: PlanningReportRendering, CSVReport {
    /// The plan.
    package var report: PlanningReport

    /// The report of `report`.
    package init(_ report: PlanningReport) { self.report = report }

    /// The CSV text.
    package func csv() -> String { PlanningRenderer.csv(report) }
  }

  /// `power SPEC --parameter-uncertainty`'s report: the plan with its assurance under the
  /// uncertainty of the behavior parameters. Not written as CSV, whose columns hold no assurance.
  package struct AssuranceReport: PlanningReportRendering {
    /// The plan, its assurance included.
    package var report: PlanningReport

    /// The report of `report`.
    package init(_ report: PlanningReport) { self.report = report }
  }
}
