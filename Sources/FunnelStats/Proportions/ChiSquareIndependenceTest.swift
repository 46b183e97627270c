import Foundation

/// Pearson's chi-square test of independence for an r × c table of counts (k arms × m
/// outcomes), as scipy `chi2_contingency(table, correction=…)`.
///
/// ```
/// Eᵢⱼ = rowᵢ · colⱼ / N,   χ² = Σ (Oᵢⱼ − Eᵢⱼ)² / Eᵢⱼ,   df = (r−1)(c−1),   p = Q_χ²(df)(χ²)
/// ```
/// With `yatesCorrection` and df = 1 (2×2), each observed count moves toward its expected
/// count by `min(½, |O − E|)` first (Yates 1934), as scipy does. Assumes independent
/// observations and expected counts ≳ 5 (a ``Diagnostic/smallExpectedCounts`` is set
/// otherwise; for 2×2 prefer ``FisherExactTest``).
///
/// - Complexity: O(r·c).
public enum ChiSquareIndependenceTest {
  /// The result: the test plus the expected counts.
  public struct Result: Sendable, Hashable, Codable {
    /// Statistic χ², degrees of freedom, p-value, method.
    public var test: TestResult
    /// Expected counts under independence, same shape as the table.
    public var expected: [[Double]]
    /// Whether the Yates correction was applied (only when df = 1 and requested).
    public var yatesApplied: Bool
  }

  /// Runs the test.
  ///
  /// A table whose row or column totals include a zero has undefined expected counts and
  /// throws; df = 0 (one row or one column) gives χ² = 0, p = 1.
  ///
  /// - Throws: ``StatsError`` for ragged tables, negative counts or zero margins.
  public static func test(_ table: [[Int]], yatesCorrection: Bool = true) throws(StatsError)
    -> Result
  {
    let rows = table.count
    guard rows > 0, let columns = table.first?.count, columns > 0 else {
      throw StatsError(.dimensionMismatch, field: [.name(.table)], message: "is empty")
    }
    for (i, row) in table.enumerated() {
      guard row.count == columns else {
        throw StatsError(
          .dimensionMismatch, field: [.name(.table), .index(i)],
          message: "has \(row.count) columns, expected \(columns)")
      }
      for (j, v) in row.enumerated() where v < 0 {
        throw StatsError(.negativeCount, field: [.name(.table), .index(i), .index(j)], message: "is negative (\(v))")
      }
    }
    let rowSums = table.map { $0.reduce(0.0) { $0 + Double($1) } }
    var colSums = [Double](repeating: 0, count: columns)
    for row in table { for j in 0..<columns { colSums[j] += Double(row[j]) } }
    let total = rowSums.reduce(0, +)
    if let i = rowSums.firstIndex(of: 0) {
      throw StatsError(
        .emptyArm, field: [.name(.table), .index(i)], message: "row total is zero: expected counts undefined",
        hint: "drop empty rows")
    }
    if let j = colSums.firstIndex(of: 0) {
      throw StatsError(
        .emptyArm, field: [.name(.table), .every, .index(j)],
        message: "column total is zero: expected counts undefined", hint: "drop empty columns")
    }
    let expected = rowSums.map { r in colSums.map { c in r * c / total } }
    let dof = (rows - 1) * (columns - 1)
    let method = "chi-square test of independence"
    if dof == 0 {
      return Result(
        test: TestResult(
          statistic: 0, pValue: 1, alternative: .twoSided, degreesOfFreedom: 0, method: method),
        expected: expected, yatesApplied: false)
    }
    let yates = yatesCorrection && dof == 1
    var chi2 = 0.0
    var small = false
    for i in 0..<rows {
      for j in 0..<columns {
        var observed = Double(table[i][j])
        let e = expected[i][j]
        if e < 5 { small = true }
        if yates {
          let diff = e - observed
          let magnitude = min(0.5, abs(diff))
          observed += diff > 0 ? magnitude : (diff < 0 ? -magnitude : 0)
        }
        let d = observed - e
        chi2 += d * d / e
      }
    }
    let p = ChiSquared(degreesOfFreedom: Double(dof)).sf(chi2)
    return Result(
      test: TestResult(
        statistic: chi2, pValue: p, alternative: .twoSided, degreesOfFreedom: Double(dof),
        method: yates ? method + " (Yates-corrected)" : method,
        diagnostic: small ? .smallExpectedCounts : nil),
      expected: expected, yatesApplied: yates)
  }
}
