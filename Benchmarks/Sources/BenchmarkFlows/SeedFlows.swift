import FunnelLab

/// The seed experiments of `experiments/`, loaded and compiled through the public
/// API exactly as a user of the library would (`ExperimentLoader`, `FlowCompiler`).
public enum SeedFlows {
  /// The seed flows the benchmarks run, by experiment name.
  public static let names = ["klick-onboarding", "betfree-onboarding", "urbannest-onboarding", "ncdb-first-launch"]

  /// The repository's `experiments/` folder: `$FUNNELLAB_EXPERIMENTS` when set, otherwise
  /// found from this file's place in the repository (the benchmarks always build from source).
  public static var experimentsDirectory: String {
    if let path = getenv("FUNNELLAB_EXPERIMENTS") { return String(cString: path) }
    var components = "\(#filePath)".split(separator: "/", omittingEmptySubsequences: false)
    // …/Benchmarks/Sources/BenchmarkFlows/SeedFlows.swift → …
    components.removeLast(4)
    return components.joined(separator: "/") + "/experiments"
  }

  /// Loads and validates the seed experiment `name`, with an instant store.
  ///
  /// The purchase layer (sheet cancellations, failures, pending purchases, latency)
  /// sends some buyers back to the paywall; the bare table walk and the numpy baseline
  /// have no purchase layer, so the benchmarks switch it off everywhere: all three then
  /// do the same work and give the same counts. It touches only the few users who tap a
  /// plan, so it barely changes the cost per user.
  public static func experiment(_ name: String) throws(SpecErrors) -> Experiment {
    var e = try ExperimentLoader.load(contentsOf: "\(experimentsDirectory)/\(name).json")
    e.store.cancelProbability = 0
    e.store.failureProbability = 0
    e.store.pendingProbability = 0
    e.store.latencySeconds = 0
    return e
  }

  /// The control variant (the first) of the seed experiment `name`, compiled.
  public static func control(_ name: String) throws(SpecErrors) -> CompiledFlow {
    try FlowCompiler.compile(experiment(name), variant: 0)
  }
}

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif
