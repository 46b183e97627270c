import FunnelLab

extension FuzzGenerator {
  // MARK: - Shard files

  /// A set of shard files with one damaged (a count changed, a value replaced, text
  /// cut), one dropped or repeated, or files of different runs mixed.
  func tamperedShards(_ rng: inout FuzzRandom) -> FuzzCase {
    var files = seeds.shardSets.isEmpty ? [] : quick ? seeds.shardSets[0] : rng.pick(seeds.shardSets)
    if !files.isEmpty {
      let i = rng.below(files.count)
      switch rng.below(6) {
      case 0: files.remove(at: i)
      case 1: files.append(files[i])
      case 2: files[i] = mutateText(files[i], &rng)
      case 3: if let other = seeds.shardSets.last, let f = other.first { files.append(f) }
      default:
        if var document = try? JSONParser.parse(files[i]) {
          for _ in 0...rng.below(2) { mutateNumbers(&document, &rng) }
          files[i] = JSONWriter.write(document)
        }
      }
    }
    var c = FuzzCase(index: 0, kind: .shards, rawArguments: ["merge"])
    for (k, text) in files.enumerated() {
      c.files["shard\(k).json"] = Array(text.utf8)
      c.rawArguments.append("\(Self.token)/shard\(k).json")
    }
    c.rawArguments += format(&rng, ["table", "json"])
    return c
  }

  /// A baseline (the small spec's exact funnel) with a number, a key or its text damaged,
  /// given to `check --baseline` or `diff` with random tolerances.
  func tamperedBaseline(_ rng: inout FuzzRandom) -> FuzzCase {
    var text = seeds.baseline
    switch rng.below(5) {
    case 0: text = mutateText(text, &rng)
    case 1: break
    case 2:
      // Well sealed but incomplete: no metrics, a duplicate variant, another experiment.
      if let document = try? JSONParser.parse(text) { text = JSONWriter.write(ContentChecksum.sealing(incomplete(document, &rng))) }
    default:
      if var document = try? JSONParser.parse(text) {
        for _ in 0...rng.below(2) { mutateNumbers(&document, &rng) }
        text = JSONWriter.write(document)
      }
    }
    let small = smallSpec
    var c = FuzzCase(index: 0, kind: .baseline, rawArguments: [])
    c.files[small.name] = Array(small.text.utf8)
    c.files["base.json"] = Array(text.utf8)
    let spec = "\(Self.token)/\(small.name)"
    let base = "\(Self.token)/base.json"
    c.rawArguments =
      rng.chance(50) ? ["check", spec, "--baseline", base] : rng.chance(50) ? ["diff", base, spec] : ["diff", spec, base]
    // Mostly valid tolerances, so that a tampered but well-formed baseline reaches the comparison.
    for _ in 0..<(rng.chance(35) ? 1 + rng.below(2) : 0) {
      let value = rng.chance(40) ? argumentValue(&rng) : rng.pick(["completionRate=", "skipRate=", "bogus=", ""]) + rng.pick(numbers)
      c.rawArguments += [rng.pick(["--tolerance", "--relative-tolerance"]), value]
    }
    c.rawArguments += format(
      &rng, c.rawArguments[0] == "check" ? ["table", "json", "markdown", "github", "html"] : ["table", "json", "markdown"])
    return c
  }

  /// A baseline document that covers less than it should: a variant's metrics emptied, a variant
  /// listed twice, another experiment's name, or no checksum.
  func incomplete(_ document: JSONValue, _ rng: inout FuzzRandom) -> JSONValue {
    guard case .object(var members) = document.kind else { return document }
    let choice = rng.below(4)
    for k in members.indices {
      switch (choice, members[k].key, members[k].value.kind) {
      case (0, "variants", .array(var items)) where !items.isEmpty:
        let i = rng.below(items.count)
        if case .object(let fields) = items[i].kind {
          items[i] = JSONValue(.object(fields.map { $0.key == "metrics" ? JSONValue.Member(key: "metrics", value: .object([])) : $0 }))
        }
        members[k].value = JSONValue(.array(items))
      case (1, "variants", .array(let items)) where !items.isEmpty: members[k].value = JSONValue(.array(items + [items[0]]))
      case (2, "experiment", _): members[k].value = .string(rng.pick(["other", ""] + Self.hostileIDs))
      default: break
      }
    }
    if choice == 3 { members.removeAll { $0.key == ContentChecksum.key } }
    return JSONValue(.object(members))
  }

