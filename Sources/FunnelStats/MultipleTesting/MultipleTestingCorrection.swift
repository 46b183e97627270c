/// Multiple-testing corrections for a family of p-values (several variants against one
/// control, several metrics), as statsmodels `multipletests` returns them.
///
/// | method | controls | adjusted p-value (sorted p₍₁₎ ≤ … ≤ p₍ₘ₎) |
/// |---|---|---|
/// | `bonferroni` | FWER | `min(1, m·pᵢ)` |
/// | `holm` | FWER, uniformly more powerful than Bonferroni | `min(1, maxⱼ≤ᵢ (m−j+1)·p₍ⱼ₎)` |
/// | `benjaminiHochberg` | FDR under independence / PRDS | `min(1, minⱼ≥ᵢ m·p₍ⱼ₎/j)` |
/// | `none` | nothing | `pᵢ` |
///
/// Holm (1979), Benjamini & Hochberg (1995).
///
/// - Complexity: O(m log m).
public enum MultipleTestingCorrection: String, Sendable, Hashable, Codable, CaseIterable {
  /// No correction.
  case none
  /// Bonferroni: family-wise error rate, simplest and most conservative.
  case bonferroni
  /// Holm's step-down: family-wise error rate, never worse than Bonferroni.
  case holm
  /// Benjamini–Hochberg step-up: false discovery rate.
  case benjaminiHochberg = "benjamini-hochberg"

  /// Adjusted p-values in the input order.
  ///
  /// - Throws: ``StatsError`` if a p-value is outside [0, 1] or NaN.
  public func adjust(_ pValues: [Double]) throws(StatsError) -> [Double] {
    for (i, p) in pValues.enumerated() where !(p >= 0 && p <= 1) {
      throw StatsError(.invalidParameter, field: [.name(.pValues), .index(i)], message: "must be in [0, 1], got \(p)")
    }
    let m = pValues.count
    guard m > 0 else { return [] }
    let mm = Double(m)
    // Stable order: ties get the same adjusted value under all three methods anyway.
    let order = pValues.indices.sorted { (pValues[$0], $0) < (pValues[$1], $1) }
    var adjusted = [Double](repeating: 0, count: m)
    switch self {
    case .none:
      return pValues
    case .bonferroni:
      return pValues.map { min(1, $0 * mm) }
    case .holm:
      var running = 0.0
      for (rank, index) in order.enumerated() {
        running = max(running, pValues[index] * Double(m - rank))
        adjusted[index] = min(1, running)
      }
    case .benjaminiHochberg:
      var running = Double.infinity
      for rank in stride(from: m - 1, through: 0, by: -1) {
        let index = order[rank]
        running = min(running, pValues[index] / (Double(rank + 1) / mm))
        adjusted[index] = min(1, running)
      }
    }
    return adjusted
  }

  /// Which hypotheses are rejected at level `alpha` (adjusted p ≤ α).
  public func reject(_ pValues: [Double], alpha: Double = 0.05) throws(StatsError) -> [Bool] {
    try adjust(pValues).map { $0 <= alpha }
  }
}
