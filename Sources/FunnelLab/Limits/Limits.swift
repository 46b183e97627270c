import FunnelStats

/// Every bound FunnelLab puts on a number it is given, in one place.
///
/// A spec is checked against these by ``Experiment/validationErrors()`` (so by
/// `funnellab validate` and before any run, before anything is built or allocated);
/// command-line values by the CLI, with the same constants. A value beyond its bound is
/// refused with a message that names the field (its JSON path) and the bound. The
/// arithmetic that combines bounded values (sums of shard counts, products of grid
/// levels or sensitivity axes, table sizes) is checked for overflow, and every
/// conversion from `Double` to an integer goes through `init?(rounding:_:)`, which
/// refuses what does not fit.
///
/// | field | bound | why |
/// |---|---|---|
/// | `users`, `--users` | 1 … 10¹⁰ per variant | a run of 10¹⁰ users takes hours; counts stay far below 2⁶⁴ |
/// | `simulation.stepLimit` | 1 … 10 000 | the Monte Carlo's ceiling per walk and the exact engine's on iterations (default 500) |
/// | `simulation.traitBins` | 1 … 4096 | |
/// | `behavior.screensSeenCap` | 1 … 64 (whole) | see ``BehaviorParameter/range`` |
/// | `flow.screens` | 1 … 63 | visited screens are a 64-bit mask |
/// | actions of a screen | ≤ 64 | |
/// | plans of a flow (all paywalls) | ≤ 64 | the exact engine's labels grow with plans |
/// | options of a choice | ≤ 1000 | |
/// | `population.segments` | 1 … 100 | |
/// | weights (segment, option, allocation) | finite, 0 … 10¹² | their sums stay finite and exact enough |
/// | `variants` (listed) | ≤ 1000 | |
/// | grid cells | ≤ 10 000, counted before any cell is built | |
/// | compiled tables | ≤ 1 GiB for all variants of a run, see ``compiledTableBytes(segments:traitBins:seenLevels:screens:stride:)`` | |
/// | sensitivity points | ≤ 5000 over all axes, counted before any is built | |
/// | `parameterUncertainty.draws`, `--draws` | 2 … 10 000 | one exact solve of every variant per draw |
/// | counts read back (`analyze`, `calibrate`) | 0 … 10¹⁵ (``FunnelStats/StatsLimits/maxCount``) | exact as `Double` |
/// | power sample size | ≤ 10¹² per arm (``FunnelStats/StatsLimits/maxSampleSize``) | |
///
/// The exact engine stops iterating when the mass still walking in a cell is at most
/// ``ExactEngine/tolerance`` (10⁻¹⁶), or at `stepLimit`: a near-absorbing loop (return
/// probability ρ per step) needs about `log(10⁻¹⁶)/log ρ` steps, so its cost is bounded
/// by `stepLimit` whatever ρ is.
package enum Limits {
  /// Users per variant: the spec's `users` and `--users` of `run`, `grid`, `exact`.
  package static let users: ClosedRange<Int> = 1...10_000_000_000
  /// `simulation.stepLimit`: steps after which a walk is cut; also the exact engine's
  /// ceiling on iterations.
  package static let stepLimit: ClosedRange<Int> = 1...10_000
  /// A screen's `dwell.medianSeconds`: up to a day.
  package static let dwellSeconds: ClosedRange<Double> = 0...86_400
  /// `simulation.traitBins`.
  package static let traitBins: ClosedRange<Int> = 1...4096
  /// Screens of a flow (after patches).
  package static let screens = 63
  /// Actions of one screen.
  package static let actionsPerScreen = 64
  /// Plans of a flow, over all its paywalls.
  package static let plans = 64
  /// Options of one choice screen.
  package static let optionsPerChoice = 1_000
  /// Segments of the population.
  package static let segments = 100
  /// The largest mean of a pre-period covariate at intent 0 (``PrePeriodCovariate/mean``).
  package static let covariateMean = 1_000.0
  /// The largest `|intentEffect|` of a pre-period covariate: `exp(3)` per unit of intent.
  package static let covariateIntentEffect = 3.0
  /// The largest mean count any user may have (`λ` of the most intent-rich bin).
  package static let covariateCellMean = 10_000.0
  /// The most entries of the compiled covariate tables (every segment and intent bin), 8 bytes each.
  package static let covariateTableEntries = 1 << 22
  /// The largest relative weight (segments, options, allocation).
  package static let weight = 1e12
  /// Variants listed in a spec (grid cells come on top).
  package static let variants = 1_000
  /// Cells of a grid: the product of its factors' level counts (what `grid --exact` ranks,
  /// streamed; the Monte Carlo grid runs its cells as variants, within ``variants``).
  package static let gridCells = 100_000
  /// Cells of a grid that validation lists as variants (to check the allocation and the
  /// expectations that name them); a larger grid's cells are read one at a time.
  package static let listedGridCells = 10_000
  /// Points of a sensitivity analysis: the product of its axes' value counts.
  package static let sensitivityPoints = 5_000
  /// Draws of the uncertain behavior parameters (`parameterUncertainty.draws`, `--draws`): each costs one exact
  /// solve of every variant.
  package static let parameterDraws: ClosedRange<Int> = 2...10_000
  /// Bytes of the compiled tables of all the variants a run compiles at once: 1 GiB.
  package static let compiledTableBytes = 1 << 30
  /// The largest count read back from a file or a flag (`analyze`, `calibrate`).
  package static let count = StatsLimits.maxCount

  /// The ranges of the planning settings (`funnellab power <spec>`), checked on the
  /// command line and again when a planning shard file is read back.
  package enum Planning {
    /// Users per arm of the simulated experiments.
    package static let usersPerArm: ClosedRange<Int> = 2...1_000_000_000
    /// Eligible users per day.
    package static let usersPerDay: ClosedRange<Int> = 2...1_000_000_000_000
    /// Days (daily looks) of the peeking simulation.
    package static let days: ClosedRange<Int> = 1...100
    /// Replicate experiments per simulation.
    package static let replicates: ClosedRange<Int> = 100...1_000_000
    /// Target power of the size search.
    package static let targetPower: ClosedRange<Double> = 0.01...0.999
    /// Significance level.
    package static let alpha: ClosedRange<Double> = 1e-6...0.5
  }

  /// Bytes of one variant's compiled threshold table:
  /// ```
  /// segments × traitBins × seenLevels × 2 × screens × stride × 8
  /// ```
  /// where `seenLevels = screensSeenCap + 1`, 2 is the personalized flag and `stride`
  /// the largest number of outcomes of a screen (see ``CompiledFlow``).
  /// - Returns: `nil` when the product overflows `Int`.
  package static func compiledTableBytes(segments: Int, traitBins: Int, seenLevels: Int, screens: Int, stride: Int) -> Int? {
    product([segments, traitBins, seenLevels, 2, screens, stride, 8])
  }

  /// The product of `factors`, or `nil` when it overflows `Int` or a factor is negative.
  package static func product(_ factors: [Int]) -> Int? {
    var result = 1
    for f in factors {
      guard f >= 0 else { return nil }
      let (p, overflow) = result.multipliedReportingOverflow(by: f)
      if overflow { return nil }
      result = p
    }
    return result
  }
}
