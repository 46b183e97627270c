public import FunnelLab

/// Renders a ``RunResult`` as aligned terminal tables: per variant, the funnel
/// screen by screen, then a comparison of every variant with the control.
public enum RunTableRenderer {
  public static func render(_ result: RunResult, summaries: [FunnelSummary]) -> String {
    var out = "\(result.experiment) · seed \(result.seed) · \(NumberText.grouped(result.usersPerVariant)) users per variant"
    out += " · truth mode (the same users walk every variant)\n"
    for (run, summary) in zip(result.variants, summaries) {
      out += "\n" + renderVariant(run, summary)
    }
    if summaries.count > 1 { out += "\n" + renderComparison(summaries) }
    return out
  }

  static func renderVariant(_ run: VariantRun, _ s: FunnelSummary) -> String {
    var out = "Variant \(s.variant)"
    if let summary = run.variant.summary { out += " — \(summary)" }
    out += "\n"
    var table = TextTable(
      ["screen", "kind", "reached", "reach", "quit here", "drop-off", "views", "s/view"],
      alignments: [.left, .left, .right, .right, .right, .right, .right, .right])
    for row in s.screens {
      table.add([
        row.id, row.kind.rawValue, NumberText.grouped(row.reached), NumberText.percent(row.reachRate),
        NumberText.grouped(row.droppedOff), NumberText.percent(row.dropOffRate), NumberText.grouped(row.views),
        row.meanSeconds.map { NumberText.fixed($0, 1) } ?? "n/a",
      ])
    }
    out += table.render()
    func metric(_ m: FunnelMetric) -> String { NumberText.percent(s.value(m)) }
    out += "  completion \(metric(.completionRate)) · skip \(metric(.skipRate)) · paywall view \(metric(.paywallViewRate))"
    out += " · purchase \(metric(.purchaseConversion)) (\(metric(.purchaseConversionOfViewers)) of viewers)\n"
    out += "  time to finish: mean \(NumberText.seconds(s.value(.timeToFinish))), median \(NumberText.seconds(s.medianSecondsToFinish)),"
    out += " p90 \(NumberText.seconds(s.p90SecondsToFinish))"
    if s.stepLimitReached > 0 { out += " · \(NumberText.grouped(s.stepLimitReached)) walks cut at the step limit" }
    out += "\n"
    if !s.plans.isEmpty {
      out +=
        "  plan mix: "
        + s.plans.map { p in
          "\(p.plan)\(p.isDefault ? "*" : "") \(NumberText.percent(p.share)) (\(NumberText.grouped(p.purchases)))"
        }.joined(separator: " · ") + "   (* pre-selected)\n"
    }
    return out
  }

  static func renderComparison(_ summaries: [FunnelSummary]) -> String {
    guard let control = summaries.first else { return "" }
    var out = "Compared with \(control.variant) (differences are true effects: same users, common random numbers)\n"
    let metrics: [FunnelMetric] = [.completionRate, .purchaseConversion, .paywallViewRate, .skipRate]
    var headers = ["variant"]
    var alignments: [TextTable.Alignment] = [.left]
    for m in metrics {
      headers += [m.label, "Δ"]
      alignments += [.right, .right]
    }
    headers += ["time (s)", "Δ"]
    alignments += [.right, .right]
    var table = TextTable(headers, alignments: alignments)
    for s in summaries {
      var row = [s.variant]
      for m in metrics {
        row.append(NumberText.percent(s.value(m)))
        if s.variant == control.variant {
          row.append("")
        } else if let v = s.value(m), let c = control.value(m) {
          row.append(NumberText.points(v - c))
        } else {
          row.append("n/a")
        }
      }
      let t = s.value(.timeToFinish)
      row.append(t.map { NumberText.fixed($0, 1) } ?? "n/a")
      if s.variant == control.variant {
        row.append("")
      } else if let t, let c = control.value(.timeToFinish) {
        let d = t - c
        row.append((d >= 0 ? "+" : "") + NumberText.fixed(d, 1))
      } else {
        row.append("n/a")
      }
      table.add(row)
    }
    out += table.render()
    return out
  }
}
