package import FunnelLab

extension PredictionRenderer {
  /// `run` and `exact --parameter-uncertainty`'s report: each variant's predictive interval under
  /// the uncertainty of the behavior parameters.
  package struct Report: TableReport, JSONReport, HTMLReport {
    /// The prediction.
    package var prediction: Prediction
    /// The command that made it (`run` or `exact`), named in the JSON.
    package var command: String

    /// The report of `prediction`, made by `command`.
    package init(_ prediction: Prediction, command: String) {
      self.prediction = prediction
      self.command = command
    }

    /// The terminal table.
    package func table() -> String { PredictionRenderer.table(prediction) }
    /// The JSON document.
    package func json() -> String { PredictionRenderer.json(prediction, command: command) }
    /// The HTML page.
    package func html() -> String { PredictionRenderer.html(prediction) }
  }
}
