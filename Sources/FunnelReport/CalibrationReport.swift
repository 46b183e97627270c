/// `calibrate`'s report: a fit of the behavior parameters, rendered by `Renderer`
/// (``CalibrationRenderer`` for counts, ``BehaviorCalibrationRenderer`` for past tests fitted jointly).
package struct CalibrationReport<Renderer: CalibrationReportRenderer>: TableReport, JSONReport, HTMLReport {
  /// The experiment's name.
  package var experiment: String
  /// The observed file's name.
  package var observedPath: String
  /// The fit.
  package var fit: Renderer.Fit

  /// The report of `fit` of `experiment` to the file at `observedPath`.
  package init(_ fit: Renderer.Fit, experiment: String, observedPath: String) {
    self.fit = fit
    self.experiment = experiment
    self.observedPath = observedPath
  }

  /// The terminal table.
  package func table() -> String { Renderer.table(experiment: experiment, observedPath: observedPath, calibration: fit) }
  /// The JSON document.
  package func json() -> String { Renderer.json(experiment: experiment, observedPath: observedPath, calibration: fit) }
  /// The HTML page.
  package func html() -> String { Renderer.html(experiment: experiment, observedPath: observedPath, calibration: fit) }
}
