/// The partial result of one shard of `funnellab grid --exact`: the exact values of the
/// cells of its blocks (``GridRanking/solve(_:shard:threads:memo:progress:)``), with the spec.
///
/// `funnellab merge` puts every shard's cells in their places and ranks them
/// (``GridRanking/init(_:parts:)``): the same bytes as one run, for any shard count, because a
/// cell's values depend only on its block and a block is never split.
package struct ExactGridShardFile: Sendable {
  /// Which blocks of cells this file solved (index and count).
  package var shard: Shard
  /// The spec's text, byte for byte, so the merge needs nothing but the shard files.
  package var specText: String
  /// The shard's values.
  package var part: GridRanking.Part

  /// A shard's partial ranking.
  package init(shard: Shard, specText: String, part: GridRanking.Part) {
    self.shard = shard
    self.specText = specText
    self.part = part
  }

  /// FNV-1a 64 of the spec text, in hex: identifies the spec in refusals.
  package var specHash: String { ContentChecksum.hex(HashAssignment.fnv1a64(specText)) }

  /// `[primary, conversion, revenue per user]`, each a number (its shortest round-trip form) or `null`.
  static func json(_ v: GridRanking.Values) -> [JSONValue] {
    [v.primary, v.conversion, v.revenuePerUser].map { $0.map { .number($0) } ?? .null }
  }

  /// The file's content, sealed with its checksum (``ContentChecksum``).
  package var json: JSONValue {
    ContentChecksum.sealing(
      .object([
        ("funnellabShard", .integer(ShardFile.formatVersion)),
        ("command", .string("grid")),
        ("mode", .string("exact")),
        ("shard", .object([("index", .integer(shard.index)), ("count", .integer(shard.count))])),
        ("specHash", .string(specHash)),
        ("walks", .integer(part.walks)),
        ("control", .array(Self.json(part.control))),
        ("cells", .array(part.cells.map { .array([.integer($0.index)] + Self.json($0.values)) })),
        ("spec", .string(specText)),
      ]))
  }

  /// Whether `document` is a shard of `grid --exact` (and not of a simulated run or grid).
  package static func isExactGrid(_ document: JSONValue) -> Bool {
    guard case .string("grid")? = document["command"]?.kind, case .string("exact")? = document["mode"]?.kind else { return false }
    return true
  }

  /// Reads a shard written by ``json``: its version, checksum, spec, and every cell an index of this
  /// shard's blocks with three values.
  package static func read(_ document: JSONValue, source: String) throws(SpecErrors) -> ExactGridShardFile {
    func damaged(_ path: SpecPath, _ message: String) -> SpecErrors {
      SpecErrors(source: source, errors: [SpecError(path: path, message: message, hint: "the shard file was edited or damaged")])
    }
    let (shard, specText) = try Shard.header(of: document, source: source)
    guard case .number(_, let w)? = document["walks"]?.kind, let walks = Int(w), walks >= 0 else {
      throw damaged([.key("walks")], "expected a whole number")
    }
    guard let control = values(document["control"]) else { throw damaged([.key("control")], "expected [value, conversion, revenue]") }
    guard case .array(let rows)? = document["cells"]?.kind else { throw damaged([.key("cells")], "expected an array of cells") }
    var cells: [(index: Int, values: GridRanking.Values)] = []
    cells.reserveCapacity(rows.count)
    for (k, row) in rows.enumerated() {
      guard case .array(let items) = row.kind, items.count == 4, case .number(_, let literal) = items[0].kind, let cell = Int(literal),
        let v = values(JSONValue.array(Array(items.dropFirst())))
      else { throw damaged([.key("cells"), .index(k)], "expected [index, value, conversion, revenue]") }
      cells.append((cell, v))
    }
    let file = ExactGridShardFile(shard: shard, specText: specText, part: GridRanking.Part(control: control, cells: cells, walks: walks))
    if case .string(let hash)? = document["specHash"]?.kind, hash != file.specHash {
      throw damaged([.key("specHash")], "the spec's hash does not match its text")
    }
    return file
  }

  /// Three values, each a number or `null`; `nil` when the shape is wrong.
  static func values(_ value: JSONValue?) -> GridRanking.Values? {
    guard case .array(let items)? = value?.kind, items.count == 3 else { return nil }
    var numbers: [Double?] = []
    for item in items {
      switch item.kind {
      case .null: numbers.append(nil)
      case .number(_, let literal):
        guard let x = Double(literal), x.isFinite else { return nil }
        numbers.append(x)
      default: return nil
      }
    }
    return GridRanking.Values(numbers)
  }

  /// Merges the shards of one `grid --exact` into its ranking.
  /// - Throws: ``SpecErrors`` when the files come from different specs or shard counts, a
  ///   shard appears twice or is missing, or a shard's cells are not its blocks'.
  package static func merge(_ files: [(source: String, file: ExactGridShardFile)]) throws(SpecErrors) -> GridRanking {
    guard let first = files.first else {
      throw SpecErrors(source: "merge", errors: [SpecError(path: .root, message: "no shard files", hint: "pass parts/*.json")])
    }
    var errors: [SpecError] = []
    for (source, file) in files where file.specHash != first.file.specHash || file.shard.count != first.file.shard.count {
      errors.append(
        SpecError(
          .mismatch, path: .root,
          message: "\(source) is from another grid than \(first.source): spec \(file.specHash) vs \(first.file.specHash), "
            + "shard count \(file.shard.count) vs \(first.file.shard.count)",
          hint: "merge only the shards of one grid"))
    }
    errors += Shard.completenessErrors(
      files.map { ($0.file.shard, $0.source) }, count: first.file.shard.count, otherErrors: !errors.isEmpty)
    guard errors.isEmpty else { throw SpecErrors(source: "merge", errors: errors) }
    let experiment = try ExperimentLoader.load(text: first.file.specText, source: first.source)
    guard let grid = experiment.grid else {
      throw SpecErrors(source: first.source, errors: [SpecError(path: [.key("grid")], message: "the spec has no grid")])
    }
    let blocks = GridBlocks(grid)
    for (source, file) in files {
      let range = file.shard.range(of: 0..<UInt64(blocks.count))
      let expected = (Int(range.lowerBound)..<Int(range.upperBound)).flatMap { blocks.cells(ofBlock: $0) }.sorted()
      guard file.part.cells.map(\.index) == expected else {
        throw SpecErrors(
          source: source,
          errors: [
            SpecError(
              path: [.key("cells")], message: "the cells are not those of shard \(file.shard)'s blocks",
              hint: "the shard file was edited or damaged")
          ])
      }
    }
    return try GridRanking(experiment, parts: files.map(\.file.part))
  }
}
