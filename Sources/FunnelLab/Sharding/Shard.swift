/// One part of a run split across machines: shard `index` of `count`.
///
/// A shard takes the contiguous slice `[N·i/n, N·(i+1)/n)` of every user range (and of
/// every replicate range). Users keep their indices, hence their random streams, and
/// every sufficient statistic is an integer, so the merge of all shards equals the
/// single run exactly, in any order.
package struct Shard: Sendable, Hashable, CustomStringConvertible {
  /// The shard's 0-based position, `0 ..< count`.
  package var index: Int
  /// How many shards the run is split into, 1 to 100,000.
  package var count: Int

  /// Shard `index` of `count`; `nil` unless `1 ≤ count ≤ 100,000` and `0 ≤ index < count`.
  package init?(index: Int, count: Int) {
    guard count >= 1, count <= 100_000, index >= 0, index < count else { return nil }
    self.index = index
    self.count = count
  }

  /// `index/count`, the form ``init(parsing:)`` reads (e.g. `0/4`).
  package var description: String { "\(index)/\(count)" }

  /// Parses `i/n` (0-based `i`).
  package init?(parsing text: String) {
    let parts = text.split(separator: "/", omittingEmptySubsequences: false)
    guard parts.count == 2, let i = Int(parts[0]), let n = Int(parts[1]) else { return nil }
    self.init(index: i, count: n)
  }

  /// The shard index from a job-array engine's environment, with `count` shards:
  /// Kubernetes Indexed Jobs (`JOB_COMPLETION_INDEX`), Slurm arrays
  /// (`SLURM_ARRAY_TASK_ID`, relative to `SLURM_ARRAY_TASK_MIN`), AWS Batch array jobs
  /// (`AWS_BATCH_JOB_ARRAY_INDEX`).
  /// - Returns: the shard and the variable it came from, or `nil` when none is set.
  package static func fromEnvironment(count: Int, _ environment: (String) -> String?) -> (Shard?, String)? {
    for name in ["JOB_COMPLETION_INDEX", "SLURM_ARRAY_TASK_ID", "AWS_BATCH_JOB_ARRAY_INDEX"] {
      guard let value = environment(name) else { continue }
      var index = Int(value)
      if name == "SLURM_ARRAY_TASK_ID", let i = index, let minimum = environment("SLURM_ARRAY_TASK_MIN").flatMap(Int.init) {
        index = i - minimum
      }
      return (index.flatMap { Shard(index: $0, count: count) }, "\(name)=\(value)")
    }
    return nil
  }

  /// This shard's slice of `range`.
  package func range(of range: Range<UInt64>) -> Range<UInt64> {
    let n = UInt64(range.count)
    let lower = range.lowerBound + UInt64((UInt128(n) * UInt128(index) / UInt128(count)))
    let upper = range.lowerBound + UInt64((UInt128(n) * UInt128(index + 1) / UInt128(count)))
    return lower..<upper
  }

  /// Problems with a set of shards of one run: an index given twice, or missing
  /// indices (reported only when nothing else is wrong).
  /// - Parameter shards: each file's shard and its name.
  static func completenessErrors(_ shards: [(shard: Shard, source: String)], count: Int, otherErrors: Bool) -> [SpecError] {
    var errors: [SpecError] = []
    var seen: [Int: String] = [:]
    for (shard, source) in shards {
      if let other = seen[shard.index] {
        errors.append(
          SpecError(.mismatch, path: .root, message: "shard \(shard) appears twice: \(other) and \(source)", hint: "pass each shard once"))
      }
      seen[shard.index] = source
    }
    let missing = (0..<count).filter { seen[$0] == nil }
    if !otherErrors, errors.isEmpty, !missing.isEmpty {
      errors.append(
        SpecError(
          .mismatch, path: .root,
          message: "missing shard\(missing.count == 1 ? "" : "s") " + missing.map { "\($0)/\(count)" }.joined(separator: ", "),
          hint: "wait for every shard to finish, then merge all of them"))
    }
    return errors
  }
}

extension Shard {
  /// The shard and the spec's text of a shard file (`run`, `grid`, `grid --exact` or `power`):
  /// its version is this build's, its checksum matches its content, and it names a shard and
  /// carries the spec.
  /// - Throws: ``SpecErrors`` naming the field that is missing, unsupported or damaged.
  package static func header(of document: JSONValue, source: String) throws(SpecErrors) -> (shard: Shard, specText: String) {
    guard case .number(_, let version)? = document["funnellabShard"]?.kind, version == String(ShardFile.formatVersion) else {
      throw SpecErrors(
        source: source,
        errors: [
          SpecError(
            path: [.key("funnellabShard")], message: "missing or unsupported version", hint: "use the same funnellab version for all steps")
        ])
    }
    if let error = ContentChecksum.error(in: document) { throw SpecErrors(source: source, errors: [error]) }
    func damaged(_ path: SpecPath, _ message: String) -> SpecErrors {
      SpecErrors(source: source, errors: [SpecError(path: path, message: message, hint: "the shard file is damaged")])
    }
    guard case .number(_, let i)? = document["shard"]?["index"]?.kind, case .number(_, let n)? = document["shard"]?["count"]?.kind,
      let index = Int(i), let count = Int(n), let shard = Shard(index: index, count: count)
    else { throw damaged([.key("shard")], "expected {\"index\": i, \"count\": n}") }
    guard case .string(let specText)? = document["spec"]?.kind else { throw damaged([.key("spec")], "missing the spec") }
    return (shard, specText)
  }
}
