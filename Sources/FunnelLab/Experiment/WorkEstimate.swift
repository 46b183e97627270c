/// What a Monte Carlo run will cost before it starts, from the cost model the benchmarks
/// measure (`Benchmarks/README.md`, "How cost grows"): a user walk costs its steps, and a step
/// about ``nanosecondsPerStep`` on one core whatever the flow's size. A user's expected steps are
/// the control's expected screen views (``ExactFunnel/expectedScreens``), solved exactly.
///
/// An estimate, not a promise: the benchmarks measured 13–25 ns a step on one core of the
/// reference machine (more once the outcome tables leave the caches), and a busy machine is slower.
/// `funnellab run` in truth mode, with the bookkeeping its reports need, measured 23.6 ns a
/// step in a release build (Klick, control and features5, 2 × 10⁷ users on one thread: 5.28 s)
/// and 2.1 times that in a debug build (11.04 s).
package struct WorkEstimate: Sendable, Hashable {
  /// The cost of one step of one user on one core, in nanoseconds: the top of the 13–25 ns the
  /// benchmarks measured, which a truth-mode run reaches.
  package static let nanosecondsPerStep = 25.0
  /// How much slower this build walks than a release build.
  package static let buildSlowdown: Double = {
    #if DEBUG
      2.1
    #else
      1
    #endif
  }()
  /// Below this many walks no run takes 10 seconds (100 steps a user at 25 ns, even in a debug
  /// build, on one core: 5 s), so the flow is not solved to find out; a longer walk is caught by
  /// its progress's pace instead.
  package static let walksWorthEstimating = 1_000_000.0

  /// User walks in the run (users × the arms each walks).
  package var walks: Double
  /// Expected steps (screen views) a walk.
  package var stepsPerWalk: Double

  /// An estimate of `walks` walks of `stepsPerWalk` steps each.
  package init(walks: Double, stepsPerWalk: Double) {
    self.walks = walks
    self.stepsPerWalk = stepsPerWalk
  }

  /// Seconds of one core.
  package var cpuSeconds: Double { walks * stepsPerWalk * Self.nanosecondsPerStep * Self.buildSlowdown * 1e-9 }

  /// Seconds of wall time on `threads` cores.
  package func wallSeconds(threads: Int) -> Double { cpuSeconds / Double(max(1, threads)) }

  /// The estimate for a run of `experiment` with `options` (its users per arm, arms, shard), or
  /// with `usersPerDay` for `days` days; `nil` as for ``monteCarlo(_:walks:)``.
  package static func run(_ experiment: Experiment, options: RunOptions, usersPerDay: Int? = nil, days: Int? = nil) -> WorkEstimate? {
    let control = experiment.variants.first?.id ?? ""
    let arms = options.variants.map { Set($0 + [control]).count } ?? experiment.variants.count
    var walks = Double(options.users ?? experiment.users) * Double(arms)
    if let usersPerDay, let days { walks = Double(usersPerDay) * Double(days) }
    if let shard = options.shard { walks /= Double(max(1, shard.count)) }
    return monteCarlo(experiment, walks: walks)
  }

  /// The estimate for `walks` user walks of `experiment`'s flow; `nil` when too few walks to
  /// take 10 seconds (nothing is solved then) or when the control cannot be compiled.
  package static func monteCarlo(_ experiment: Experiment, walks: Double) -> WorkEstimate? {
    guard walks >= walksWorthEstimating, !experiment.variants.isEmpty,
      let flow = try? FlowCompiler.compile(experiment, variant: 0)
    else { return nil }
    return WorkEstimate(walks: walks, stepsPerWalk: ExactEngine.solve(flow).expectedScreens)
  }
}
