/// The partial result of one shard of `funnellab power <spec>`: the tallies of its
/// replicates, with the spec and the planning settings.
package struct PlanningShardFile: Sendable {
  /// Which part of the replicates this file tallied (index and count).
  package var shard: Shard
  /// The spec's text, byte for byte, so the merge needs nothing but the shard files.
  package var specText: String
  /// The planning settings the shard ran with; every shard of one plan must have the same.
  package var options: PlanningOptions
  /// The tallies of this shard's replicates, summed with the other shards' on merge.
  package var counts: PlanningCounts

  /// A shard's partial plan, as ``ExperimentPlanner/tally(_:options:shard:progress:)`` returned it.
  package init(shard: Shard, specText: String, options: PlanningOptions, counts: PlanningCounts) {
    self.shard = shard
    self.specText = specText
    self.options = options
    self.counts = counts
  }

  var settings: JSONValue {
    func opt(_ x: Int?) -> JSONValue { x.map { .integer($0) } ?? .null }
    return .object([
      ("usersPerArm", opt(options.usersPerArm)), ("targetPower", .number(options.targetPower)),
      ("usersPerDay", opt(options.usersPerDay)), ("days", opt(options.days)), ("replicates", .integer(options.replicates)),
      ("alpha", options.alpha.map { .number($0) } ?? .null), ("seed", options.seed.map { .integer($0) } ?? .null),
      ("variants", options.variants.map { .array($0.map { .string($0) }) } ?? .null),
    ])
  }

  static func tally(_ c: DesignDiagnosis.Counts) -> JSONValue {
    .array(
      [c.replicates, c.significant, c.falsePositives, c.covered, c.wrongSign].map { .integer($0) }
        + [.integer(c.absoluteDifferenceSum)] + c.pValueHistogram.map { .integer($0) })
  }

  /// A size search's tallies as `[replicates, significant at each size…]`.
  static func search(_ c: SampleSizeSearch.Counts?) -> JSONValue {
    guard let c else { return .null }
    return .array(([c.replicates] + c.significant).map { .integer($0) })
  }

  /// The file's content, sealed with its checksum (``ContentChecksum``).
  package var json: JSONValue {
    let variants: [JSONValue] = counts.variants.map { v in
      var peeking = JSONValue.null
      if let p = v.peeking {
        let counts: [Int] = [p.replicates] + p.falsePositives + p.rejections + p.stoppingDays
        peeking = .array(counts.map { JSONValue.integer($0) })
      }
      return .object([("diagnosis", Self.tally(v.diagnosis)), ("sizeSearch", Self.search(v.sizeSearch)), ("peeking", peeking)])
    }
    return ContentChecksum.sealing(
      .object([
        ("funnellabShard", .integer(ShardFile.formatVersion)),
        ("command", .string("power")),
        ("shard", .object([("index", .integer(shard.index)), ("count", .integer(shard.count))])),
        ("settings", settings),
        ("variants", .array(variants)),
        ("spec", .string(specText)),
      ]))
  }

  /// Reads a planning shard written by ``json``.
  package static func read(_ document: JSONValue, source: String) throws(SpecErrors) -> PlanningShardFile {
    let (shard, specText) = try Shard.header(of: document, source: source)
    let options = readOptions(document["settings"])
    guard case .array(let vs)? = document["variants"]?.kind else {
      throw damaged([.key("variants")], "expected the variants' tallies", source: source)
    }
    var variants: [PlanningCounts.Variant] = []
    for (k, v) in vs.enumerated() {
      variants.append(try readVariant(v, at: SpecPath([.key("variants"), .index(k)]), source: source))
    }
    let file = PlanningShardFile(shard: shard, specText: specText, options: options, counts: PlanningCounts(variants: variants))
    let errors = file.consistencyErrors()
    guard errors.isEmpty else { throw SpecErrors(source: source, errors: errors) }
    return file
  }

  /// The error of a damaged shard file at `path`.
  private static func damaged(_ path: SpecPath, _ message: String, source: String) -> SpecErrors {
    SpecErrors(source: source, errors: [SpecError(path: path, message: message, hint: "the shard file is damaged")])
  }

  /// Exactly `count` whole numbers ≥ 0 from a JSON array.
  private static func wholeNumbers(_ v: JSONValue?, _ count: Int, _ path: SpecPath, source: String) throws(SpecErrors) -> [Int] {
    guard case .array(let xs)? = v?.kind, xs.count == count else { throw damaged(path, "expected \(count) whole numbers", source: source) }
    var out: [Int] = []
    for x in xs {
      guard case .number(_, let literal) = x.kind, let i = Int(literal), i >= 0 else {
        throw damaged(path, "expected whole numbers ≥ 0", source: source)
      }
      out.append(i)
    }
    return out
  }

  /// A design diagnosis's tallies, as `tally(_:)` wrote them.
  private static func readTally(_ v: JSONValue?, _ path: SpecPath, source: String) throws(SpecErrors) -> DesignDiagnosis.Counts {
    let x = try wholeNumbers(v, 16, path, source: source)
    var c = DesignDiagnosis.Counts()
    (c.replicates, c.significant, c.falsePositives, c.covered, c.wrongSign) = (x[0], x[1], x[2], x[3], x[4])
    c.absoluteDifferenceSum = UInt64(x[5])
    c.pValueHistogram = Array(x[6..<16])
    return c
  }

  /// The planning settings, as `settings` wrote them (defaults for missing members; checked later).
  private static func readOptions(_ s: JSONValue?) -> PlanningOptions {
    func int(_ key: String) -> Int? {
      if case .number(_, let literal)? = s?[key]?.kind { return Int(literal) }
      return nil
    }
    func double(_ key: String) -> Double? {
      if case .number(let x, _)? = s?[key]?.kind { return x }
      return nil
    }
    var options = PlanningOptions()
    options.usersPerArm = int("usersPerArm")
    options.targetPower = double("targetPower") ?? 0.8
    options.usersPerDay = int("usersPerDay")
    options.days = int("days")
    options.replicates = int("replicates") ?? 10_000
    options.alpha = double("alpha")
    if case .number(_, let literal)? = s?["seed"]?.kind { options.seed = UInt64(literal) }
    if case .array(let xs)? = s?["variants"]?.kind {
      options.variants = xs.compactMap { if case .string(let v) = $0.kind { v } else { nil } }
    }
    return options
  }

  /// One variant's tallies: the diagnosis, and the size search and peeking when present.
  private static func readVariant(_ v: JSONValue, at path: SpecPath, source: String) throws(SpecErrors) -> PlanningCounts.Variant {
    var out = PlanningCounts.Variant()
    out.diagnosis = try readTally(v["diagnosis"], path.key("diagnosis"), source: source)
    if let search = v["sizeSearch"], search.kind != .null {
      let x = try wholeNumbers(search, 1 + SampleSizeSearch.sizesPerSearch, path.key("sizeSearch"), source: source)
      var c = SampleSizeSearch.Counts(sizes: SampleSizeSearch.sizesPerSearch)
      c.replicates = x[0]
      c.significant = Array(x[1...])
      out.sizeSearch = c
    }
    if let p = v["peeking"], p.kind != .null {
      let x = try wholeNumbers(p, 10, path.key("peeking"), source: source)
      var c = PeekingDiagnosis.Counts()
      c.replicates = x[0]
      c.falsePositives = Array(x[1..<4])
      c.rejections = Array(x[4..<7])
      c.stoppingDays = Array(x[7..<10])
      out.peeking = c
    }
    return out
  }

  /// Problems of the settings (outside ``Limits/Planning``'s ranges) and of the
  /// tallies: each holds exactly this shard's replicates (`shard.range(of:
  /// 0..<replicates)`; the size search at most 4000), and no count exceeds the count it
  /// is part of (significant, false positives and covered ≤ replicates, wrong signs ≤
  /// significant, the p-value histogram ≤ replicates, the summed |x₁ − x₀| ≤
  /// significant × 2·10¹²; peeking: rejections and false positives ≤ replicates,
  /// stopping days ≤ rejections × 100).
  func consistencyErrors() -> [SpecError] {
    var errors: [SpecError] = []
    func check(_ holds: Bool, _ path: SpecPath, _ message: String) {
      if !holds { errors.append(SpecError(path: path, message: message, hint: "the shard file was edited or damaged")) }
    }
    let settings = SpecPath([.key("settings")])
    let o = options
    check(o.usersPerArm.map(Limits.Planning.usersPerArm.contains) ?? true, settings.key("usersPerArm"), "out of range")
    check(o.usersPerDay.map(Limits.Planning.usersPerDay.contains) ?? true, settings.key("usersPerDay"), "out of range")
    check(o.days.map(Limits.Planning.days.contains) ?? true, settings.key("days"), "out of range")
    check(Limits.Planning.replicates.contains(o.replicates), settings.key("replicates"), "out of range")
    check(Limits.Planning.targetPower.contains(o.targetPower), settings.key("targetPower"), "out of range")
    check(o.alpha.map(Limits.Planning.alpha.contains) ?? true, settings.key("alpha"), "out of range")
    guard errors.isEmpty else { return errors }
    func slice(_ n: Int) -> Int { shard.range(of: 0..<UInt64(n)).count }
    func tally(_ c: DesignDiagnosis.Counts, replicates: Int, at path: SpecPath) {
      guard c.replicates == replicates else {
        return check(false, path, "\(c.replicates) replicates, but shard \(shard) has \(replicates)")
      }
      for (name, count) in [("significant", c.significant), ("false positives", c.falsePositives), ("covered", c.covered)] {
        check(count <= c.replicates, path, "\(count) \(name) of \(c.replicates) replicates")
      }
      check(c.wrongSign <= c.significant, path, "\(c.wrongSign) wrong signs of \(c.significant) significant replicates")
      // Each bin ≤ replicates ≤ 10⁶ before they are added: no overflow.
      let histogramFits = c.pValueHistogram.allSatisfy { $0 <= c.replicates } && c.pValueHistogram.reduce(0, +) <= c.replicates
      check(histogramFits, path, "the p-value histogram holds more than the replicates")
      check(c.absoluteDifferenceSum / 2_000_000_000_000 <= UInt64(c.significant), path, "the summed differences are too large")
    }
    for (k, v) in counts.variants.enumerated() {
      let path = SpecPath([.key("variants"), .index(k)])
      tally(v.diagnosis, replicates: slice(o.replicates), at: path.key("diagnosis"))
      if let search = v.sizeSearch {
        let path = path.key("sizeSearch")
        let replicates = slice(o.searchReplicates)
        check(search.replicates == replicates, path, "\(search.replicates) replicates, but shard \(shard) has \(replicates)")
        check(search.significant.count == SampleSizeSearch.sizesPerSearch, path, "wrong length")
        check(search.significant.allSatisfy { $0 <= search.replicates }, path, "more significant replicates than replicates")
      }
      if let p = v.peeking {
        let path = path.key("peeking")
        check(p.replicates == slice(o.replicates), path, "\(p.replicates) replicates, but shard \(shard) has \(slice(o.replicates))")
        for k in 0..<3 where p.replicates == slice(o.replicates) {
          check(p.falsePositives[k] <= p.replicates && p.rejections[k] <= p.replicates, path, "more rejections than replicates")
          check(p.stoppingDays[k] / 100 <= p.rejections[k], path, "stopping days beyond 100 per rejection")
        }
      }
    }
    return errors
  }

  /// Merges planning shards into the plan of the single run.
  package static func merge(_ files: [(source: String, file: PlanningShardFile)]) throws(SpecErrors) -> PlanningReport {
    guard let first = files.first else { throw SpecErrors(source: "merge", errors: [SpecError(path: .root, message: "no shard files")]) }
    var errors: [SpecError] = []
    let key = JSONWriter.write(first.file.settings) + first.file.specText
    for (source, file) in files where JSONWriter.write(file.settings) + file.specText != key || file.shard.count != first.file.shard.count {
      errors.append(
        SpecError(
          .mismatch, path: .root, message: "\(source) is from another plan than \(first.source) (spec, settings or shard count differ)",
          hint: "merge only the shards of one run"))
    }
    errors += Shard.completenessErrors(
      files.map { ($0.file.shard, $0.source) }, count: first.file.shard.count, otherErrors: !errors.isEmpty)
    guard errors.isEmpty else { throw SpecErrors(source: "merge", errors: errors) }
    let total = files.dropFirst().reduce(first.file.counts) { $0 + $1.file.counts }
    let experiment = try ExperimentLoader.load(text: first.file.specText, source: first.source)
    return try ExperimentPlanner.report(experiment, options: first.file.options, counts: total)
  }
}
