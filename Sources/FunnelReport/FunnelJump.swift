package import FunnelLab

/// The users a skip or jump brings to a screen from an earlier screen other than the one
/// just above it: why a funnel's reach can rise from one row to the next (Klick's Skip on
/// every slide lands on proUpsell, which is then reached by more users than the last slide).
package struct FunnelJump: Sendable, Hashable {
  /// The index (in the flow's order) of the screen the jump enters.
  package var screen: Int
  /// The ids of the screens the jumps come from, in the flow's order.
  package var sources: [String]
  /// Times those actions were taken (a user who skips once counts once).
  package var count: UInt64
  /// Whether every action that jumps here is a skip (the note then says "skips").
  package var allSkips: Bool

  /// The jumps into each screen of `run`'s flow, in screen order: actions other than
  /// `back` that lead forward past the next screen, with the times they were taken.
  /// - Complexity: O(actions).
  package static func all(in run: VariantRun) -> [FunnelJump] {
    let flow = run.flow
    let targets = flow.actionTargets
    var jumps: [Int: FunnelJump] = [:]
    for (slot, action) in flow.actions.enumerated() where action.kind != .back {
      guard let target = targets[slot], target > action.screen + 1 else { continue }
      let count = run.aggregate.actionCounts.indices.contains(slot) ? run.aggregate.actionCounts[slot] : 0
      var jump = jumps[target] ?? FunnelJump(screen: target, sources: [], count: 0, allSkips: true)
      let source = flow.screenIDs[action.screen]
      if !jump.sources.contains(source) { jump.sources.append(source) }
      jump.count += count
      jump.allSkips = jump.allSkips && action.kind == .skip
      jumps[target] = jump
    }
    return jumps.keys.sorted().compactMap { jumps[$0] }
  }

  /// `↪ 6,043 skips from 5 earlier screens land here`; one or two sources are named
  /// (`from welcome and posing`).
  var note: String {
    let what = allSkips ? (count == 1 ? "skip" : "skips") : (count == 1 ? "jump" : "jumps")
    let from = sources.count <= 2 ? sources.joined(separator: " and ") : "\(sources.count) earlier screens"
    return "↪ \(NumberText.grouped(count)) \(what) from \(from) land here"
  }
}
