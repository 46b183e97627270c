import Dispatch
import Synchronization

extension MonteCarloEngine {
  /// The most users per unit of work of a paired run: large, so that each flow's tables
  /// stay in cache while it walks the chunk; smaller when there are few users, so that
  /// every thread gets work (the chunking never changes a result).
  static let pairedChunkSize = 8 * chunkSize

  /// The walks of the same users through several flows: each flow's aggregate, and each
  /// variant's joint tallies with the first flow (the control).
  package struct PairedRun: Sendable, Hashable {
    /// One aggregate per flow, in the order given.
    package var aggregates: [FunnelAggregate]
    /// Per flow, its paired tallies with the control: `nil` for the control itself.
    package var paired: [PairedTallies?]
  }

  /// Walks users `range` through the control (`flows[0]`) and every variant in lockstep,
  /// with the built-in ``MockPaywallManager`` of each flow's store settings, and tallies
  /// each user's outcomes in every variant against the same user's in the control.
  ///
  /// A worker takes a chunk of ``chunkSize`` users, walks them through the control,
  /// keeps each one's outcome (a few bytes, so memory stays O(chunk) whatever the number
  /// of users), then walks the same users through each variant and adds the pairs to
  /// that variant's ``PairedTallies``. The walks are those of
  /// ``run(_:users:seed:include:progress:)`` (same streams), so each aggregate is exactly
  /// what a separate run of its flow gives; every tally is an integer, so the result is
  /// byte-identical for any thread count and any split of the users.
  /// - Complexity: O(users × flows × steps per user); memory O(flows × (size of a flow
  ///   + threads)) plus O(``pairedChunkSize``) per thread.
  package func runPaired(
    _ flows: [CompiledFlow], users range: Range<UInt64>, seed: UInt64, progress: (@Sendable (Int) -> Void)? = nil
  ) -> PairedRun {
    lockstep(flows, paywalls: flows.map { MockPaywallManager(settings: $0.store) }, users: range, seed: seed, progress: progress)
  }

  /// Like ``runPaired(_:users:seed:progress:)``, with a purchase layer of your own for every flow.
  package func runPaired<Manager: PaywallManager>(
    _ flows: [CompiledFlow], users range: Range<UInt64>, seed: UInt64, paywall: Manager,
    progress: (@Sendable (Int) -> Void)? = nil
  ) -> PairedRun {
    lockstep(flows, paywalls: flows.map { _ in paywall }, users: range, seed: seed, progress: progress)
  }

  func lockstep<Manager: PaywallManager>(
    _ flows: [CompiledFlow], paywalls: [Manager], users range: Range<UInt64>, seed: UInt64,
    progress: (@Sendable (Int) -> Void)?
  ) -> PairedRun {
    let tables = flows.map(EngineTables.init)
    let lifecycles = flows.map { SubscriptionLifecycle(settings: $0.revenue) }
    let chunks = ChunkQueue(range, size: min(Self.pairedChunkSize, max(1_024, range.count / (4 * threads))))
    let workers = min(threads, max(chunks.count, 1))
    let parts = ParallelWork.eachWorker(workers) { _ -> ([FunnelAggregate], [PairedTallies]) in
      let accumulators = tables.map(Accumulator.init)
      // One per flow; the control's (index 0) stays empty.
      let pairs = tables.map { _ in PairedAccumulator() }
      let control = UnsafeMutableBufferPointer<UserOutcome>.allocate(capacity: Int(chunks.size))
      control.initialize(repeating: UserOutcome())
      defer { control.deallocate() }
      while let (first, last) = chunks.take() {
        for v in tables.indices {
          walkChunk(
            first..<last, seed: seed, tables: tables[v], paywall: paywalls[v], lifecycle: lifecycles[v], into: accumulators[v],
            control: control, pair: v == 0 ? nil : pairs[v])
        }
        progress?(Int(last - first) * tables.count)
      }
      let aggregates = accumulators.map { $0.aggregate() }
      let margins = aggregates.first.map { a in PairedTallies.Outcome.allCases.map { $0.count(in: a) } } ?? []
      return (aggregates, pairs.dropFirst().map { $0.tallies(controlMargins: margins) })
    }
    let aggregates = flows.indices.map { i in parts.reduce(FunnelAggregate(for: flows[i])) { $0 + $1.0[i] } }
    let paired = flows.indices.map { i -> PairedTallies? in
      i == 0 ? nil : parts.reduce(PairedTallies()) { $0 + $1.1[i - 1] }
    }
    return PairedRun(aggregates: aggregates, paired: paired)
  }

  /// Walks `users` through one flow: the control's outcomes are kept in `control`
  /// (`pair == nil`), a variant's are added to `pair` against them. Its own function with
  /// one call site of the walk, so that the walk is inlined into this loop (measured: with
  /// two call sites, or called from the worker closure, it is not, and a run is ~15 % slower).
  @inline(never)
  func walkChunk<Manager: PaywallManager>(
    _ users: Range<UInt64>, seed: UInt64, tables: EngineTables, paywall: Manager, lifecycle: SubscriptionLifecycle,
    into acc: Accumulator, control: UnsafeMutableBufferPointer<UserOutcome>, pair: PairedAccumulator?
  ) {
    var none = NoWalkObserver()
    let first = users.lowerBound
    // A counting loop, not the range's iterator: unoptimised, that looks up metadata per user.
    var user = first
    while user < users.upperBound {
      let outcome = walk(user: user, seed: seed, tables: tables, paywall: paywall, lifecycle: lifecycle, into: acc, observer: &none)
      if let pair {
        pair.add(control: control[Int(user &- first)], variant: outcome)
      } else {
        control[Int(user &- first)] = outcome
      }
      user += 1
    }
  }
}
