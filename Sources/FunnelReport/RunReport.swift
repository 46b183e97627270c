public import FunnelLab

/// A simulation's report, in the formats `funnellab run` writes: the one public entry of the
/// renderers (the command line reaches the rest of them inside the package).
///
/// ```swift
/// let result = try Simulation.run(contentsOf: "experiments/klick-onboarding.json", users: 20_000)
/// print(RunReport.render(result, format: .markdown))
/// ```
public enum RunReport {
  /// `result`'s report in `format`, intervals at `1 − alpha`: the bytes `funnellab run` writes
  /// for the same spec, users and seed (the terminal table before it is fitted to a width).
  public static func render(_ result: SimulationResult, format: ReportFormat, alpha: Double = 0.05) -> String {
    var metrics = result.experiment.metrics
    metrics.alpha = alpha
    let text = render(result.run, format: format, metrics: metrics)
    return format == .table ? TerminalLayout.unbounded.fit(text) : text
  }

  /// `result`'s report in `format`, intervals at `1 − metrics.alpha`, opening with the
  /// summary of each variant on the primary metric with the spec's margin: what `run` and
  /// `merge` of its shards write (the command line fits `.table` to the terminal).
  package static func render(_ result: RunResult, format: ReportFormat, metrics: MetricsSpec) -> String {
    let summaries = FunnelSummary.all(result, alpha: metrics.alpha)
    let decision = DecisionSummary(truthMode: summaries, spec: metrics)
    return switch format {
    case .json: RunJSONRenderer.render(result, summaries: summaries, decision: decision)
    case .csv: RunCSVRenderer.render(result, summaries: summaries)
    case .markdown: RunMarkdownRenderer.render(result, summaries: summaries, decision: decision)
    case .html: RunHTMLRenderer.render(result, summaries: summaries, decision: decision)
    case .table: RunTableRenderer.render(result, summaries: summaries, decision: decision)
    }
  }
}

/// A report format: `--format` of every command (each command writes some of them), chosen by
/// switching over it, never by comparing text.
public enum ReportFormat: String, CaseIterable, Sendable {
  /// Aligned columns for a terminal (the command line's default), control characters escaped.
  case table
  /// One JSON document (docs/reference/json-output.md).
  case json
  /// RFC 4180 comma-separated values.
  case csv
  /// GitHub-flavoured Markdown tables.
  case markdown
  /// One self-contained HTML page.
  case html
}
