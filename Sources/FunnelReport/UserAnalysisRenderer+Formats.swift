package import FunnelLab
import FunnelStats

/// JSON and CSV of a per-user analysis.
extension UserAnalysisRenderer {
  /// The columns of ``csv(_:)``: one row per arm and method.
  package static let csvHeader = [
    "arm", "metric", "method", "users", "estimate", "difference", "difference_lower", "difference_upper", "standard_error", "p_value",
    "adjusted_p_value", "significant", "confidence_level", "verdict",
  ]

  /// One row per arm with its mean (and ratio); then per non-control arm one row per
  /// method (`welch`, `cuped`, `lin-hc1`, `ratio`), the primary one carrying the adjusted
  /// p-value and the verdict.
  package static func csv(_ r: UserMetricAnalysis.Report) -> String {
    var csv = CSVWriter(header: csvHeader)
    let level = CSVWriter.number(1 - r.settings.alpha)
    for a in r.arms {
      if r.columns.metric != nil {
        csv.add([a.name, r.columns.metric ?? "", "mean", String(a.users), CSVWriter.number(a.mean), "", "", "", "", "", "", "", level, ""])
      }
      if r.columns.numerator != nil {
        csv.add([a.name, r.ratioID, "ratio", String(a.users), CSVWriter.number(a.ratio), "", "", "", "", "", "", "", level, ""])
      }
    }
    for c in r.comparisons {
      func row(_ metric: String, _ method: UserMetricAnalysis.Primary?, _ name: String, _ d: IntervalEstimate, _ se: Double, _ p: Double) {
        let primary = method == r.primary
        csv.add([
          c.arm, metric, name, "", "", CSVWriter.number(d.estimate), CSVWriter.number(d.interval?.lower),
          CSVWriter.number(d.interval?.upper), CSVWriter.number(se), CSVWriter.number(p),
          primary ? CSVWriter.number(c.adjustedPValue) : "", primary ? (c.significant ? "true" : "false") : "", level,
          primary ? c.conclusion.rawValue : "",
        ])
      }
      let metric = r.columns.metric ?? ""
      if let w = c.welch { row(metric, .welch, "welch", w.difference, w.standardError, w.test.pValue) }
      if let x = c.cuped { row(metric, .cuped, "cuped", x.difference, x.standardError, x.test.pValue) }
      if let x = c.regression { row(metric, nil, "lin-hc1", x.difference, x.standardError, x.test.pValue) }
      if let x = c.ratio {
        row(r.ratioID, .ratio, "ratio", x.difference, (x.standardErrors.map { $0 * $0 }.reduce(0, +)).squareRoot(), x.test.pValue)
      }
    }
    return csv.text
  }

  static func number(_ x: Double?) -> JSONValue { x.map { .number($0) } ?? .null }

  static func comparison(_ c: UserMetricAnalysis.Comparison) -> JSONValue {
    // Each method's object is named first: as one literal, the whole took over a second to type-check.
    let welch: JSONValue =
      c.welch.map { w in
        .object([
          ("difference", AnalysisRenderer.estimate(w.difference)), ("standardError", .number(w.standardError)),
          ("test", AnalysisRenderer.test(w.test)),
        ])
      } ?? .null
    let cuped: JSONValue =
      c.cuped.map { x in
        .object([
          ("theta", .number(x.theta)), ("difference", AnalysisRenderer.estimate(x.difference)),
          ("standardError", .number(x.standardError)), ("test", AnalysisRenderer.test(x.test)),
          ("varianceReduction", .number(x.varianceReduction)),
        ])
      } ?? .null
    let lin: JSONValue =
      c.regression.map { x in
        .object([
          ("difference", AnalysisRenderer.estimate(x.difference)), ("standardError", .number(x.standardError)),
          ("standardErrorType", .string(x.kind.rawValue)), ("test", AnalysisRenderer.test(x.test)),
          ("varianceReduction", .number(x.varianceReduction)),
        ])
      } ?? .null
    let ratio: JSONValue =
      c.ratio.map { x in
        .object([
          ("ratios", .array(x.ratios.map(JSONValue.number))), ("standardErrors", .array(x.standardErrors.map(JSONValue.number))),
          ("difference", AnalysisRenderer.estimate(x.difference)), ("relativeLift", AnalysisRenderer.estimate(x.relativeLift)),
          ("test", AnalysisRenderer.test(x.test)),
        ])
      } ?? .null
    return .object([
      ("arm", .string(c.arm)), ("difference", AnalysisRenderer.estimate(c.difference)),
      ("relativeLift", AnalysisRenderer.estimate(c.relativeLift)), ("test", AnalysisRenderer.test(c.test)),
      ("adjustedPValue", .number(c.adjustedPValue)), ("significant", .bool(c.significant)), ("conclusion", .string(c.conclusion.rawValue)),
      ("welch", welch), ("cuped", cuped), ("lin", lin), ("ratio", ratio),
    ])
  }

