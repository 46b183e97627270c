public import FunnelLab

/// Renders a ``RunResult`` as JSON of schema version ``schemaVersion``
/// (documented in docs/json-output.md). Key order and number text are fixed, so
/// the same result always gives the same bytes.
public enum RunJSONRenderer {
  public static let schemaVersion = 1

  public static func render(_ result: RunResult, summaries: [FunnelSummary]) -> String {
    JSONWriter.write(document(result, summaries: summaries))
  }

  public static func document(_ result: RunResult, summaries: [FunnelSummary]) -> JSONValue {
    .object([
      ("schemaVersion", .integer(schemaVersion)),
      ("command", .string("run")),
      ("experiment", .string(result.experiment)),
      ("mode", .string("truth")),
      ("seed", .integer(result.seed)),
      ("usersPerVariant", .integer(result.usersPerVariant)),
      ("control", .string(result.control?.variant.id ?? "")),
      ("variants", .array(zip(result.variants, summaries).map { variant($0, $1) })),
    ])
  }

  static func optional(_ value: Double?) -> JSONValue { value.map { .number($0) } ?? .null }

  static func variant(_ run: VariantRun, _ s: FunnelSummary) -> JSONValue {
    let a = run.aggregate
    let f = run.flow
    return .object([
      ("id", .string(s.variant)),
      ("description", run.variant.summary.map { .string($0) } ?? .null),
      ("users", .integer(a.users)),
      ("metrics", .object(s.metrics.map { ($0.metric.rawValue, optional($0.value)) })),
      (
        "counts",
        .object([
          ("completed", .integer(a.completed)),
          ("abandoned", .integer(a.abandoned)),
          ("stepLimitReached", .integer(a.stepLimitReached)),
          ("usersWhoSkipped", .integer(a.usersWhoSkipped)),
          ("usersWhoWentBack", .integer(a.usersWhoWentBack)),
          ("paywallViewers", .integer(a.paywallViewers)),
          ("purchasers", .integer(a.purchasers)),
          ("usersPersonalized", .integer(a.usersPersonalized)),
        ])
      ),
      (
        "timeToFinish",
        .object([
          ("completers", .integer(a.completionTime.count)),
          ("meanSeconds", optional(a.completionTime.meanSeconds)),
          ("sdSeconds", optional(a.completionTime.standardDeviationSeconds)),
          ("medianSeconds", optional(s.medianSecondsToFinish)),
          ("p90Seconds", optional(s.p90SecondsToFinish)),
        ])
      ),
      (
        "screens",
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
      ),
      (
        "plans",
        .array(
          s.plans.map { p in
            .object([
              ("screen", .string(p.screen)), ("plan", .string(p.plan)), ("default", .bool(p.isDefault)),
              ("purchasers", .integer(p.purchases)), ("share", .number(p.share)),
            ])
          })
      ),
      (
        "options",
        .array(
          f.options.indices.map { j in
            .object([
              ("screen", .string(f.screenIDs[f.options[j].screen])), ("option", .string(f.options[j].id)),
              ("selected", .integer(a.optionCounts[j])),
            ])
          })
      ),
      ("segments", .object(f.segmentIDs.indices.map { (f.segmentIDs[$0], .integer(a.segmentUsers[$0])) })),
    ])
  }
}
