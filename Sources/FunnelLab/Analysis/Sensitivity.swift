import FunnelStats
import Synchronization

/// Reruns an experiment's comparison across values of behavior parameters and finds
/// where the winner on a metric flips, with the exact engine (no sampling noise, so
/// a flip is a property of the model, not of a seed).
///
/// The points are the Cartesian product of the axes (the last axis varies
/// fastest). The **leaders** at a point come from ``DecisionRule/standing(control:arms:higherIsBetter:relativeMargin:)``
/// on the exact values with the spec's practical-equivalence margin for the metric: the
/// **winner** when one variant beats the control and every other variant by more than the
/// margin; otherwise a **tie** of the variants equivalent to the top (the control and the
/// variants within the margin of it when none beats it). A **flip** is reported only between
/// two different clear winners along the last axis (tied points between them are skipped,
/// never a flip between tied winners), located to 1/1024 of the bracket by bisection on the
/// sign of `value(new winner) − value(old winner)`.
///
/// - Complexity: one exact solve per variant per point, plus 10 per flip.
package struct Sensitivity: Sendable {
  /// Only the control was swept: nothing to compare, no winner to flip (the one decision
  /// rule's ``DecisionRule/Standing/nothingToCompare``).
  package var nothingToCompare: Bool { variants.count <= 1 }

  /// One varied behavior parameter and its values.
  package struct Axis: Sendable, Hashable {
    /// The parameter set (in the experiment's `behavior`, under any segment override) to each value.
    package var parameter: BehaviorParameter
    /// The values, in the order the points visit them; checked against the parameter's range when run.
    package var values: [Double]

    /// An axis through exactly `values` (no count limit here: ``Sensitivity/pointCount(_:)`` checks the product).
    package init(parameter: BehaviorParameter, values: [Double]) {
      self.parameter = parameter
      self.values = values
    }

    /// `from:to:step` inclusive of `to` (to within a hundredth of a step), or `nil` when
    /// ``valueCount(from:to:step:)`` is `nil`. The count is checked before any value is
    /// made.
    package init?(parameter: BehaviorParameter, from: Double, to: Double, step: Double) {
      guard let count = Self.valueCount(from: from, to: to, step: step) else { return nil }
      self.parameter = parameter
      self.values = (0..<count).map { from + Double($0) * step }
    }

    /// The number of values of `from:to:step`, `⌊(to − from)/step + 0.01⌋ + 1`, or `nil`
    /// unless the bounds and step are finite, `step > 0`, `from ≤ to` and the count is
    /// at most ``Limits/sensitivityPoints``.
    package static func valueCount(from: Double, to: Double, step: Double) -> Int? {
      guard from.isFinite, to.isFinite, step.isFinite, step > 0, from <= to else { return nil }
      let steps = (to - from) / step + 0.01
      guard steps.isFinite, steps < Double(Limits.sensitivityPoints), let count = Int(rounding: steps, .down) else { return nil }
      return count + 1 <= Limits.sensitivityPoints ? count + 1 : nil
    }
  }

  /// The number of points of `axes` (the product of their value counts), or `nil` when
  /// it exceeds ``Limits/sensitivityPoints``; computed without building them.
  package static func pointCount(_ axes: [Axis]) -> Int? {
    Limits.product(axes.map(\.values.count)).flatMap { $0 <= Limits.sensitivityPoints ? $0 : nil }
  }

  /// The exact metric of every variant at one point.
  package struct Point: Sendable, Hashable {
    /// The axis values, in axis order.
    package var values: [Double]
    /// Per variant (in spec order); `nil` when undefined.
    package var metricValues: [Double?]
    /// The variants that lead (``DecisionRule/Standing/leaders(control:)``): one clear winner,
    /// or several tied (equal within the tie tolerance or the margin), the best first.
    package var leaders: [String]

    /// The clear winner: the only leader; `nil` on a tie.
    package var winner: String? { leaders.count == 1 ? leaders.first : nil }
  }

  /// Where the winner changes along the last axis.
  package struct Flip: Sendable, Hashable {
    /// The other axes' values (all but the last).
    package var fixed: [Double]
    /// The last axis's parameter, along which the winner changes.
    package var parameter: BehaviorParameter
    /// The grid values of that parameter of the two points with different clear winners
    /// (neighbours, or with only tied points between them).
    package var between: ClosedRange<Double>
    /// The bisected point where the two variants tie.
    package var at: Double
    /// The winner at the lower end of ``between``.
    package var from: String
    /// The winner at the upper end of ``between``.
    package var to: String
  }

  /// The experiment's name.
  package var experiment: String
  /// The metric the winner is chosen on (the spec's primary metric unless another was asked for).
  package var metric: FunnelMetric
  /// Every variant id, in the spec's order: the order of each point's ``Point/metricValues``.
  package var variants: [String]
  /// The varied parameters, in the order given; the last one varies fastest.
  package var axes: [Axis]
  /// Every combination of the axes' values, the last axis varying fastest.
  package var points: [Point]
  /// Every change of clear winner along the last axis, in point order; empty when one variant
  /// wins everywhere or the changes are only to or from ties.
  package var flips: [Flip]
  /// The relative practical-equivalence margin of ``metric`` the leaders were chosen with.
  package var relativeMargin: Double

  /// Runs the analysis, the points in parallel; `progress` is called with the points solved and
  /// their total after each, one call at a time (from the worker that solved it). The points'
  /// compiles share the threshold rows of the screens a parameter leaves alone through `memo`
  /// (by default a memo of this run's own, dropped when it returns). `threads` workers (`nil`: every
  /// core) solve the points; the result does not depend on it.
  /// - Throws: ``SpecErrors`` when the experiment, or any point of it, is invalid
  ///   (e.g. a value outside the parameter's range).
  package static func run(
    _ experiment: Experiment, axes: [Axis], metric: FunnelMetric? = nil, memo: CompileMemo = CompileMemo(),
    threads: Int? = nil, progress: (@Sendable (_ done: Int, _ total: Int) -> Void)? = nil
  ) throws(SpecErrors) -> Sensitivity {
    let metric = metric ?? experiment.metrics.primary
    let margin = experiment.metrics.relativeMargin(for: metric)
    guard pointCount(axes) != nil else {
      throw SpecErrors(
        source: experiment.name,
        errors: [
          SpecError(
            .limit, path: .root, message: "the axes give more than \(Limits.sensitivityPoints) points",
            hint: "use larger steps or fewer axes")
        ])
    }
    let ids = experiment.variants.map(\.id)
    let combos = axes.reduce([[Double]]([[]])) { combos, axis in combos.flatMap { prefix in axis.values.map { prefix + [$0] } } }
    // Points are independent: solved in parallel, in point order (``ParallelWork``).
    let ticks = SerialProgress(total: combos.count, progress)
    let points = try firstFailure(
      ParallelWork.mapUntilFailure(combos.count, threads: threads) { k -> Result<Point, SpecErrors> in
        defer { ticks.tick() }
        return Result { () throws(SpecErrors) -> Point in
          let metricValues = try evaluate(experiment, axes: axes, values: combos[k], metric: metric, memo: memo)
          return Point(values: combos[k], metricValues: metricValues, leaders: leaders(ids, metricValues, metric, margin: margin))
        }
      })
    var flips: [Flip] = []
    if let last = axes.last {
      let changes = changesOfWinner(points)
      // Each change of winner is bisected on its own, the changes in parallel.
      flips = try firstFailure(
        ParallelWork.mapUntilFailure(changes.count, threads: threads) { c -> Result<Flip?, SpecErrors> in
          Result { () throws(SpecErrors) -> Flip? in
            try bisect(
              experiment, axes: axes, last: last, from: points[changes[c].from], to: points[changes[c].to], ids: ids, metric: metric,
              memo: memo)
          }
        }
      ).compactMap { $0 }
    }
    return Sensitivity(
      experiment: experiment.name, metric: metric, variants: ids, axes: axes, points: points, flips: flips, relativeMargin: margin)
  }

  /// The pairs of points (indices) along the last axis, the other axes fixed, whose clear
  /// winners differ, with only tied points between them: a tie is never a winner, so no flip
  /// starts or ends at one.
  package static func changesOfWinner(_ points: [Point]) -> [(from: Int, to: Int)] {
    var changes: [(from: Int, to: Int)] = []
    var lastClear: Int?
    for k in points.indices {
      if let l = lastClear, points[l].values.dropLast() != points[k].values.dropLast() { lastClear = nil }
      guard let winner = points[k].winner else { continue }
      if let l = lastClear, points[l].winner != winner { changes.append((l, k)) }
      lastClear = k
    }
    return changes
  }

  /// Where between two points the clear winner changes: bisected on the last axis to 1/1024 of
  /// the bracket; `nil` when either point has no clear winner.
  static func bisect(
    _ experiment: Experiment, axes: [Axis], last: Axis, from a: Point, to b: Point, ids: [String], metric: FunnelMetric,
    memo: CompileMemo
  ) throws(SpecErrors) -> Flip? {
    guard let lo = a.values.last, let hi = b.values.last, let from = a.winner, let to = b.winner, let i = ids.firstIndex(of: from),
      let j = ids.firstIndex(of: to)
    else { return nil }
    var low = lo
    var high = hi
    for _ in 0..<40 where high - low > (hi - lo) / 1024 {
      let mid = (low + high) / 2
      let v = try evaluate(experiment, axes: axes, values: Array(a.values.dropLast()) + [mid], metric: metric, memo: memo)
      let sign = metric.higherIsBetter ? 1.0 : -1.0
      if ((v[j] ?? -.infinity) - (v[i] ?? -.infinity)) * sign > 0 { high = mid } else { low = mid }
    }
    return Flip(
      fixed: Array(a.values.dropLast()), parameter: last.parameter, between: lo...hi, at: (low + high) / 2, from: from, to: to)
  }

  /// The values of `results` in order, or the first failure (in index order) thrown.
  static func firstFailure<T>(_ results: [Result<T, SpecErrors>]) throws(SpecErrors) -> [T] {
    var values: [T] = []
    for result in results {
      switch result {
      case .success(let value): values.append(value)
      case .failure(let error): throw error
      }
    }
    return values
  }

  /// The exact value of `metric` in every variant at the point `values` of `axes`.
  static func evaluate(
    _ experiment: Experiment, axes: [Axis], values: [Double], metric: FunnelMetric, memo: CompileMemo? = nil
  ) throws(SpecErrors) -> [Double?] {
    var e = experiment
    for (axis, value) in zip(axes, values) { e.behavior[axis.parameter] = value }
    return try FlowCompiler.compileAll(e, memo: memo).map { ExactEngine.value(of: metric, $0) }
  }

  /// The leaders among `ids` (the control first) by their exact `values` of `metric`, with
  /// the relative margin `margin`; empty when the control's value is undefined.
  static func leaders(_ ids: [String], _ values: [Double?], _ metric: FunnelMetric, margin: Double) -> [String] {
    guard let control = ids.first, let base = values.first ?? nil else { return [] }
    let arms = zip(ids, values).dropFirst().map { (id: $0, value: $1) }
    return DecisionRule.standing(control: base, arms: arms, higherIsBetter: metric.higherIsBetter, relativeMargin: margin)
      .leaders(control: control)
  }
}

/// Reports work done from several workers one call at a time, counting the items itself.
final class SerialProgress: Sendable {
  private let done = Mutex<Int>(0)
  private let total: Int
  private let report: (@Sendable (_ done: Int, _ total: Int) -> Void)?

  init(total: Int, _ report: (@Sendable (_ done: Int, _ total: Int) -> Void)?) {
    self.total = total
    self.report = report
  }

  /// `items` more done (one by default): the report sees the count so far, under the lock.
  func tick(_ items: Int = 1) {
    done.withLock { count in
      count += items
      report?(count, total)
    }
  }
}