  /// Changes one number deep in the document (shard counts): +1, doubled, huge, negative.
  func mutateNumbers(_ value: inout JSONValue, _ rng: inout FuzzRandom) {
    switch value.kind {
    case .object(var members) where !members.isEmpty:
      let i = rng.below(members.count)
      mutateNumbers(&members[i].value, &rng)
      value.kind = .object(members)
    case .array(var elements) where !elements.isEmpty:
      let i = rng.below(elements.count)
      mutateNumbers(&elements[i], &rng)
      value.kind = .array(elements)
    case .number(let x, _):
      let n = x.isFinite ? Int64(max(min(x, 9e18), -9e18)) : 0
      let options = ["\(n &+ 1)", "\(n &* 2)", "0", "-1", "1.5"] + numbers
      let text = rng.pick(options)
      value = JSONValue(.number(Double(text) ?? 0, literal: text))
    default:
      value = randomValue(&rng)
    }
  }

  // MARK: - CSV files

  /// `analyze --data` or `calibrate` with a damaged CSV: line ends, a BOM, quotes,
  /// odd numbers, missing or extra fields, bytes that are not UTF-8.
  func malformedCSV(_ rng: inout FuzzRandom) -> FuzzCase {
    let analyze = rng.chance(quick ? 92 : 50)
    var rows: [[String]] =
      analyze
      ? [["arm", "users", "conversions"], ["control", "1000", "120"], ["b", "1000", "150"]]
      : seeds.observed.csv.split(separator: "\n").map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
    if analyze, rng.chance(30) {
      rows[0] += ["revenue_sum", "revenue_sum_squares"]
      for i in rows.indices.dropFirst() { rows[i] += ["500", "9000"] }
    }
    let daily = analyze && rng.chance(35)
    if daily {
      rows = [["day"] + rows[0]] + (1...3).flatMap { day in rows.dropFirst().map { [String(day)] + $0 } }
    }
    for _ in 0...rng.below(3) {
      let r = rng.below(rows.count)
      switch rng.below(11) {
      case 0: if !rows[r].isEmpty { rows[r][rng.below(rows[r].count)] = argumentValue(&rng) }
      case 1: rows[r].append(argumentValue(&rng))
      case 2: if !rows[r].isEmpty { rows[r].removeLast() }
      case 3: rows.remove(at: r)
      case 4: rows.append(rows[r])
      case 5: if !rows[r].isEmpty { rows[r][rng.below(rows[r].count)] = "\"" + rng.pick(["a,b", "q\"\"q", "line\nbreak", "open"]) }
      case 6: if !rows[r].isEmpty { rows[r][rng.below(rows[r].count)] = rng.pick(numbers) }
      case 7: if !rows[r].isEmpty { rows[r][0] = rng.pick(Self.hostileIDs).replacingOccurrences(of: ",", with: ";") }
      // A header naming a column twice (the second was once ignored).
      case 8: if let name = rows[0].isEmpty ? nil : rows[0][rng.below(rows[0].count)] { rows[0].append(name) }
      // A count of 0: a fit that drives an action to 0 can close a path of the flow.
      case 9: if r > 0, let last = rows[r].indices.last { rows[r][last] = "0" }
      default: rows = Array(rows.prefix(1))
      }
      if rows.isEmpty { break }
    }
    let lineEnd = rng.pick(["\n", "\r\n", "\r"])
    var text = rows.map { $0.joined(separator: ",") }.joined(separator: lineEnd) + (rng.chance(80) ? lineEnd : "")
    if rng.chance(15) { text = "\u{FEFF}" + text }
    var bytes = Array(text.utf8)
    if rng.chance(4) { bytes.insert(0xC3, at: rng.below(bytes.count + 1)) }
    var c = FuzzCase(index: 0, kind: .csv, rawArguments: [])
    c.files["data.csv"] = bytes
    if analyze {
      c.rawArguments =
        ["analyze", "--data", "\(Self.token)/data.csv"] + (rng.chance(30) ? ["--arm", "extra=100:10"] : [])
        + (daily && rng.chance(50)
          ? [rng.pick(["--counts", "--planned-users", "--spending", "--cs-tuning", "--msprt-tau"]), argumentValue(&rng)] : [])
        + format(&rng, ["table", "json", "csv", "markdown", "html"])
    } else {
      c.files["spec.json"] = Array(seeds.observed.spec.utf8)
      c.rawArguments = ["calibrate", "\(Self.token)/spec.json", "\(Self.token)/data.csv"]
    }
    return c
  }

