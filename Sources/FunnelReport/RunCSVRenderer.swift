package import FunnelLab
import FunnelStats

/// Renders a ``RunResult`` as CSV (RFC 4180): one row per variant × metric with the
/// estimate, its interval, and the difference from the control with its interval
/// (method in `interval_method`), test and p-value. Numbers are written exactly as in the JSON output; absent values
/// are empty cells.
package enum RunCSVRenderer {
  /// The columns of ``render(_:summaries:)``, in order; `kind` is `proportion` or `mean`, `exact`,
  /// `exact_relative_lift` and `exact_difference` come from the exact engine (no sampling noise), `confidence_level` is `1 − α`.
  /// Rows of metric `realized_revenue_by_day` (one per curve day, in `day`) and `renewal_rate` (one per `plan` and
  /// renewal `period`, `n` the subscribers who could renew) follow the metrics; `day`, `plan` and `period` are empty elsewhere.
  package static let header =
    [
      "experiment", "variant", "metric", "kind", "estimate", "lower", "upper", "n", "relative_lift", "relative_lift_lower",
      "relative_lift_upper", "relative_lift_method", "difference", "difference_lower", "difference_upper", "test", "p_value",
      "rank_test", "rank_p_value", "interval_method", "confidence_level", "exact", "exact_relative_lift", "exact_difference",
    ] + LifecycleRenderer.csvKeyColumns

  /// The CSV document: one row per variant × metric, the control's difference columns empty.
  /// `summaries` are ``FunnelSummary/all(_:alpha:)`` of `result`: one per variant, the control first.
  package static func render(_ result: RunResult, summaries: [FunnelSummary]) -> String {
    var csv = CSVWriter(header: header)
    for s in summaries {
      for e in s.estimates {
        let c = s.comparison(e.metric)
        csv.add([
          result.experiment, s.variant, e.metric.rawValue, e.metric.isProportion ? "proportion" : "mean",
          CSVWriter.number(e.estimate), CSVWriter.number(e.interval?.lower), CSVWriter.number(e.interval?.upper), String(e.n),
          CSVWriter.number(c?.relativeLift?.estimate), CSVWriter.number(c?.relativeLift?.interval?.lower),
          CSVWriter.number(c?.relativeLift?.interval?.upper), c?.relativeLift?.interval?.method ?? "",
          CSVWriter.number(c?.difference?.estimate), CSVWriter.number(c?.difference?.interval?.lower),
          CSVWriter.number(c?.difference?.interval?.upper), c?.test?.method ?? "", CSVWriter.number(c?.test?.pValue),
          c?.rankTest?.method ?? "", CSVWriter.number(c?.rankTest?.pValue), c?.difference?.interval?.method ?? "",
          CSVWriter.number(1 - s.alpha),
          CSVWriter.number(s.exactValue(e.metric)), c == nil ? "" : CSVWriter.number(s.exactRelativeLift(e.metric)),
          c == nil ? "" : CSVWriter.number(s.exactDifference(e.metric)), "", "", "",
        ])
      }
    }
    for s in summaries {
      for r in LifecycleRenderer.csvRows(s.lifecycle) {
        csv.add(
          [
            result.experiment, s.variant, r.metric, r.kind, CSVWriter.number(r.estimate), CSVWriter.number(r.lower),
            CSVWriter.number(r.upper), String(r.n),
          ] + Array(repeating: "", count: 11) + [r.method, CSVWriter.number(1 - s.alpha), CSVWriter.number(r.exact), "", ""]
            + r.keyCells)
      }
    }
    return csv.text
  }
}

