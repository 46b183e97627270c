import FunnelLab

/// The options several commands take, each declared once with one help text: the seed, α,
/// worker threads and shards. (The output is ``OutputDestination/option``, the terminal's are
/// ``TerminalOptions/options``, the format's ``Option/format(_:)``.) A command whose bounds
/// differ reads the same declaration within its own range (``Option/within(_:)-(ClosedRange<Double>)``).
enum SharedOptions {
  /// `--seed`.
  static let seed = Option<UInt64?>.unsigned("seed", valueName: "n", help: "Random seed (default: the spec's \"seed\").")

  /// `--alpha`: overrides the spec's `metrics.alpha` (tests and intervals at `1 − α`).
  static let alpha = Option<Double?>.number(
    "alpha", valueName: "a", help: "Significance level; intervals are 1 − α (default: the spec's metrics.alpha, else 0.05).",
    in: 1e-6...0.499)

  /// `--threads`, `-j`: the results do not depend on it.
  static let threads = Option<Int?>.integer(
    "threads", short: "j", valueName: "n", help: "Worker threads (default: all cores).", in: 1...1024)

  /// `--shard i/n`.
  static let shard = Option<String?>.text(
    "shard", valueName: "i/n", help: "Run shard i of n (0-based) and write a partial result for 'funnellab merge'.")

  /// `--shards n`.
  static let shards = Option<Int?>.integer(
    "shards", valueName: "n",
    help:
      "Run one of n shards, its index read from JOB_COMPLETION_INDEX (Kubernetes), SLURM_ARRAY_TASK_ID (Slurm) or AWS_BATCH_JOB_ARRAY_INDEX (AWS Batch).",
    in: 1...100_000)

  /// `--shard` and `--shards`, in a command's options.
  static let shardOptions: [any OptionKey] = [shard, shards]

  /// The conflicts of the shard options: `--shard` with `--shards`, and each of `unsharded` (a format, `--top`)
  /// with either, since a shard writes a partial result (JSON) for `merge`.
  static func shardConflicts(_ unsharded: [any OptionKey]) -> [OptionConflict] {
    [
      OptionConflict(
        shard, shards, message: "give --shard i/n or --shards n, not both",
        hint: "--shards reads the index from the job array's environment")
    ]
      + unsharded.flatMap { option in
        [shard, shards].map { (s: any OptionKey) in
          OptionConflict(
            option, s,
            message: "--\(option.spec.name) does not apply to a shard: it writes a partial result (JSON) for 'funnellab merge'",
            hint: "give --\(option.spec.name) to 'funnellab merge'")
        }
      }
  }
}
