/// The partial result of one shard: the spec it ran, the settings that shape the
/// result, and the per-variant aggregates of its users (with, in truth mode, each
/// variant's paired tallies against the control).
///
/// `funnellab merge` sums the aggregates of all `count` shards — exact integer sums, so
/// the order of the files does not matter — and renders the same bytes a single run
/// would.
package struct ShardFile: Sendable {
  /// The file format's version: 2 adds the paired tallies of truth mode and the content checksum (``ContentChecksum``);
  /// 3 the purchasers' lifecycles (``FunnelAggregate/lifecycles``); 4 the users whose revenue differs in the paired tallies.
  package static let formatVersion = 4

  /// `run` or `grid`.
  package var command: String
  /// Which part of the users this file simulated (index and count).
  package var shard: Shard
  /// The spec's text, so the merge needs nothing but the shard files.
  package var specText: String
  /// The seed the run used (the command line's, else the spec's); all shards must agree.
  package var seed: UInt64
  /// Users per variant of the whole run (not of this shard); all shards must agree.
  package var users: Int
  /// Truth or experiment mode; all shards must agree.
  package var mode: RunMode
  /// The variants the run selected (`nil`: all).
  package var variants: [String]?
  /// One aggregate per selected variant, the control first: the counts over this shard's users only.
  package var aggregates: [FunnelAggregate]
  /// Per variant, its paired tallies with the control (``VariantRun/paired``); empty in
  /// experiment mode.
  package var paired: [PairedTallies?]

  /// A shard's partial result; `paired` empty in experiment mode.
  package init(
    command: String, shard: Shard, specText: String, seed: UInt64, users: Int, mode: RunMode, variants: [String]?,
    aggregates: [FunnelAggregate], paired: [PairedTallies?] = []
  ) {
    self.command = command
    self.shard = shard
    self.specText = specText
    self.seed = seed
    self.users = users
    self.mode = mode
    self.variants = variants
    self.aggregates = aggregates
    self.paired = paired
  }

  /// FNV-1a 64 of the spec text, in hex: identifies the spec in refusals.
  package var specHash: String { ContentChecksum.hex(HashAssignment.fnv1a64(specText)) }

  /// The settings every shard of one run shares (compared before merging).
  var runKey: String {
    "\(command)|\(specHash)|\(seed)|\(users)|\(mode.rawValue)|\(variants?.joined(separator: ",") ?? "*")|\(shard.count)"
  }

  /// The file's content, sealed with its checksum (``ContentChecksum``).
  package var json: JSONValue {
    ContentChecksum.sealing(
      .object([
        ("funnellabShard", .integer(Self.formatVersion)),
        ("command", .string(command)),
        ("shard", .object([("index", .integer(shard.index)), ("count", .integer(shard.count))])),
        ("specHash", .string(specHash)),
        ("seed", .integer(seed)),
        ("users", .integer(users)),
        ("mode", .string(mode.rawValue)),
        ("variants", variants.map { .array($0.map { .string($0) }) } ?? .null),
        ("aggregates", .array(aggregates.map(\.json))),
        ("paired", .array(paired.map { $0?.json ?? .null })),
        ("spec", .string(specText)),
      ]))
  }

  /// Reads a shard file; aggregates are checked against the spec's compiled flows.
  package static func read(text: String, source: String) throws(SpecErrors) -> ShardFile {
    func fail(_ path: SpecPath, _ message: String, _ hint: String? = nil, kind: SpecError.Kind = .invalidValue) -> SpecErrors {
      SpecErrors(source: source, errors: [SpecError(kind, path: path, message: message, hint: hint)])
    }
    let document: JSONValue
    do { document = try JSONParser.parse(text) } catch {
      throw fail(
        .root, "not valid JSON: line \(error.line), column \(error.column): \(error.message)", "is this a shard file?", kind: .syntax)
    }
    guard case .number(_, let version)? = document["funnellabShard"]?.kind else {
      throw fail(.root, "not a FunnelLab shard file (no \"funnellabShard\")", "pass files written by --shard")
    }
    guard version == String(formatVersion) else {
      throw fail([.key("funnellabShard")], "unsupported version \(version)", "use the same funnellab version for all steps")
    }
    if let error = ContentChecksum.error(in: document) { throw SpecErrors(source: source, errors: [error]) }
    func string(_ key: String) throws(SpecErrors) -> String {
      guard case .string(let s)? = document[key]?.kind else { throw fail([.key(key)], "expected a string", kind: .type) }
      return s
    }
    func number(_ v: JSONValue?, _ path: SpecPath) throws(SpecErrors) -> UInt64 {
      guard case .number(_, let literal)? = v?.kind, let x = UInt64(literal) else {
        throw fail(path, "expected a whole number", kind: .type)
      }
      return x
    }
    let command = try string("command")
    guard command == "run" || command == "grid" else { throw fail([.key("command")], "unknown command '\(command)'") }
    let index = try number(document["shard"]?["index"], [.key("shard"), .key("index")])
    let count = try number(document["shard"]?["count"], [.key("shard"), .key("count")])
    guard let shard = Shard(index: Int(clamping: index), count: Int(clamping: count)) else {
      throw fail([.key("shard")], "shard \(index)/\(count) is out of range")
    }
    let specText = try string("spec")
    let seed = try number(document["seed"], [.key("seed")])
    let users = try number(document["users"], [.key("users")])
    guard let mode = RunMode(rawValue: try string("mode")) else { throw fail([.key("mode")], "unknown mode") }
    var variants: [String]?
    if case .array(let xs)? = document["variants"]?.kind {
      variants = xs.compactMap { if case .string(let s) = $0.kind { s } else { nil } }
    }
    var file = ShardFile(
      command: command, shard: shard, specText: specText, seed: seed, users: Int(clamping: users), mode: mode, variants: variants,
      aggregates: [])
    if case .string(let hash)? = document["specHash"]?.kind, hash != file.specHash {
      throw fail([.key("specHash")], "the spec's hash does not match its text", "the file was edited or damaged")
    }
    let experiment = try file.experiment(source: source)
    let flows = try ExperimentRunner.selectedFlows(of: experiment, options: file.runOptions)
    guard case .array(let parts)? = document["aggregates"]?.kind, parts.count == flows.count else {
      throw fail([.key("aggregates")], "expected \(flows.count) aggregates, one per variant")
    }
    for (i, part) in parts.enumerated() {
      do {
        file.aggregates.append(try FunnelAggregate(json: part, for: flows[i], at: [.key("aggregates"), .index(i)]))
      } catch {
        throw SpecErrors(source: source, errors: [error])
      }
    }
    file.paired = try readPaired(document, count: mode == .truth ? flows.count : 0, source: source)
    let errors = file.consistencyErrors()
    guard errors.isEmpty else { throw SpecErrors(source: source, errors: errors) }
    return file
  }

  /// The paired tallies of a shard: `count` entries, `null` for the control (index 0)
  /// and tallies for every other variant.
  static func readPaired(_ document: JSONValue, count: Int, source: String) throws(SpecErrors) -> [PairedTallies?] {
    guard case .array(let items)? = document["paired"]?.kind, items.count == count else {
      throw SpecErrors(
        source: source,
        errors: [
          SpecError(
            path: [.key("paired")], message: "expected \(count) entries, one per variant", hint: "the shard file is damaged")
        ])
    }
    var out: [PairedTallies?] = []
    for (i, item) in items.enumerated() {
      if i == 0 {
        guard item.kind == .null else {
          throw SpecErrors(
            source: source, errors: [SpecError(path: [.key("paired"), .index(0)], message: "expected null for the control")])
        }
        out.append(nil)
        continue
      }
      do { out.append(try PairedTallies(json: item, at: [.key("paired"), .index(i)])) } catch {
        throw SpecErrors(source: source, errors: [error])
      }
    }
    return out
  }

  /// Problems of the aggregates' counts: each must be consistent on its own
  /// (`FunnelAggregate.consistencyErrors(at:)`), and the users must be exactly those of
  /// this shard's slice: `shard.range(of: 0..<users)` per variant in truth mode, of
  /// `0..<users × variants` over all variants in experiment mode.
  func consistencyErrors() -> [SpecError] {
    var errors: [SpecError] = []
    for (i, aggregate) in aggregates.enumerated() {
      errors += aggregate.consistencyErrors(at: [.key("aggregates"), .index(i)])
    }
    let population = UInt64(max(users, 0)) * (mode == .truth ? 1 : UInt64(aggregates.count))
    let expected = UInt64(shard.range(of: 0..<population).count)
    if mode == .truth {
      for (i, aggregate) in aggregates.enumerated() where aggregate[.users] != expected {
        errors.append(
          SpecError(
            path: [.key("aggregates"), .index(i), .key("users")],
            message: "\(aggregate[.users]) users, but shard \(shard) of \(users) users has \(expected)",
            hint: "the shard file was edited or damaged"))
      }
    } else {
      var total: UInt64 = 0
      var overflow = false
      for aggregate in aggregates {
        let (sum, o) = total.addingReportingOverflow(aggregate[.users])
        total = sum
        overflow = overflow || o
      }
      if overflow || total != expected {
        errors.append(
          SpecError(
            path: [.key("aggregates")],
            message: "the arms hold \(overflow ? "more than 2^64" : String(total)) users, but shard \(shard) has \(expected)",
            hint: "the shard file was edited or damaged"))
      }
    }
    return errors
  }

  /// The experiment the shard ran (the grid expanded for `grid`).
  package func experiment(source: String = "shard") throws(SpecErrors) -> Experiment {
    let e = try ExperimentLoader.load(text: specText, source: source)
    guard command == "grid" else { return e }
    guard let gridded = e.gridExperiment() else {
      throw SpecErrors(source: source, errors: [SpecError(path: [.key("grid")], message: "the spec has no grid")])
    }
    return gridded
  }

  /// The run options the shard used (without the shard itself).
  package var runOptions: RunOptions {
    RunOptions(users: users, seed: seed, variants: variants, mode: mode)
  }

  /// Merges the shards of one run into its result.
  /// - Throws: ``SpecErrors`` when the files come from different runs (spec, seed,
  ///   settings or shard count), a shard appears twice, or shards are missing.
  package static func merge(_ files: [(source: String, file: ShardFile)]) throws(SpecErrors) -> (Experiment, RunResult, ShardFile) {
    guard let first = files.first else {
      throw SpecErrors(source: "merge", errors: [SpecError(path: .root, message: "no shard files", hint: "pass parts/*.json")])
    }
    var errors: [SpecError] = []
    for (source, file) in files {
      if file.runKey != first.file.runKey {
        var what: [String] = []
        if file.command != first.file.command { what.append("command \(file.command) vs \(first.file.command)") }
        if file.specHash != first.file.specHash { what.append("spec \(file.specHash) vs \(first.file.specHash)") }
        if file.seed != first.file.seed { what.append("seed \(file.seed) vs \(first.file.seed)") }
        if file.shard.count != first.file.shard.count { what.append("shard count \(file.shard.count) vs \(first.file.shard.count)") }
        if file.users != first.file.users || file.mode != first.file.mode || file.variants != first.file.variants {
          what.append("run settings (users, mode or variants)")
        }
        errors.append(
          SpecError(
            .mismatch, path: .root, message: "\(source) is from another run than \(first.source): " + what.joined(separator: ", "),
            hint: "merge only the shards of one run"))
      }
    }
    errors += Shard.completenessErrors(
      files.map { ($0.file.shard, $0.source) }, count: first.file.shard.count, otherErrors: !errors.isEmpty)
    guard errors.isEmpty else { throw SpecErrors(source: "merge", errors: errors) }
    let experiment = try first.file.experiment(source: first.source)
    var total = first.file.aggregates
    var paired = first.file.paired
    for (source, file) in files.dropFirst() {
      for i in total.indices {
        guard let sum = FunnelAggregate.checkedSum(total[i], file.aggregates[i]) else {
          throw SpecErrors(
            source: "merge",
            errors: [
              SpecError(
                .limit, path: [.key("aggregates"), .index(i)], message: "adding \(source) makes a count pass 2^64",
                hint: "a shard file was edited or damaged")
            ])
        }
        total[i] = sum
      }
      for i in paired.indices { paired[i] = paired[i].flatMap { p in file.paired[i].map { p + $0 } } }
    }
    let result = try ExperimentRunner.result(of: experiment, options: first.file.runOptions, aggregates: total, paired: paired)
    return (experiment, result, first.file)
  }
}
