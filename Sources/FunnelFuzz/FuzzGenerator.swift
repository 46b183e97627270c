import FunnelLab

/// The inputs mutated: the seed experiments, CSV files and shard files.
public struct FuzzSeeds: Sendable {
  /// Spec texts by file name (`klick-onboarding.json`…).
  public var specs: [(name: String, text: String)]
  /// Observed counts for `calibrate`, with the spec they belong to.
  public var observed: (spec: String, csv: String)
  /// Shard files of one sharded run (each a set that merges), e.g. run 0/2 + 1/2.
  public var shardSets: [[String]]
  /// The exact funnel of the small spec as `exact --format json` writes it (``baselineCommand``):
  /// the baseline that `check --baseline` and `diff` cases tamper with; empty: no such cases.
  public var baseline: String

  public init(specs: [(name: String, text: String)], observed: (spec: String, csv: String), shardSets: [[String]], baseline: String = "") {
    self.specs = specs
    self.observed = observed
    self.shardSets = shardSets
    self.baseline = baseline
  }

  /// The command line whose output is ``baseline``, for a runner to execute once before generating.
  public static func baselineCommand(urbannest: String) -> [String] { ["exact", urbannest, "--format", "json"] }

  /// The command lines whose outputs make ``shardSets`` (each writes to stdout),
  /// for a runner to execute once before generating: spec paths are given.
  public static func shardCommands(klick: String, urbannest: String) -> [[[String]]] {
    [
      (0..<2).map { ["run", urbannest, "--users", "300", "--shard", "\($0)/2"] },
      (0..<3).map { ["grid", klick, "--users", "40", "--shard", "\($0)/3"] },
      (0..<2).map { ["power", urbannest, "--users-per-arm", "200", "--replicates", "100", "--shard", "\($0)/2"] },
    ]
  }
}

/// A seeded, deterministic generator of hostile `funnellab` command lines: case `i`
/// of seed `s` is the same on every machine, so a finding is replayed by its number.
///
/// Work per case is bounded: users, replicates and grid sizes stay small, so a case
/// that takes long is a finding, not a big request.
public struct FuzzGenerator: Sendable {
  public var seed: UInt64
  public var seeds: FuzzSeeds
  /// Also use numbers at the edges of what a type holds (1e308, 2⁶³, 2⁶⁴…).
  public var extremeNumbers: Bool
  /// Cheap cases only, for a debug build in-process: specs mostly validated, the
  /// commands that simulate or solve run on the smallest seed with a few users.
  public var quick: Bool

  public init(seed: UInt64, seeds: FuzzSeeds, extremeNumbers: Bool = true, quick: Bool = false) {
    self.seed = seed
    self.seeds = seeds
    self.extremeNumbers = extremeNumbers
    self.quick = quick
  }

  /// The smallest seed spec (urbannest), where the quick profile runs commands.
  var smallSpec: (name: String, text: String) { seeds.specs.first { $0.name.hasPrefix("urbannest") } ?? seeds.specs[0] }

  /// Case number `index`.
  public func generate(_ index: Int) -> FuzzCase {
    var rng = FuzzRandom(seed: seed &+ UInt64(index) &* 0x9E37_79B9_7F4A_7C15)
    let kinds: [(FuzzCase.Kind, Int)] =
      quick
      ? [
        (.mutatedSpec, 42), (.arguments, 30), (.shards, 3), (.csv, 14), (.hostileIDs, 11), (.eventLog, 8), (.baseline, 5),
        (.userFile, 8), (.collision, 5),
      ]
      : [
        (.mutatedSpec, 35), (.arguments, 25), (.shards, 12), (.csv, 15), (.hostileIDs, 13), (.eventLog, 10), (.baseline, 6),
        (.userFile, 8), (.collision, 6),
      ]
    var c: FuzzCase
    switch rng.weighted(kinds) {
    case .mutatedSpec: c = mutatedSpec(&rng)
    case .arguments: c = commandLine(&rng)
    case .shards: c = tamperedShards(&rng)
    case .csv: c = malformedCSV(&rng)
    case .hostileIDs: c = hostileIDs(&rng)
    case .eventLog: c = eventLog(&rng)
    case .baseline: c = tamperedBaseline(&rng)
    case .userFile: c = malformedUserFile(&rng)
    case .collision: c = collidingFiles(&rng)
    }
    c.index = index
    c.format = FuzzCase.format(of: c.rawArguments)
    addOutput(&c, &rng)
    return c
  }

  // MARK: - Pools

  /// Hostile identifiers: markup, terminal escapes, line ends, quotes, long and odd Unicode.
  public static let hostileIDs = [
    "<script>alert(1)</script>", "\"><img src=x onerror=alert(1)>", "\u{1B}[31mred\u{1B}[0m", "a\nError: fake line", "tab\there",
    "[x](javascript:alert(1))", "a|b", "`code`", "&amp;", "", " ", "🙂", "\u{202E}evil", String(repeating: "long", count: 300),
    "back\\slash", "quote'\"", "#heading", "\u{0}nul", "\r\ncrlf",
    // CI workflow commands: GitHub's at a line's start (after white space), the legacy and Azure ones anywhere.
    "::warning title=forged::x", "  ::error::y", "\u{3000}::notice::z", "a\r::error::w", "%0A::error::v", "##[error]u",
    "t ##vso[task.complete]",
    "\u{9B}31mcsi",
  ]

  var numbers: [String] {
    var pool = ["0", "-1", "1", "0.5", "2", "3", "10", "100", "0.999999", "1e-9", "-0.5", "1.5", "7", "64"]
    if extremeNumbers {
      pool += ["1e308", "-1e308", "1e-308", "9007199254740993", "9223372036854775807", "18446744073709551615", "1e12", "4096", "1e6"]
    }
    return pool
  }

  func jsonNumber(_ rng: inout FuzzRandom) -> JSONValue {
    let text = rng.pick(numbers)
    return JSONValue(.number(Double(text) ?? 0, literal: text))
  }

  func randomValue(_ rng: inout FuzzRandom) -> JSONValue {
    switch rng.below(8) {
    case 0, 1, 2: jsonNumber(&rng)
    case 3: .string(rng.pick(Self.hostileIDs + ["control", "welcome", "completed", "abandoned", "x"]))
    case 4: .bool(rng.below(2) == 0)
    case 5: .null
    case 6: .array(rng.below(2) == 0 ? [] : [jsonNumber(&rng)])
    default: .object([(String, JSONValue)]())
    }
  }

  /// Command-line values of every kind, valid and not.
  func argumentValue(_ rng: inout FuzzRandom) -> String {
    rng.pick(
      numbers + Self.hostileIDs + [
        "0x10", "1_000", "nan", "inf", "-inf", "1e309", "+5", "1.", ".5", "--", "-", "table", "json", "csv", "markdown", "html",
        "control", "b", "0/2", "1/2", "2/2", "x/y", "control=90,b=10", "a=1:0", "c=10:1", "fatiguePerScreen=0:0.2:0.1", "alpha",
        // Forgotten values and percentages: refused where a file or a fraction is expected.
        "-q", "-1", "-nan", "-o", "-h", "12%", "5",
      ])
  }
}
