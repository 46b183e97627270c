package import FunnelLab
import FunnelStats

/// Renders a ``RunResult`` as JSON of schema version ``schemaVersion``
/// (documented in docs/json-output.md). Key order and number text are fixed, so
/// the same result always gives the same bytes.
package enum RunJSONRenderer {
  /// The `schemaVersion` field of the document (docs/json-output.md); raised when a field changes meaning.
  package static let schemaVersion = 1

  /// The JSON document of a run as text, one key per line, ending in a newline.
  package static func render(_ result: RunResult, summaries: [FunnelSummary], decision: DecisionSummary) -> String {
    JSONWriter.write(document(result, summaries: summaries, decision: decision))
  }

  /// The JSON document of a run: settings, the decision `summary`, then every variant's counts,
  /// rates with intervals, screens, plans and revenue (`summaries` in the order of `result.variants`).
  package static func document(_ result: RunResult, summaries: [FunnelSummary], decision: DecisionSummary) -> JSONValue {
    let head = JSONReportHead(schemaVersion: schemaVersion, command: "run", experiment: result.experiment, mode: "truth", seed: result.seed)
    return head.document([
      ("summary", DecisionSummaryRenderer.json(decision)),
      ("usersPerVariant", .integer(result.usersPerVariant)),
      ("control", .string(result.control?.variant.id ?? "")),
      ("variants", .array(zip(result.variants, summaries).map { variant($0, $1) })),
    ])
  }

  static func optional(_ value: Double?) -> JSONValue { value.map { .number($0) } ?? .null }

  static func interval(_ i: ConfidenceInterval?) -> JSONValue {
    guard let i else { return .null }
    return .object([
      ("lower", .number(i.lower)), ("upper", .number(i.upper)), ("level", .number(i.confidenceLevel)), ("method", .string(i.method)),
    ])
  }

  static func estimate(_ e: MetricEstimate) -> JSONValue {
    .object([("estimate", optional(e.estimate)), ("interval", interval(e.interval)), ("n", .integer(e.n))])
  }

  static func comparison(_ c: MetricComparison) -> JSONValue {
    .object([
      ("relativeLift", optional(c.relativeLift?.estimate)), ("relativeLiftInterval", interval(c.relativeLift?.interval)),
      ("difference", optional(c.difference?.estimate)), ("interval", interval(c.difference?.interval)),
      ("test", c.test.map { .string($0.method) } ?? .null), ("pValue", optional(c.test?.pValue)),
      ("rankTest", c.rankTest.map { .string($0.method) } ?? .null), ("rankPValue", optional(c.rankTest?.pValue)),
    ])
  }

  /// A value→count map as `[[cents, users], …]` sorted by value.
  static func distribution(_ d: RevenueDistribution) -> JSONValue {
    .array(d.counts.sorted { $0.key < $1.key }.map { .array([.integer($0.key), .integer($0.value)]) })
  }

  static func variant(_ run: VariantRun, _ s: FunnelSummary) -> JSONValue {
    let a = run.aggregate
    let f = run.flow
    // Every counter but users (the variant's own field), with abandoned (derived) after completed.
    // Only the counters the flow can have: no store counter for a flow that sells nothing.
    let counters = FunnelCounter.allCases.filter { $0 != .users && $0.applies(to: [f]) }.map { ($0.name, JSONValue.integer(a[$0])) }
    let countsValue: JSONValue = .object(counters.prefix(1) + [("abandoned", .integer(a.abandoned))] + counters.dropFirst())
    let timeToFinishValue: JSONValue =
      .object([
        ("completers", .integer(a.completionTime.count)),
        ("meanSeconds", optional(a.completionTime.meanSeconds)),
        ("sdSeconds", optional(a.completionTime.standardDeviationSeconds)),
        ("medianSeconds", optional(s.medianSecondsToFinish)),
        ("p90Seconds", optional(s.p90SecondsToFinish)),
      ])
    let revenueValue: JSONValue =
      .object([
        ("currency", f.plans.first.map { .string($0.plan.currency) } ?? .null),
        ("horizonMonths", .number(f.revenue.horizonMonths)),
        ("analysisDay", .number(f.revenue.analysisDay)),
        ("totalCents", .integer(a.revenue.totalCents)),
        ("realizedCents", .integer(a.realizedRevenue.totalCents)),
        ("perUserCents", distribution(a.revenue)),
        ("realizedPerUserCents", distribution(a.realizedRevenue)),
      ])
    let screensValue: JSONValue =
      .array(
        s.screens.map { row in
          .object([
            ("id", .string(row.id)),
            ("kind", .string(row.kind.rawValue)),
            ("reached", .integer(row.reached)),
            ("reachRate", .number(row.reachRate)),
            ("views", .integer(row.views)),
            ("droppedOff", .integer(row.droppedOff)),
            ("dropOffRate", .number(row.dropOffRate)),
            ("meanSecondsPerView", optional(row.meanSeconds)),
            ("failures", .integer(row.failures)),
            ("actions", .object(row.actions.map { ($0.id, .integer($0.count)) })),
          ])
        })
    let plansValue: JSONValue = .array(
      s.plans.indices.map { j in
        let p = s.plans[j]
        return .object([
          ("screen", .string(p.screen)), ("plan", .string(p.plan)), ("default", .bool(p.isDefault)),
          ("purchasers", .integer(p.purchases)), ("share", .number(p.share)),
          ("shareInterval", interval(s.planShares.indices.contains(j) ? s.planShares[j].interval : nil)),
        ])
      })
    let optionsValue: JSONValue =
      .array(
        f.options.indices.map { j in
          .object([
            ("screen", .string(f.screenIDs[f.options[j].screen])), ("option", .string(f.options[j].id)),
            ("selected", .integer(a.optionCounts[j])),
          ])
        })
    // A flow that sells nothing has no revenue key (its counts have no store counter either).
    return .object(
      [
        ("id", .string(s.variant)),
        ("description", run.variant.summary.map { .string($0) } ?? .null),
        ("users", .integer(a[.users])),
        ("metrics", .object(s.metrics.map { ($0.metric.rawValue, optional($0.value)) })),
        ("estimates", .object(s.estimates.map { ($0.metric.rawValue, estimate($0)) })),
        ("comparisons", .object(s.comparisons.map { ($0.metric.rawValue, comparison($0)) })),
        ("counts", countsValue),
      ] + (f.plans.isEmpty ? [] : [("revenue", revenueValue)]) + [
        ("lifecycle", LifecycleRenderer.json(s.lifecycle)),
        ("timeToFinish", timeToFinishValue),
        ("screens", screensValue),
        ("plans", plansValue),
        ("options", optionsValue),
        ("segments", .object(f.segmentIDs.indices.map { (f.segmentIDs[$0], .integer(a.segmentUsers[$0])) })),
      ])
  }
}
