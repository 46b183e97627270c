package import FunnelLab

extension SensitivityRenderer {
  /// `sensitivity`'s report: the primary metric over a grid of behavior parameters.
  package struct Report: TableReport, JSONReport, HTMLReport {
    /// The sweep.
    package var sensitivity: Sensitivity

    /// The report of `sensitivity`.
    package init(_ sensitivity: Sensitivity) { self.sensitivity = sensitivity }

    /// The terminal table.
    package func table() -> String { SensitivityRenderer.table(sensitivity) }
    /// The JSON document.
    package func json() -> String { SensitivityRenderer.json(sensitivity) }
    /// The HTML page.
    package func html() -> String { SensitivityRenderer.html(sensitivity) }
  }
}