  // MARK: - Per-user files

  /// `analyze --users-file` with a damaged per-user file (cells, fields, the header, quotes,
  /// numbers at the edges, a hostile arm name, a day column) and column flags that may name
  /// what is not there.
  func malformedUserFile(_ rng: inout FuzzRandom) -> FuzzCase {
    var rows: [[String]] = [["user", "arm", "revenue", "pre", "purchases"]]
    let days = rng.chance(40)
    var arms = ["control", "b"]
    var c = FuzzCase(index: 0, kind: .userFile, rawArguments: [])
    if rng.chance(20) {
      arms[1] = rng.pick(Self.hostileIDs.filter { !$0.isEmpty && !$0.contains("\u{0}") })
      c.hostileIDs = [arms[1]]
    }
    for i in 0..<(12 + rng.below(40)) {
      let pays = rng.below(4) == 0
      rows.append(["u\(i)", arms[i % 2], pays ? "9.99" : "0", String(rng.below(20)), pays ? "1" : "0"])
    }
    if days { rows = rows.enumerated().map { k, row in [k == 0 ? "day" : String(1 + rng.below(4))] + row } }
    for _ in 0..<rng.below(3) {
      let r = rng.below(rows.count)
      let k = rng.below(rows[r].count)
      switch rng.below(7) {
      case 0: rows[r][k] = argumentValue(&rng)
      case 1: rows[r][k] = rng.pick(numbers)
      case 2: rows[r].remove(at: k)
      case 3: rows[r].append(rng.pick(numbers))
      case 4: rows[r][k] = ""
      case 5: rows[r][k] = "\"" + rng.pick(["a,b", "q\"\"q", "line\nbreak", "open"])
      default: rows.removeLast(rows.count - 1 - rng.below(rows.count))
      }
    }
    func field(_ text: String) -> String {
      text.contains { ",\n\r".contains($0) } && !text.hasPrefix("\"")
        ? "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\"" : text
    }
    let lineEnd = rng.pick(["\n", "\r\n"])
    c.files["users.csv"] = Array((rows.map { $0.map(field).joined(separator: ",") }.joined(separator: lineEnd) + lineEnd).utf8)
    var arguments = ["analyze", "--users-file", "\(Self.token)/users.csv"]
    if rng.chance(90) { arguments += ["--metric", rng.pick(["revenue", "revenue", "pre", "purchases", "arm", "nope", "day"])] }
    if rng.chance(50) { arguments += ["--covariate", rng.pick(["pre", "pre", "revenue", "user", "missing"])] }
    if rng.chance(40) {
      arguments += ["--ratio", rng.pick(["revenue/purchases", "revenue/purchases", "pre/revenue", "revenue/", "a/b/c"])]
    }
    if rng.chance(15) { arguments += ["--control", rng.pick(["b", "control", "nope"] + arms)] }
    if rng.chance(10) { arguments += ["--allocation", rng.pick(["control=1,b=1", "control=90,b=10", "b=1"])] }
    if rng.chance(10) { arguments += [rng.pick(["--alpha", "--cs-tuning", "--correction"]), argumentValue(&rng)] }
    c.rawArguments = arguments + format(&rng, ["table", "json", "csv", "markdown", "html"])
    return c
  }

