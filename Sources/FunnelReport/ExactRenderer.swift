package import FunnelLab

/// Renders exact funnels (``ExactEngine``) as a terminal report or JSON of schema
/// version ``schemaVersion``: per variant the exact probabilities and expectations
/// per user, with no sampling noise. Key order and number text are fixed, so the same
/// spec always gives the same bytes.
package enum ExactRenderer {
  /// The `schemaVersion` written by ``document(experiment:variants:metrics:)``.
  package static let schemaVersion = 1

  /// One variant: its definition, its compiled flow and its exact funnel.
  package struct Variant: Sendable {
    /// The spec's variant: its id and description head the variant's block.
    package var variant: FunnelLab.Variant
    /// The variant's compiled flow: screen ids and kinds, plans, the revenue horizon and analysis day.
    package var flow: CompiledFlow
    /// The ``ExactEngine`` solution of `flow`: probabilities and expectations per user, indexed like `flow`'s
    /// screens and plans.
    package var exact: ExactFunnel

    /// Pairs a variant with its compiled flow and the exact funnel solved from that flow.
    package init(variant: FunnelLab.Variant, flow: CompiledFlow, exact: ExactFunnel) {
      self.variant = variant
      self.flow = flow
      self.exact = exact
    }
  }

  // MARK: - Table

  /// The terminal report: per variant the screens (reach, quit here, drop-off, views and seconds per view),
  /// the funnel rates in percent, the time to finish, and when the flow sells plans the trial and revenue
  /// lines, the plan mix and the store's events per 1,000 users.
  package static func table(experiment: String, variants: [Variant], metrics: MetricsSpec) -> String {
    var out = "\(experiment) · exact solution (probabilities per user, no sampling noise)"
    out += variants.contains { !$0.flow.plans.isEmpty } ? " · store and revenue from the spec\n" : "\n"
    let e = effects(variants, metrics: metrics)
    out += "\n" + TextWrap.wrap(headline(e), width: TerminalLayout.current.width ?? 10_000, indent: 2).joined(separator: "\n") + "\n"
    // Only the control: the sentence says so, and no table of effects is shown.
    if !e.rows.isEmpty {
      let t = effectRows(e)
      var table = TextTable(t.headers, alignments: [.left] + Array(repeating: .right, count: t.headers.count - 1))
      for row in t.rows { table.add(row) }
      out += table.render()
    }
    for v in variants { out += "\n" + table(v) }
    return out
  }

  // MARK: - Summary

  /// The exact effects of `variants` (the control first) against the control on the spec's
  /// primary metric, ranked with its practical-equivalence margin.
  static func effects(_ variants: [Variant], metrics: MetricsSpec) -> ExactEffects {
    ExactEffects(
      variants.map { ($0.variant.id, !$0.flow.plans.isEmpty, $0.exact) }, primary: metrics.primary,
      relativeMargin: metrics.relativeMargin(for: metrics.primary))
  }

  /// The first sentence, worded from ``ExactEffects/standing``: the best variant (by more than
  /// the margin), the equivalent variants, that none beats the control by more than the margin
  /// (naming the ties and the negligible effects), or that there is nothing to compare.
  static func headline(_ e: ExactEffects) -> String {
    let label = e.metrics.first?.label ?? "the primary metric"
    let margin = "±" + NumberText.percent(e.relativeMargin)
    func lift(_ arm: String) -> String { NumberText.lift(e.primaryLift(arm)) }
    switch e.standing {
    case .nothingToCompare:
      return "Nothing to compare: only the control (\(e.control))."
    case .best(let arm):
      return "The truth: \(Tone.good.mark(arm)) is best on \(label), lift \(lift(arm)) against \(e.control), "
        + "more than \(margin) ahead of every other variant."
    case .equivalent(let arms):
      return "The truth: no single best on \(label): " + NumberText.list(arms.map { "\($0) (\(lift($0)))" })
        + " beat \(e.control) but are equivalent, within \(margin) of each other."
    case .noneBeatsControl(let negligible):
      let ties = e.tiedWithControl
      let small = negligible.filter { !ties.contains($0) }
      var parts: [String] = []
      if !ties.isEmpty { parts.append(NumberText.list(ties) + (ties.count == 1 ? " ties " : " tie ") + e.control) }
      if !small.isEmpty {
        parts.append(NumberText.list(small.map { "\($0) (\(lift($0)))" }) + (small.count == 1 ? " is" : " are") + " negligible")
      }
      let worse = e.rows.count - negligible.count
      if worse > 0 { parts.append(negligible.isEmpty ? "every variant is worse" : "the other\(worse == 1 ? " is" : "s are") worse") }
      return "The truth: no variant beats \(e.control) on \(label) by more than \(margin): " + parts.joined(separator: "; ") + "."
    }
  }

  /// The effects as a table: per variant the exact lift of each metric against the control,
  /// with its Δ beside it when `differences` (`+7.55% · Δ +0.29 pp`).
  static func effectRows(_ e: ExactEffects, differences: Bool = false) -> (headers: [String], rows: [[String]]) {
    let headers = ["lift vs \(e.control)"] + e.metrics.map(\.label)
    return (
      headers,
      e.rows.map { r in
        [r.variant]
          + e.metrics.indices.map { k in
            let lift = NumberText.lift(r.relativeLifts[k])
            guard differences, let d = r.differences[k] else { return lift }
            return lift + " · Δ " + ExperimentReportRenderer.difference(d, e.metrics[k])
          }
      }
    )
  }

  /// The `summary` object: the control, the metrics and each variant's exact lift and difference per metric.
  static func summaryJSON(_ e: ExactEffects) -> JSONValue {
    .object([
      ("control", .string(e.control)), ("primaryMetric", .string(e.metrics.first?.rawValue ?? "")),
      ("best", e.best.map { .string($0) } ?? .null),
      ("standing", standingJSON(e)),
      (
        "variants",
        .array(
          e.rows.map { r in
            .object(
              [("variant", .string(r.variant))]
                + e.metrics.indices.map { k in
                  (
                    e.metrics[k].rawValue,
                    .object([("trueRelativeLift", optional(r.relativeLifts[k])), ("trueDifference", optional(r.differences[k]))])
                  )
                })
          })
      ),
    ])
  }

  /// The ``ExactEffects/standing`` as JSON: `kind` (`best`, `equivalent`, `noneBeatsControl`,
  /// `nothingToCompare`), `arms` (the best, the equivalent arms best first, or the arms inside
  /// the margin), `tiedWithControl` and the `relativeMargin`.
  static func standingJSON(_ e: ExactEffects) -> JSONValue {
    .object([
      ("kind", .string(e.standing.code)), ("arms", .array(e.standing.arms.map { .string($0) })),
      ("tiedWithControl", .array(e.tiedWithControl.map { .string($0) })), ("relativeMargin", .number(e.relativeMargin)),
    ])
  }

  /// Money in the glossary's style: two decimals.
  static func money(_ value: Double?) -> String {
    value.map { NumberText.fixed($0, 2) } ?? "n/a"
  }

  static func table(_ v: Variant) -> String {
    let x = v.exact
    let f = v.flow
    var out = "Variant \(v.variant.id)"
    if let summary = v.variant.summary { out += " — \(summary)" }
    out += "\n"
    let (headers, rows) = screenRows(v)
    var screens = TextTable(headers, alignments: [.left, .left, .right, .right, .right, .right, .right])
    for row in rows { screens.add(row) }
    out += screens.render()
    func rate(_ m: FunnelMetric) -> String { NumberText.percent(x.value(of: m), decimals: 2) }
    out += "  completion \(rate(.completionRate)) · abandonment \(rate(.abandonmentRate)) · skip \(rate(.skipRate))"
    if FunnelMetric.paywallViewRate.applies(to: [v.flow]) { out += " · paywall view \(rate(.paywallViewRate))" }
    if FunnelMetric.purchaseConversion.applies(to: [v.flow]) {
      out += " · purchase \(rate(.purchaseConversion)) (\(rate(.purchaseConversionOfViewers)) of viewers)"
    }
    out += "\n"
    out +=
      "  time to finish: mean \(NumberText.seconds(x.meanSecondsToFinish)), sd \(NumberText.seconds(x.standardDeviationSecondsToFinish))"
    if x.stepLimitReached > 0 { out += " · step limit \(NumberText.percent(x.stepLimitReached, decimals: 3))" }
    out += "\n"
    guard !f.plans.isEmpty else { return out }
    let currency = f.plans.first?.plan.currency ?? ""
    out += "  trial starts \(rate(.trialStartRate)) · trial→paid \(rate(.trialToPaid)) · refunds \(rate(.refundRate)) of purchasers"
    out += " · approved after pending \(NumberText.percent(x.store.pendingApprovals, decimals: 3))\n"
    let horizon = JSONValue.format(f.revenue.horizonMonths)
    out += "  revenue per user (\(horizon) months, net, \(currency)) \(money(x.value(of: .revenuePerUser)))"
    out += " · LTV per payer \(money(x.value(of: .revenuePerPayingUser)))"
    out += " · per paywall viewer \(money(x.value(of: .revenuePerPaywallViewer)))"
    out += " · realized by day \(JSONValue.format(f.revenue.analysisDay)) \(money(x.value(of: .realizedRevenuePerUser)))\n"
    out += "  realized per user by day — "
    out += x.realizedRevenueCurve.map { "\(NumberText.fixed($0.day, 0)): \(money($0.perUser))" }.joined(separator: " · ") + "\n"
    out += "  plan mix: "
    out +=
      f.plans.indices.map { j in
        let p = f.plans[j]
        let share = x.purchase > 0 ? x.planPurchases[j] / x.purchase : nil
        return
          "\(p.plan.id)\(p.isDefault ? "*" : "") \(NumberText.percent(share)) (\(NumberText.percent(x.planPurchases[j], decimals: 3)) of users"
          + (x.planRenewal.indices.contains(j) ? x.planRenewal[j].map { ", renews \(NumberText.percent($0))" } ?? "" : "") + ")"
      }.joined(separator: " · ")
    out += "   (* pre-selected)\n"
    let s = x.store
    out += "  store per 1,000 users: \(NumberText.fixed(s.purchaseTaps * 1000, 1)) plan taps"
    out += " · \(NumberText.fixed(s.purchaseCancels * 1000, 1)) cancelled · \(NumberText.fixed(s.purchaseFailures * 1000, 2)) failed"
    out += " · \(NumberText.fixed(s.purchasePendings * 1000, 2)) pending"
    if s.restoreAttempts > 0 {
      out += " · \(NumberText.fixed(s.restores * 1000, 1)) of \(NumberText.fixed(s.restoreAttempts * 1000, 1)) restores"
    }
    out += "\n"
    return out
  }

  // MARK: - JSON

  /// ``document(experiment:variants:metrics:)`` as pretty-printed JSON followed by a newline.
  package static func json(experiment: String, variants: [Variant], metrics: MetricsSpec) -> String {
    JSONWriter.write(document(experiment: experiment, variants: variants, metrics: metrics))
  }

  /// The JSON tree (`command` and `mode` `"exact"`): per variant every ``FunnelMetric`` (`null` when
  /// undefined), the revenue per user over the horizon, the time to finish in seconds, each screen and
  /// plan, the store's expected events per user and `truncatedMass`, the bound on every probability's error;
  /// last, the `checksum` of the rest (``ContentChecksum``).
  package static func document(experiment: String, variants: [Variant], metrics: MetricsSpec) -> JSONValue {
    let head = JSONReportHead(schemaVersion: schemaVersion, command: "exact", experiment: experiment, mode: "exact")
    // Sealed: the document is a baseline (`check --baseline`, `diff`), refused when edited or damaged.
    return ContentChecksum.sealing(
      head.document([
        ("summary", summaryJSON(effects(variants, metrics: metrics))),
        ("variants", .array(variants.map(variant))),
      ]))
  }

  static func optional(_ value: Double?) -> JSONValue { value.map { .number($0) } ?? .null }

  /// Plan slot `j` of `v` as JSON: what it sells, how often, and what it earns.
  static func plan(_ j: Int, of v: Variant) -> JSONValue {
    let x = v.exact
    let p = v.flow.plans[j]
    return .object([
      ("screen", .string(v.flow.screenIDs[p.screen])),
      ("plan", .string(p.plan.id)),
      ("default", .bool(p.isDefault)),
      ("trial", .bool(x.planHasTrial[j])),
      ("purchase", .number(x.planPurchases[j])),
      ("approvedAfterPending", .number(x.planApprovals[j])),
      ("share", x.purchase > 0 ? .number(x.planPurchases[j] / x.purchase) : .null),
      ("renewal", (x.planRenewal.indices.contains(j) ? x.planRenewal[j] : nil).map { .number($0) } ?? .null),
      ("revenuePerPurchase", .number(x.planRevenue[j])),
    ])
  }

  static func variant(_ v: Variant) -> JSONValue {
    let x = v.exact
    let f = v.flow
    let screens: JSONValue = .array(
      (0..<f.screenCount).map { s in
        .object([
          ("id", .string(f.screenIDs[s])),
          ("kind", .string(f.screenKinds[s].rawValue)),
          ("reach", .number(x.reach[s])),
          ("abandoned", .number(x.abandonedAt[s])),
          ("views", .number(x.views[s])),
          ("failures", .number(x.failures[s])),
          ("meanSecondsPerView", x.views[s] > 0 ? .number(x.screenMillis[s] / x.views[s] / 1000) : .null),
        ])
      })
    let plans: JSONValue = .array(f.plans.indices.map { plan($0, of: v) })
    let s = x.store
    let store: JSONValue = .object([
      ("purchaseTaps", .number(s.purchaseTaps)),
      ("purchaseAttempts", .number(s.purchaseAttempts)),
      ("purchaseCancels", .number(s.purchaseCancels)),
      ("purchaseFailures", .number(s.purchaseFailures)),
      ("purchasePendings", .number(s.purchasePendings)),
      ("pendingApprovals", .number(s.pendingApprovals)),
      ("restoreAttempts", .number(s.restoreAttempts)),
      ("restores", .number(s.restores)),
    ])
    let sells = !f.plans.isEmpty
    let revenue: JSONValue = .object([
      ("currency", f.plans.first.map { .string($0.plan.currency) } ?? .null),
      ("horizonMonths", .number(f.revenue.horizonMonths)),
      ("analysisDay", .number(f.revenue.analysisDay)),
      ("perUser", .number(x.revenuePerUser)),
      ("perPayingUser", optional(x.value(of: .revenuePerPayingUser))),
      ("perPaywallViewer", optional(x.value(of: .revenuePerPaywallViewer))),
      ("realizedPerUser", .number(x.realizedRevenuePerUser)),
      (
        "realizedCurve",
        .array(x.realizedRevenueCurve.map { .object([("day", .number($0.day)), ("perUser", .number($0.perUser))]) })
      ),
    ])
    // A flow that sells nothing has no paywall viewers, purchases, revenue or store keys (they would all be 0).
    var members: [(String, JSONValue)] = [
      ("id", .string(v.variant.id)),
      ("description", v.variant.summary.map { .string($0) } ?? .null),
      ("metrics", .object(FunnelMetric.allCases.filter { $0.applies(to: [f]) }.map { ($0.rawValue, optional(x.value(of: $0))) })),
      ("completion", .number(x.completion)),
      ("abandonment", .number(x.abandonment)),
      ("stepLimitReached", .number(x.stepLimitReached)),
    ]
    if FunnelCounter.paywallViewers.applies(to: [f]) { members.append(("paywallViewers", .number(x.paywallViewers))) }
    if sells { members += [("purchase", .number(x.purchase)), ("trialStarts", .number(x.trialStarts)), ("revenue", revenue)] }
    members += [
      (
        "timeToFinish",
        .object([
          ("meanSeconds", optional(x.meanSecondsToFinish)), ("sdSeconds", optional(x.standardDeviationSecondsToFinish)),
        ])
      ),
      ("expectedScreens", .number(x.expectedScreens)),
      ("screens", screens),
      ("plans", plans),
    ]
    if sells { members.append(("store", store)) }
    return .object(
      members + [
        ("truncatedMass", .number(x.truncatedMass))
      ])
  }
}