  /// The report as JSON (`command` `"analyze"`, `input` `"users"`): every method's numbers
  /// unrounded, absent ones `null`.
  package static func json(_ r: UserMetricAnalysis.Report) -> String {
    let q = r.sequentialSampleRatio
    let body: [(String, JSONValue)] = [
      ("summary", DecisionSummaryRenderer.json(DecisionSummary(users: r))),
      ("input", .string("users")), ("control", .string(r.control)), ("alpha", .number(r.settings.alpha)),
      ("correction", .string(r.settings.correction.rawValue)), ("metric", r.columns.metric.map { .string($0) } ?? .null),
      ("covariate", r.columns.covariate.map { .string($0) } ?? .null),
      ("ratio", r.columns.numerator == nil ? .null : .string(r.ratioID)), ("primaryMethod", .string(r.primary.rawValue)),
      (
        "arms",
        .array(
          r.arms.map { a in
            .object([
              ("name", .string(a.name)), ("users", .integer(a.users)), ("mean", number(a.mean)),
              ("standardDeviation", number(a.standardDeviation)), ("skewness", number(a.skewness)),
              ("usersForNormalInterval", number(a.usersForNormalInterval)), ("ratio", number(a.ratio)),
            ])
          })
      ),
      ("comparisons", .array(r.comparisons.map(comparison))),
      (
        "sampleRatioMismatch",
        .object([
          ("test", AnalysisRenderer.test(r.sampleRatio.test)), ("mismatch", .bool(r.mismatch)),
          ("observedShares", .array(r.sampleRatio.observedShares.map { .number($0) })),
          ("expectedShares", .array(r.sampleRatio.expectedShares.map { .number($0) })),
          (
            "anytimeValid",
            .object([
              ("pValue", .number(q.pValue)), ("pValues", .array(q.pValues.map { .number($0) })),
              ("logBayesFactors", .array(q.logBayesFactors.map { .number($0) })), ("concentration", .number(q.concentration)),
              ("mismatch", .bool(q.mismatch)),
            ])
          ),
        ])
      ),
      ("overTime", r.looks.isEmpty ? .null : .array(r.looks.map { look(r, $0) })),
      ("methods", .array(methods(r).map { .string($0) })),
    ]
    return JSONWriter.write(JSONReportHead(schemaVersion: schemaVersion, command: "analyze").document(body))
  }

  static func look(_ r: UserMetricAnalysis.Report, _ look: UserMetricAnalysis.Look) -> JSONValue {
    .object([
      ("day", .string(look.day)), ("users", .array(look.users.map { .integer($0) })),
      (
        "comparisons",
        .array(
          zip(r.comparisons, look.sequences).map { c, s in
            .object([
              ("arm", .string(c.arm)), ("difference", number(s?.estimate)), ("interval", AnalysisRenderer.ci(s?.interval)),
              ("pValue", number(s?.pValue)),
            ])
          })
      ),
    ])
  }
}
