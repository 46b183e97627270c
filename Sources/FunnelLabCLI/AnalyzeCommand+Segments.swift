import FunnelLab
import FunnelStats

extension AnalyzeCommand {
  /// A file with a segment column: each arm's totals over its segments (what the main
  /// analysis reads), and each arm's conversions by segment.
  struct SegmentData {
    /// Per arm (in order of first appearance), its totals.
    var totals: [ArmData]
    /// The line of each arm's first row.
    var lines: [Int]
    /// Segments in order of first appearance.
    var segments: [String]
    /// Per arm, per segment: users and conversions (0 and 0 for a segment the arm has no row for).
    var counts: [[(users: Int, conversions: Int)]]
  }

  /// Groups rows by arm and segment; a pair given twice, or totals past ``StatsLimits/maxCount``, is an error naming the line.
  static func segmentData(_ rows: [DataRow], file: String) throws(CommandFailure) -> SegmentData {
    func fail(_ line: Int, _ message: String) -> CommandFailure {
      CommandFailure.invalidInput("\(file):\(line): \(message.escapingControlCharacters)")
    }
    var arms: [String] = []
    var segments: [String] = []
    var lines: [Int] = []
    var cells: [String: [String: (Int, Int)]] = [:]
    var totals: [String: ArmData] = [:]
    for row in rows {
      let arm = row.arm.name
      let segment = row.segment ?? ""
      if !arms.contains(arm) {
        arms.append(arm)
        lines.append(row.line)
      }
      if !segments.contains(segment) { segments.append(segment) }
      if cells[arm]?[segment] != nil { throw fail(row.line, "arm '\(arm)' appears twice in segment '\(segment)'") }
      guard row.arm.users >= 0, row.arm.conversions >= 0, row.arm.conversions <= row.arm.users else {
        throw fail(row.line, "a segment's conversions must be from 0 to its users (\(row.arm.conversions) of \(row.arm.users))")
      }
      cells[arm, default: [:]][segment] = (row.arm.users, row.arm.conversions)
      var total = totals[arm] ?? ArmData(name: arm, users: 0, conversions: 0)
      let users = total.users.addingReportingOverflow(row.arm.users)
      let conversions = total.conversions.addingReportingOverflow(row.arm.conversions)
      guard !users.overflow, !conversions.overflow, users.partialValue <= StatsLimits.maxCount else {
        throw fail(row.line, "arm '\(arm)' has more than \(StatsLimits.maxCount) users over its segments")
      }
      total.users = users.partialValue
      total.conversions = conversions.partialValue
      if case .statistic(let r)? = row.arm.revenue {
        let previous: SampleMeanStatistic? = if case .statistic(let p)? = total.revenue { p } else { nil }
        total.revenue = .statistic(
          SampleMeanStatistic(
            n: users.partialValue, sum: (previous?.sum ?? 0) + r.sum, sumOfSquares: (previous?.sumOfSquares ?? 0) + r.sumOfSquares))
      }
      totals[arm] = total
    }
    return SegmentData(
      totals: arms.compactMap { totals[$0] }, lines: lines, segments: segments,
      counts: arms.map { arm in segments.map { cells[arm]?[$0] ?? (0, 0) } })
  }

  /// The conversion rate by segment, post-stratified, with the control first.
  static func segmentReport(_ data: SegmentData, control: String, settings: ExperimentAnalysis.Settings) -> SegmentReport {
    let names = data.totals.map(\.name)
    let order = (names.firstIndex(of: control).map { [$0] } ?? []) + names.indices.filter { names[$0] != control }
    let all = Double(data.counts.joined().reduce(0) { $0 + $1.users })
    let shares = data.segments.indices.map { k in Double(data.counts.reduce(0) { $0 + $1[k].users }) / max(all, 1) }
    let arms = order.map { i in
      SegmentReport.ArmStrata(
        arm: names[i],
        sums: data.counts[i].map { StratumSums(users: Double($0.users), sum: Double($0.conversions), sumOfSquares: Double($0.conversions)) }
      )
    }
    return SegmentReport(
      metric: .purchaseConversion, strata: data.segments, strataShares: shares, covariate: nil, arms: arms, alpha: settings.alpha,
      correction: settings.correction, label: "conversion")
  }
}
