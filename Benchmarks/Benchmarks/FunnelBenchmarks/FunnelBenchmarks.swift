import Benchmark
import BenchmarkFlows
import FunnelLab
import FunnelStats

// FunnelLab's throughput, allocation and memory benchmarks (issue 9). Run from
// Benchmarks/ under the shared build lock:
//
//   flock /tmp/swift-build.lock swift package benchmark --target FunnelBenchmarks
//
// Every timed iteration does 10⁶ units of work (users, draws or streams) and is
// reported unscaled in microseconds, so the wall clock reads as µs per 10⁶ units
// (= picoseconds per unit: 80,000 µs per 10⁶ users is 80 ns a user, 12.5 M users/s),
// with five significant digits, and the malloc count is per 10⁶ units.

let seed: UInt64 = 20_261_121
let usersPerIteration = 1_000_000

/// Loads a seed flow, or stops the benchmark run with the spec's errors.
func load<T>(_ body: () throws(SpecErrors) -> T) -> T {
  do { return try body() } catch { fatalError("cannot load a seed flow: \(error)") }
}

let benchmarks: @Sendable () -> Void = {
  let timed = Benchmark.Configuration(
    metrics: [.wallClock, .mallocCountTotal], timeUnits: .microseconds, warmupIterations: 2, scalingFactor: .one,
    maxDuration: .seconds(3), maxIterations: 30)
  let million = 0..<usersPerIteration

  // MARK: - Monte Carlo users/s, seed flows' control variants, 1 and 2 threads
  for name in SeedFlows.names {
    let flow = load { () throws(SpecErrors) in try SeedFlows.control(name) }
    for threads in [1, 2] {
      Benchmark("MonteCarlo \(name) control threads=\(threads)", configuration: timed) { benchmark in
        blackHole(MonteCarloEngine(threads: threads).run(flow, users: usersPerIteration, seed: seed))
      }
    }
  }

  // MARK: - Purely explicit-probability flows (the seed flows without traits or dwell)
  for name in SeedFlows.names {
    let explicit = load { () throws(SpecErrors) in
      try FlowCompiler.compile(SeedFlows.experiment(name).explicitProbabilitiesOnly, variant: 0)
    }
    for threads in name == "klick-onboarding" ? [1, 2] : [1] {
      Benchmark("MonteCarlo \(name) explicit threads=\(threads)", configuration: timed) { benchmark in
        blackHole(MonteCarloEngine(threads: threads).run(explicit, users: usersPerIteration, seed: seed))
      }
    }
  }

  // MARK: - The bare table-driven walk of Klick's control chain (the hardware limit)
  let chain = load { () throws(SpecErrors) in try ChainTables(SeedFlows.experiment("klick-onboarding"), variant: 0) }
  let bare = BareWalk(chain)
  Benchmark("BareWalk klick-onboarding control threads=1", configuration: timed) { benchmark in
    blackHole(bare.run(users: 0..<UInt64(usersPerIteration), seed: seed))
  }
  // The same walk of the explicit-probability Klick chain: the limit for the explicit-flow target.
  let explicitChain = load { () throws(SpecErrors) in
    try ChainTables(SeedFlows.experiment("klick-onboarding").explicitProbabilitiesOnly, variant: 0)
  }
  let bareExplicit = BareWalk(explicitChain)
  Benchmark("BareWalk klick-onboarding explicit threads=1", configuration: timed) { benchmark in
    blackHole(bareExplicit.run(users: 0..<UInt64(usersPerIteration), seed: seed))
  }

  // MARK: - The random generator alone
  Benchmark("Generator xoshiro256** next() (10^6 draws)", configuration: timed) { benchmark in
    var rng = Xoshiro256StarStar(seed: seed)
    var sink: UInt64 = 0
    for _ in million { sink ^= rng.next() }
    blackHole(sink)
  }
  Benchmark("Generator xoshiro256** init(seed:stream:) + next() (10^6 streams)", configuration: timed) { benchmark in
    var sink: UInt64 = 0
    for stream in million {
      var rng = Xoshiro256StarStar(seed: seed, stream: UInt64(stream))
      sink ^= rng.next()
    }
    blackHole(sink)
  }

  // MARK: - Allocations per simulated user: the count must not depend on the users
  let klick = load { () throws(SpecErrors) in try SeedFlows.control("klick-onboarding") }
  for threads in [1, 2] {
    for users in [1_000, 1_000_000] {
      Benchmark(
        "Allocations klick-onboarding control threads=\(threads) users=\(users)",
        configuration: .init(metrics: [.mallocCountTotal, .mallocBytesCount], warmupIterations: 1, maxIterations: 5)
      ) { benchmark in
        blackHole(MonteCarloEngine(threads: threads).run(klick, users: users, seed: seed))
      }
    }
  }

  // MARK: - Peak resident memory: flat from 10⁶ to 10⁸ users
  for exponent in [6, 7, 8] {
    let users = (0..<exponent).reduce(1) { r, _ in r * 10 }
    Benchmark(
      "Memory klick-onboarding control threads=2 users=10^\(exponent)",
      configuration: .init(
        // No malloc count here: the resident-memory sampler allocates in proportion to time.
        metrics: [.peakMemoryResident, .wallClock], warmupIterations: 0, maxDuration: .seconds(60),
        maxIterations: 1)
    ) { benchmark in
      blackHole(MonteCarloEngine(threads: 2).run(klick, users: users, seed: seed))
    }
  }

  // MARK: - The 18-cell Klick grid (control + 18 cells): simulated, 100,000 users per
  // cell, and solved exactly, every cell compiled and solved in turn
  let grid = load { () throws(SpecErrors) in try SeedFlows.experiment("klick-onboarding") }.gridExperiment()
  let gridConfiguration = Benchmark.Configuration(
    metrics: [.wallClock], timeUnits: .milliseconds, warmupIterations: 1, maxDuration: .seconds(10), maxIterations: 10)
  for threads in [1, 2] {
    Benchmark("Grid klick-onboarding 19 variants x 100000 users threads=\(threads)", configuration: gridConfiguration) { _ in
      if let grid { blackHole(try? ExperimentRunner.run(grid, options: RunOptions(users: 100_000, threads: threads))) }
    }
    Benchmark("Exact grid klick-onboarding 19 variants threads=\(threads)", configuration: gridConfiguration) { _ in
      if let grid { blackHole(try? ExactEngine.solveVariants(of: grid, threads: threads)) }
    }
  }

  // MARK: - The exact engine per seed flow (control)
  for name in SeedFlows.names {
    let flow = load { () throws(SpecErrors) in try SeedFlows.control(name) }
    Benchmark(
      "Exact \(name) control",
      configuration: .init(
        metrics: [.wallClock], timeUnits: .milliseconds, warmupIterations: 1, maxDuration: .seconds(5), maxIterations: 20)
    ) { benchmark in
      blackHole(ExactEngine.solve(flow))
    }
  }

  // MARK: - Replicated experiments: 10,000 replicates of 10⁶ users per arm from exact rates
  let klickRate = ExactEngine.solve(klick).value(of: .purchaseConversion) ?? 0.05
  Benchmark(
    "Replicates 10000 x 1000000 users per arm (A/B and A/A)",
    configuration: .init(metrics: [.wallClock], timeUnits: .milliseconds, warmupIterations: 1, maxDuration: .seconds(10), maxIterations: 20)
  ) { benchmark in
    blackHole(
      DesignDiagnosis.tally(
        controlRate: klickRate, variantRate: klickRate * 1.05, usersPerArm: 1_000_000, replicates: 0..<10_000, alpha: 0.05, seed: seed))
  }

  // MARK: - analyze: any size per arm (target < 50 ms), and 1,000 arms (target < 1 s)
  let analysis = Benchmark.Configuration(
    metrics: [.wallClock], timeUnits: .milliseconds, warmupIterations: 1, maxDuration: .seconds(10), maxIterations: 20)
  for exponent in [6, 9, 12] {
    let n = (0..<exponent).reduce(1) { r, _ in r * 10 }
    let cases: [(String, [ArmData])] = [
      (
        "rates 10% vs 10.0001%",
        [
          ArmData(name: "control", users: n, conversions: n / 10), ArmData(name: "b", users: n, conversions: n / 10 + n / 1_000_000),
        ]
      ),
      ("A/A at a rate of 1", [ArmData(name: "control", users: n, conversions: n), ArmData(name: "b", users: n, conversions: n)]),
    ]
    for (label, arms) in cases {
      Benchmark("Analyze 2 arms x 10^\(exponent) users, \(label)", configuration: analysis) { benchmark in
        blackHole(try? ExperimentAnalysis.analyze(arms: arms, control: "control"))
      }
    }
  }
  for count in [100, 1000] {
    // Rates 9.9 %–10.1 % at 10⁴ users per arm: every posterior overlaps the leader's.
    var rng = Xoshiro256StarStar(seed: seed)
    let arms = (0..<count).map { i in
      ArmData(name: "arm\(i)", users: 10_000, conversions: 990 + Int(rng.nextUnitDouble() * 20))
    }
    Benchmark("Analyze \(count) arms x 10^4 users", configuration: analysis) { benchmark in
      blackHole(try? ExperimentAnalysis.analyze(arms: arms, control: "arm0"))
    }
  }
}