  // MARK: - Hostile ids

  /// A seed with an id replaced everywhere by markup, an escape or a line end, run
  /// to Markdown, HTML or a terminal table; or analyze arms with such names.
  func hostileIDs(_ rng: inout FuzzRandom) -> FuzzCase {
    let id = rng.pick(Self.hostileIDs.filter { !$0.isEmpty && !$0.contains("\u{0}") })
    var c = FuzzCase(index: 0, kind: .hostileIDs, rawArguments: [])
    c.hostileIDs = [id]
    if rng.chance(quick ? 60 : 25) {
      let name = id.replacingOccurrences(of: "=", with: "-")
      c.hostileIDs = [name]
      c.rawArguments =
        ["analyze", "--arm", "\(name)=1000:100", "--arm", "b=1000:120"] + format(&rng, ["table", "markdown", "html", "csv", "json"])
      return c
    }
    let seed = quick ? smallSpec : rng.pick(seeds.specs)
    guard let document = try? JSONParser.parse(seed.text) else { return c }
    let ids = collectIDs(document)
    guard !ids.isEmpty else { return c }
    let target = rng.pick(ids)
    let text = JSONWriter.write(replacingString(target, with: id, in: document))
    c.files[seed.name] = Array(text.utf8)
    let path = "\(Self.token)/\(seed.name)"
    let formats = ["table", "markdown", "html", "json", "csv"]
    if quick {
      c.rawArguments = rng.chance(70) ? ["validate", path] : ["run", path, "--users", "20", "--threads", "1", "-f", rng.pick(formats)]
      return c
    }
    switch rng.below(5) {
    case 0 where text.contains("\"grid\""): c.rawArguments = ["grid", path, "--users", "30", "--threads", "1"] + ["-f", rng.pick(formats)]
    case 1: c.rawArguments = ["exact", path] + ["-f", rng.pick(["table", "json"])]
    case 2: c.rawArguments = ["power", path, "--users-per-arm", "100", "--replicates", "100", "-f", rng.pick(formats)]
    case 3: c.rawArguments = ["validate", path]
    default: c.rawArguments = ["run", path, "--users", "100", "--threads", "1", "-f", rng.pick(formats)]
    }
    return c
  }

  /// The values of every "id" member.
  func collectIDs(_ value: JSONValue) -> [String] {
    switch value.kind {
    case .object(let members):
      members.flatMap { m -> [String] in
        if m.key == "id", case .string(let s) = m.value.kind { return [s] }
        return collectIDs(m.value)
      }
    case .array(let elements): elements.flatMap(collectIDs)
    default: []
    }
  }

  /// The document with every string equal to `old` (ids and references) replaced.
  func replacingString(_ old: String, with new: String, in value: JSONValue) -> JSONValue {
    var copy = value
    switch value.kind {
    case .string(let s) where s == old: copy.kind = .string(new)
    case .object(let members):
      copy.kind = .object(
        members.map { m in
          var m = m
          m.value = replacingString(old, with: new, in: m.value)
          if m.key == old { m.key = new }
          return m
        })
    case .array(let elements): copy.kind = .array(elements.map { replacingString(old, with: new, in: $0) })
    default: break
    }
    return copy
  }

  // MARK: - Outputs

  /// Half the cases write with `-o` (or `--junit` for check) to a file that exists
  /// (with known content) or not, sometimes in a folder still to create.
  func addOutput(_ c: inout FuzzCase, _ rng: inout FuzzRandom) {
    guard let command = c.rawArguments.first, !command.hasPrefix("-"), rng.chance(50) else { return }
    let name = rng.chance(20) ? "new/folder/out.txt" : "out.txt"
    let before: [UInt8]? = rng.chance(50) ? Array("before\n".utf8) : nil
    c.outputs[name] = .some(before)
    c.rawArguments += [command == "check" && rng.chance(50) ? "--junit" : "-o", "\(Self.token)/\(name)"]
  }
}