/// Renders a ``RunResult`` as Markdown for a pull request: the comparison of every
/// metric with the control, then each variant's funnel and plan mix.
package enum RunMarkdownRenderer {
  /// Text as Markdown shows it, never as markup that does something: a backslash
  /// (CommonMark's escape) before what would open raw HTML or an autolink (`<` then
  /// a letter, `/`, `!` or `?`), an entity (`&` then a letter or `#`), a link or
  /// image (`]` then `(` or `[`), a code span, or end a table cell (`|`); line ends
  /// become spaces and other control characters are shown escaped. Emphasis
  /// characters are left as they are: they only change the style. Workflow commands are
  /// neutralised (``Swift/StringProtocol/neutralizingWorkflowCommands``: `\::warning`,
  /// `#\#[`; CommonMark shows `\:` as `:` and `\#` as `#`).
  static func cell(_ text: String) -> String {
    let scalars = Array(text.unicodeScalars)
    var out = String.UnicodeScalarView()
    for (i, scalar) in scalars.enumerated() {
      let next = i + 1 < scalars.count ? scalars[i + 1] : " "
      let escaped: Bool
      switch scalar {
      case "\\", "`", "|": escaped = true
      case "<": escaped = next.properties.isAlphabetic || next == "/" || next == "!" || next == "?"
      case "&": escaped = next.properties.isAlphabetic || next == "#"
      case "]": escaped = next == "(" || next == "["
      case "\n", "\r":
        out.append(" ")
        continue
      default:
        if scalar.isEscapedInMessages {
          out += String(scalar).escapingControlCharacters.unicodeScalars
          continue
        }
        escaped = false
      }
      if escaped { out.append("\\") }
      out.append(scalar)
    }
    return String(out).neutralizingWorkflowCommands
  }

  /// An id as inline code, or as escaped text when it holds anything ``cell(_:)``
  /// escapes or a backtick (a code span shows its text raw: some renderers would
  /// still act on it).
  static func code(_ text: String) -> String {
    let plain = !text.isEmpty && !text.unicodeScalars.contains("`") && cell(text) == text
    return plain ? "`\(text)`" : cell(text)
  }

  static func row(_ cells: [String]) -> String { "| " + cells.map(cell).joined(separator: " | ") + " |\n" }

  static func header(_ cells: [String], right: Set<Int>) -> String {
    row(cells) + "|" + cells.indices.map { right.contains($0) ? " ---: |" : " --- |" }.joined() + "\n"
  }

  /// A metric's value: percentages for proportions, two decimals for means.
  static func value(_ metric: FunnelMetric, _ v: Double?) -> String {
    guard let v else { return "n/a" }
    return metric.isProportion ? NumberText.percent(v) : NumberText.fixed(v, 2)
  }

  /// The Markdown document: when there are several variants, the `decision` summary first, then every
  /// metric of each against the control (Δ, its interval, p-value, true Δ); then per variant the screens,
  /// the estimates with the exact values and the plan mix. `summaries` are ``FunnelSummary/all(_:alpha:)``
  /// of `result`: one per variant, the control first.
  package static func render(_ result: RunResult, summaries: [FunnelSummary], decision: DecisionSummary) -> String {
    var out = "## \(cell(result.experiment))\n\n"
    out += DecisionSummaryRenderer.markdown(decision)
    out += "Seed \(result.seed) · \(Vocabulary.plural(result.usersPerVariant, "user")) per variant · truth mode"
    out += " (the same users walk every variant).\n\n"
    guard let control = summaries.first else { return out }
    let level = NumberText.level(alpha: control.alpha)
    if summaries.count > 1 {
      out += "### Compared with \(code(control.variant))\n\n"
      out +=
        "\(RunTableRenderer.methodsNote(sells: result.variants.contains { !$0.flow.plans.isEmpty }, summaries: summaries)) Intervals at \(level); true lift and true Δ are the exact engine's"
      out += " (no sampling noise).\n\n"
      out += header(
        ["metric", "variant", control.variant, "value"] + RunTableRenderer.comparisonHeaders(level), right: Set(2...9))
      for metric in FunnelMetric.allCases where control.value(metric) != nil || control.estimate(metric) != nil {
        for s in summaries.dropFirst() {
          out += row(
            [metric.label, s.variant, value(metric, control.value(metric)), value(metric, s.value(metric))]
              + RunTableRenderer.comparisonCells(s, metric))
        }
      }
      out += "\n"
    }
    for s in summaries {
      out += "### Variant \(code(s.variant))\n\n"
      out += header(["screen", "kind", "reached", "reach", "quit", "drop-off", "views"], right: [2, 3, 4, 5, 6])
      for r in s.screens {
        out += row([
          r.id, r.kind.rawValue, NumberText.grouped(r.reached), NumberText.percent(r.reachRate), NumberText.grouped(r.droppedOff),
          NumberText.percent(r.dropOffRate), NumberText.grouped(r.views),
        ])
      }
      out += "\n"
      out += header(["metric", "estimate", "\(level) CI", "exact"], right: [1, 2, 3])
      for e in s.estimates {
        let ci =
          e.interval.map { i in
            e.metric.isProportion
              ? "[\(NumberText.percent(i.lower)), \(NumberText.percent(i.upper))]"
              : "[\(NumberText.fixed(i.lower, 2)), \(NumberText.fixed(i.upper, 2))]"
          } ?? "n/a"
        out += row([e.metric.label, value(e.metric, e.estimate), ci, s.exactValue(e.metric).map { value(e.metric, $0) } ?? ""])
      }
      if !s.plans.isEmpty {
        out += "\n"
        out += header(["plan", "purchasers", "share", "\(level) CI"], right: [1, 2, 3])
        for (p, share) in zip(s.plans, s.planShares) {
          let ci = share.interval.map { "[\(NumberText.percent($0.lower)), \(NumberText.percent($0.upper))]" } ?? "n/a"
          out += row([p.plan + (p.isDefault ? " (default)" : ""), NumberText.grouped(p.purchases), NumberText.percent(p.share), ci])
        }
      }
      out += "\n"
    }
    let lifecycle = RunTableRenderer.lifecycleTables(result, summaries)
    if !lifecycle.isEmpty { out += "### Revenue over time and renewals\n\n" + LifecycleRenderer.markdown(lifecycle) }
    return out
  }
}
