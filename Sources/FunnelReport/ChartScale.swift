/// The value axis of a chart: a domain, "nice" ticks (1, 2 or 5 × 10ᵏ apart) and the unit
/// their labels carry. Computed once for every chart and row that a reader compares (all
/// variants of one metric, all peeking charts of a plan), so equal values sit at equal
/// positions and a tiny interval is drawn tiny.
package struct ChartScale: Sendable, Equatable {
  /// The value at the left end of the axis.
  package var lower: Double
  /// The value at the right end of the axis.
  package var upper: Double
  /// The distance between two ticks: 1, 2 or 5 × 10ᵏ.
  package var step: Double
  /// The unit written after every non-zero tick label: `pp`, `s`, a currency code (after a
  /// space), `%` (attached), or nothing.
  package var unit: String
  /// Whether positive tick labels carry a `+` (differences do; levels do not).
  package var signed: Bool

  /// The most ticks an axis gets (six intervals).
  static let maximumTicks = 7

  /// The width of a tick label in view-box units, measured with Arial's widths at a phone's
  /// text size (``SVGCharts/textWidth(_:bold:)``: 13 units, where a laptop draws 11), plus
  /// nothing for the margin (see ``labelsFit(plot:bounds:)``).
  static func labelWidth(_ label: String) -> Double { SVGCharts.textWidth(label) }

  /// The tick values, `lower` to `upper` by `step`, each rounded to a multiple of `step` so no
  /// `0.30000000000000004` reaches a label.
  package var ticks: [Double] {
    guard step > 0, upper >= lower else { return [lower] }
    let first = (lower / step).rounded()
    let count = Int(((upper - lower) / step).rounded())
    return (0...max(count, 0)).map { (first + Double($0)) * step }
  }

  /// The digits after the point that `step` needs (0 for 1, 2, 5, 10; 1 for 0.5; 2 for 0.02).
  var decimals: Int {
    var d = 0
    var scaled = step
    while d < 12, abs(scaled - scaled.rounded()) > 1e-9 * max(scaled, 1) {
      scaled *= 10
      d += 1
    }
    return d
  }

  /// A tick's label: `0` at zero, otherwise the value with ``decimals`` digits, `+` on a
  /// positive value when ``signed``, and the unit (`+2 pp`, `-0.5 USD`, `20%`).
  package func label(_ value: Double) -> String {
    let text = NumberText.fixed(value, decimals)
    if abs(value) < step * 1e-6 || text.allSatisfy({ "-0.".contains($0) }) { return "0" }
    let number = (signed && value > 0 ? "+" : "") + text
    if unit.isEmpty { return number }
    return unit == "%" ? number + unit : number + " " + unit
  }

  /// The position of `value` on a plot spanning `plot` (view-box units), clamped to it (the
  /// middle for NaN or an empty domain).
  package func x(_ value: Double, plot: ClosedRange<Double>) -> Double {
    let t = upper > lower && !value.isNaN ? (value - lower) / (upper - lower) : 0.5
    return plot.lowerBound + min(max(t, 0), 1) * (plot.upperBound - plot.lowerBound)
  }

  /// Where each tick label lies horizontally, with its anchor: centred under its tick, or
  /// started at the tick (ended) where centring would cross the left (right) edge of `bounds`.
  func labelPlacements(plot: ClosedRange<Double>, bounds: ClosedRange<Double>) -> [(x: Double, anchor: String, extent: ClosedRange<Double>)]
  {
    ticks.map { tick in
      let x = x(tick, plot: plot)
      let w = Self.labelWidth(label(tick))
      if x - w / 2 < bounds.lowerBound { return (x, "start", x...(x + w)) }
      if x + w / 2 > bounds.upperBound { return (x, "end", (x - w)...x) }
      return (x, "middle", (x - w / 2)...(x + w / 2))
    }
  }

  /// Whether every tick label keeps at least 8 units from the next one.
  func labelsFit(plot: ClosedRange<Double>, bounds: ClosedRange<Double>) -> Bool {
    let extents = labelPlacements(plot: plot, bounds: bounds).map(\.extent)
    return zip(extents, extents.dropFirst()).allSatisfy { $0.upperBound + 8 <= $1.lowerBound }
  }

  /// The smallest step of 1, 2 or 5 × 10ᵏ that is at least `raw` (positive and finite).
  static func niceStep(atLeast raw: Double) -> Double {
    var k = 0
    while pow10(k) > raw { k -= 1 }
    while pow10(k + 1) <= raw { k += 1 }
    let magnitude = pow10(k)
    return [1.0, 2, 5, 10].map { $0 * magnitude }.first { $0 >= raw * (1 - 1e-12) } ?? 10 * magnitude
  }

  /// 10ᵏ by repeated multiplication (exact for the small `k` of axes).
  static func pow10(_ k: Int) -> Double {
    var p = 1.0
    for _ in 0..<abs(k) { p *= 10 }
    return k < 0 ? 1 / p : p
  }

  /// An axis of differences, symmetric around zero so that zero sits in the middle of every
  /// chart: it covers every value (finite ones; points and interval bounds) with 5 % to spare
  /// and at least `±atLeast`, then widens to a multiple of the step. Among the steps that
  /// give at most ``maximumTicks`` ticks whose labels fit on `plot`, the narrowest domain
  /// wins, then the most ticks. With no non-zero value and no floor it spans ±1 unit.
  package static func differences(
    _ values: [Double], atLeast: Double = 0, unit: String, plot: ClosedRange<Double> = 30...370,
    bounds: ClosedRange<Double> = 0...400
  ) -> ChartScale {
    var half = max((values.filter(\.isFinite).map(abs).max() ?? 0) * 1.05, atLeast.isFinite ? abs(atLeast) : 0)
    if !(half > 1e-9) { half = 1 }
    let candidates = (1...3).map { perSide -> ChartScale in
      let step = niceStep(atLeast: half / Double(perSide))
      let edge = (half / step * (1 - 1e-9)).rounded(.up) * step
      return ChartScale(lower: -edge, upper: edge, step: step, unit: unit, signed: true)
    }
    return best(candidates, plot: plot, bounds: bounds)
  }

  /// An axis of levels from zero (bars): up to the largest finite value with 2 % to spare,
  /// at least `atLeast`, widened to a multiple of the step (see ``differences(_:atLeast:unit:plot:bounds:)``).
  package static func levels(
    _ values: [Double], atLeast: Double = 0, unit: String, plot: ClosedRange<Double> = 0...400, bounds: ClosedRange<Double> = 0...400
  ) -> ChartScale {
    var top = max((values.filter(\.isFinite).max() ?? 0) * 1.02, atLeast.isFinite ? atLeast : 0)
    if !(top > 1e-9) { top = 1 }
    let candidates = (1...6).map { intervals -> ChartScale in
      let step = niceStep(atLeast: top / Double(intervals))
      return ChartScale(lower: 0, upper: (top / step * (1 - 1e-9)).rounded(.up) * step, step: step, unit: unit, signed: false)
    }
    return best(candidates, plot: plot, bounds: bounds)
  }

  /// The candidate with at most ``maximumTicks`` fitting labels and the narrowest domain,
  /// then the most ticks; the one with the fewest ticks when none fits.
  static func best(_ candidates: [ChartScale], plot: ClosedRange<Double>, bounds: ClosedRange<Double>) -> ChartScale {
    let fitting = candidates.filter { $0.ticks.count <= maximumTicks && $0.labelsFit(plot: plot, bounds: bounds) }
    let fewest = candidates.min { $0.ticks.count < $1.ticks.count } ?? candidates[0]
    return fitting.min { ($0.upper - $0.lower, -$0.ticks.count) < ($1.upper - $1.lower, -$1.ticks.count) } ?? fewest
  }
}
