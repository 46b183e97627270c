import Foundation
import FunnelLab
import Testing

@testable import FunnelReport

/// ``NumberText``: fixed decimals rounded half away from zero, interval bounds that never
/// print a non-zero as zero, signs, thousands separators and labels.
@Suite struct NumberTextTests {
  @Test(arguments: [
    (1.0, 2, "1.00"), (0.125, 2, "0.13"), (-0.125, 2, "-0.13"), (2.5, 0, "3"), (-2.5, 0, "-3"), (1234.5678, 1, "1234.6"),
    (0.05, 1, "0.1"), (0.999, 2, "1.00"), (9.995, 0, "10"), (42, 0, "42"),
  ])
  func fixedRoundsHalfAwayFromZero(value: Double, decimals: Int, text: String) {
    #expect(NumberText.fixed(value, decimals) == text)
  }

  /// Over magnitudes from about 10⁻⁷ to 10⁹ and 0 to 12 decimals: exactly `decimals` digits after the
  /// point, and the text reads back as the value to within half a unit in the last place shown
  /// (or the value's own precision).
  @Test func fixedHasTheAskedDecimalsAndReadsBack() {
    var state: UInt64 = 0x9E37_79B9_7F4A_7C15
    for _ in 0..<5_000 {
      state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
      let exponent = Double(state >> 60) - 6  // -6 … 9
      let value = (Double(state >> 11 & 0xFFFFF) / Double(0xFFFFF) + 0.1) * pow(10, exponent) * (state & 1 == 0 ? 1 : -1)
      let decimals = Int((state >> 40) % 13)
      let text = NumberText.fixed(value, decimals)
      let parts = text.split(separator: ".", omittingEmptySubsequences: false)
      #expect(parts.count == (decimals == 0 ? 1 : 2) && (parts.count == 1 || parts[1].count == decimals), "\(value), \(decimals): \(text)")
      let back = Double(text) ?? .nan
      let allowed = 0.5 * pow(10, -Double(decimals)) * 1.000_001 + abs(value) * 1e-15
      #expect(abs(back - value) <= allowed, "\(value), \(decimals): \(text)")
    }
  }

  /// A negative value that rounds to zero prints without a sign: `-0.00` would read as a value below zero.
  @Test func fixedNeverPrintsMinusZero() {
    #expect(NumberText.fixed(-0.0001, 2) == "0.00")
    #expect(NumberText.fixed(-0.0, 1) == "0.0")
    #expect(NumberText.fixed(-0.004, 2) == "0.00")
    #expect(NumberText.fixed(-0.005, 2) == "-0.01")
  }

  @Test func fixedWordsTheNonFiniteValuesAndFallsBackBeyond1e15() {
    #expect(NumberText.fixed(.nan, 2) == "n/a")
    #expect(NumberText.fixed(.infinity, 2) == "∞")
    #expect(NumberText.fixed(-.infinity, 2) == "-∞")
    #expect(NumberText.fixed(1e15, 2) == JSONValue.format(1e15))
    #expect(NumberText.fixed(2.5e20, 2) == "2.5e+20")
  }

  /// Bounds: more decimals when the asked ones would print a non-zero as zero, never a
  /// non-zero printed as `0`, the sign kept; at most 12 decimals, then scientific notation.
  @Test(arguments: [
    (0.0, 1, "0.0"), (0.123, 1, "0.1"), (0.0004, 1, "0.0004"), (-0.0004, 1, "-0.0004"), (0.00046, 2, "0.0005"),
    (-0.049, 1, "-0.05"), (12.34, 1, "12.3"), (1e-13, 1, "1.00e-13"), (-2.5e-15, 2, "-2.50e-15"),
  ])
  func boundsNeverPrintANonZeroAsZero(value: Double, decimals: Int, text: String) {
    #expect(NumberText.bound(value, decimals) == text)
  }

  /// Every non-zero bound from 10⁻³⁰⁰ to 1, of either sign, prints with a digit other than 0.
  @Test func everyNonZeroBoundHasANonZeroDigit() {
    var value = 1.0
    while value > 1e-300 {
      for v in [value, -value, value * 0.97] {
        let text = NumberText.bound(v, 1)
        let mantissa = text.split(separator: "e").first ?? ""
        #expect(mantissa.contains(where: { "123456789".contains($0) }), "\(v) → \(text)")
        #expect(text.hasPrefix("-") == (v < 0), "\(v) → \(text)")
      }
      value /= 7
    }
  }

  /// The scientific form has one digit before the point: 9.996e-13 is `1.00e-12`, not `10.00e-13`.
  @Test func scientificBoundsAreNormalized() {
    #expect(NumberText.bound(9.996e-13, 1) == "1.00e-12")
    #expect(NumberText.bound(-9.999e-14, 1) == "-1.00e-13")
  }

  @Test func groupedPutsCommasBetweenThousands() {
    #expect(NumberText.grouped(0) == "0")
    #expect(NumberText.grouped(999) == "999")
    #expect(NumberText.grouped(1000) == "1,000")
    #expect(NumberText.grouped(1_234_567) == "1,234,567")
    #expect(NumberText.grouped(-1_234) == "-1,234")
    #expect(NumberText.grouped(UInt64.max) == "18,446,744,073,709,551,615")
    #expect(NumberText.grouped(Int64.min) == "-9,223,372,036,854,775,808")
    #expect(NumberText.grouped(1_234.4, rounding: .up) == "1,235")
    #expect(NumberText.grouped(1_234.6, rounding: .down) == "1,234")
    #expect(NumberText.grouped(1e30, rounding: .up) == "1e+30")
  }

  @Test(arguments: [(0.05, "95%"), (0.1, "90%"), (0.025, "97.5%"), (0.01, "99%"), (0.001, "99.9%"), (0.0001, "99.99%")])
  func levelDropsTrailingZeros(alpha: Double, label: String) {
    #expect(NumberText.level(alpha: alpha) == label)
  }

  @Test func percentPointsAndSeconds() {
    #expect(NumberText.percent(0.1234) == "12.3%")
    #expect(NumberText.percent(0.1234, decimals: 2) == "12.34%")
    #expect(NumberText.percent(nil) == "n/a")
    #expect(NumberText.points(0.012) == "+1.2 pp")
    #expect(NumberText.points(-0.012) == "-1.2 pp")
    // A difference that rounds to zero has no sign, whichever side of 0 it is on.
    #expect(NumberText.points(0) == "0.0 pp")
    #expect(NumberText.points(0.0004) == "0.0 pp")
    #expect(NumberText.points(-0.0004) == "0.0 pp")
    #expect(NumberText.signed(0.004, 2) == "0.00" && NumberText.signed(0.006, 2) == "+0.01")
    #expect(NumberText.lift(0.0459) == "+4.59%")
    #expect(NumberText.lift(nil as Double?) == "n/a")
    #expect(NumberText.points(nil) == "n/a")
    #expect(NumberText.seconds(12.34) == "12.3 s")
    #expect(NumberText.seconds(nil) == "n/a")
  }
}
