public import FunnelLab

/// A simulation's report, in the formats `funnellab run` writes: the one public entry of the
/// renderers (the command line reaches the rest of them inside the package).
///
/// ```swift
/// let result = try Simulation.run(contentsOf: "experiments/klick-onboarding.json", users: 20_000)
/// print(RunReport.render(result, format: .markdown))
/// ```
public enum RunReport {
  /// The formats a run's report is written in: table, JSON, CSV, Markdown and HTML.
  public static var formats: [ReportFormat] { Content.formats }

  /// `result`'s report in `format`, intervals at `1 − alpha`: the bytes `funnellab run` writes
  /// for the same spec, users and seed (the terminal table before it is fitted to a width), in
  /// each of ``formats``. A run checks no expectation, so it has no GitHub annotation to write:
  /// ``ReportFormat/github`` gives the empty text (only `check` writes annotations).
  public static func render(_ result: SimulationResult, format: ReportFormat, alpha: Double = 0.05) -> String {
    var metrics = result.experiment.metrics
    metrics.alpha = alpha
    return format.render(Content(result.run, metrics: metrics), fittingTable: { TerminalLayout.unbounded.fit($0()) }) ?? ""
  }

  /// A truth-mode run's report: `result` with the summary of each variant on the primary metric
  /// with the spec's margin, intervals at `1 − metrics.alpha`: what `run` and `merge` of its
  /// shards write (the command line fits the table to the terminal).
  package struct Content: TableReport, JSONReport, CSVReport, MarkdownReport, HTMLReport {
    /// The run.
    package var result: RunResult
    /// Each variant's summary.
    package var summaries: [FunnelSummary]
    /// The decision on the primary metric.
    package var decision: DecisionSummary

    /// The report of `result` under `metrics`.
    package init(_ result: RunResult, metrics: MetricsSpec) {
      self.result = result
      summaries = FunnelSummary.all(result, alpha: metrics.alpha)
      decision = DecisionSummary(truthMode: summaries, spec: metrics)
    }

    /// The terminal table.
    package func table() -> String { RunTableRenderer.render(result, summaries: summaries, decision: decision) }
    /// The JSON document.
    package func json() -> String { RunJSONRenderer.render(result, summaries: summaries, decision: decision) }
    /// The CSV text.
    package func csv() -> String { RunCSVRenderer.render(result, summaries: summaries) }
    /// The Markdown text.
    package func markdown() -> String { RunMarkdownRenderer.render(result, summaries: summaries, decision: decision) }
    /// The HTML page.
    package func html() -> String { RunHTMLRenderer.render(result, summaries: summaries, decision: decision) }
  }
}
