extension Calibration {
  /// A variant's (or grid level's) `setAction` probability changed so that the screen
  /// it patches still sums to 1 over the fitted base probabilities.
  package struct PatchRebalance: Sendable, Hashable {
    /// The patch in the spec document, e.g. `variants[1].patches[1]`.
    package var path: SpecPath
    /// The id of the screen the patch changes.
    package var screen: String
    /// The id of the action whose probability the patch sets.
    package var action: String
    /// The probability the patch set, and the one it sets now.
    package var from: Double
    /// The probability the patch sets now, rounded to 4 decimals, in [0, 1].
    package var to: Double
  }

  /// Rebalances the patches written for the old base probabilities.
  ///
  /// A variant that sets an action's probability on a fitted screen was written so that
  /// the screen sums to 1 with the *old* base probabilities (e.g. "continue 0.92" taking
  /// the share of a removed skip). Once the base is fitted that sum is off, and the
  /// calibrated spec would not validate. For every patch list (each variant, each grid
  /// level) and fitted screen where the list summed to 1 before and does not after, the
  /// list's last `setAction` with a probability on that screen takes up the difference:
  /// `p' = p + 1 − Σ`, rounded to 4 decimals like the fitted probabilities. A `p'`
  /// outside [0, 1] is left alone (the calibrated spec then fails validation and is not
  /// written).
  /// - Returns: the document and the experiment with rebalanced patches, and what changed.
  /// - Parameter rounded: round `p'` to 4 decimals (what is written); the joint fit's
  ///   likelihood uses the unrounded rule, so that it is smooth in the probabilities.
  static func rebalancingPatches(
    document: JSONValue, original: Experiment, calibrated: Experiment, screens: [String], rounded: Bool = true
  ) -> (JSONValue, Experiment, [PatchRebalance]) {
    var document = document
    var experiment = calibrated
    var changes: [PatchRebalance] = []
    var lists: [(path: SpecPath, patches: [Patch], set: (inout Experiment, Int, Patch) -> Void)] = []
    for (i, variant) in calibrated.variants.enumerated() where !variant.patches.isEmpty {
      lists.append(([.key("variants"), .index(i), .key("patches")], variant.patches, { $0.variants[i].patches[$1] = $2 }))
    }
    for (f, factor) in (calibrated.grid?.factors ?? []).enumerated() {
      for (l, level) in factor.levels.enumerated() where !level.patches.isEmpty {
        let path: SpecPath = [.key("grid"), .key("factors"), .index(f), .key("levels"), .index(l), .key("patches")]
        lists.append((path, level.patches, { $0.grid?.factors[f].levels[l].patches[$1] = $2 }))
      }
    }
    for list in lists {
      var patches = list.patches
      for screen in screens {
        guard let j = patches.lastIndex(where: { if case .setAction(screen, _, _, .some, _) = $0 { true } else { false } }),
          case .setAction(_, let action, let kind, .some(let p), let to) = patches[j],
          let before = sum(of: screen, in: original, patches: patches), abs(before - 1) <= probabilitySumTolerance,
          let after = sum(of: screen, in: experiment, patches: patches), abs(after - 1) > probabilitySumTolerance
        else { continue }
        let rebalanced = rounded ? ((p + 1 - after) * 10_000).rounded() / 10_000 : p + 1 - after
        guard rebalanced >= 0, rebalanced <= 1 else { continue }
        patches[j] = .setAction(screen: screen, action: action, kind: kind, probability: rebalanced, to: to)
        list.set(&experiment, j, patches[j])
        document = document.settingProbability(at: list.path.index(j), to: rebalanced)
        changes.append(PatchRebalance(path: list.path.index(j), screen: screen, action: action, from: p, to: rebalanced))
      }
    }
    return (document, experiment, changes)
  }

  /// The sum of `screen`'s action probabilities once `patches` are applied to `base`.
  private static func sum(of screen: String, in base: Experiment, patches: [Patch]) -> Double? {
    guard let patched = try? base.applying(Variant(id: "", patches: patches), at: .root),
      let s = patched.flow.screen(screen)
    else { return nil }
    return s.actions.reduce(0) { $0 + ($1.probability ?? 0) }
  }
}
