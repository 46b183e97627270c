import FunnelLab

extension FuzzGenerator {
  static let token = FuzzCase.folderToken

  /// Small, bounded options for a command reading a spec.
  func specCommand(_ rng: inout FuzzRandom, spec: String, hasGrid: Bool, small: Bool = false) -> [String] {
    if quick {
      guard small, rng.chance(30) else { return ["validate", spec] }
      return rng.chance(60)
        ? ["run", spec, "--users", String(10 + rng.below(40)), "--threads", "1"]
          + format(&rng, ["table", "json", "csv", "markdown", "html"])
        : ["trace", spec, "--users", String(1 + rng.below(4))]
    }
    var commands = ["validate", "run", "run", "exact", "trace", "sensitivity", "power"]
    if hasGrid { commands.append("grid") }
    if rng.chance(3) { commands.append("check") }
    switch rng.pick(commands) {
    case "run":
      return ["run", spec, "--users", String(50 + rng.below(250)), "--threads", "1"]
        + (rng.chance(20) ? ["--mode", "experiment"] : []) + format(&rng, ["table", "json", "csv", "markdown", "html"])
    case "grid":
      return ["grid", spec, "--users", String(20 + rng.below(40)), "--threads", "1"] + format(&rng, ["table", "json", "markdown", "html"])
    case "exact":
      // With the section's draws (up to 10⁴ exact solves) replaced by three.
      let uncertain = rng.chance(30) ? ["--parameter-uncertainty", "--draws", "3"] : []
      return ["exact", spec] + uncertain + format(&rng, ["table", "json"])
    case "trace": return ["trace", spec, "--users", String(1 + rng.below(30))]
    case "sensitivity":
      return [
        "sensitivity", spec, "--vary", rng.pick(["fatiguePerScreen=0:0.1:0.05", "priceSensitivity=0.5:1:0.5", "screensSeenCap=2:4:2"]),
      ]
    case "power": return ["power", spec, "--users-per-arm", "100", "--replicates", "100"] + format(&rng, ["table", "json", "markdown"])
    case "check": return ["check", spec]
    default: return ["validate", spec]
    }
  }

  func format(_ rng: inout FuzzRandom, _ formats: [String]) -> [String] {
    rng.chance(50) ? [] : ["-f", rng.pick(formats)]
  }

  // MARK: - Mutated specs

  func mutatedSpec(_ rng: inout FuzzRandom) -> FuzzCase {
    let seed = rng.pick(seeds.specs)
    var text = seed.text
    if rng.chance(75), var document = try? JSONParser.parse(text) {
      for _ in 0...rng.below(3) { mutate(&document, &rng, depth: 0) }
      text = JSONWriter.write(document)
    } else {
      text = mutateText(text, &rng)
    }
    let bytes = rng.chance(3) ? Array(text.utf8.prefix(rng.below(text.utf8.count + 1))) + [0xFF] : Array(text.utf8)
    var c = FuzzCase(index: 0, kind: .mutatedSpec, rawArguments: [])
    let fromStandardInput = rng.chance(10)
    let path = fromStandardInput ? "-" : "\(Self.token)/\(seed.name)"
    if fromStandardInput { c.standardInput = bytes } else { c.files[seed.name] = bytes }
    c.rawArguments = specCommand(&rng, spec: path, hasGrid: text.contains("\"grid\""), small: seed.name == smallSpec.name)
    return c
  }

  /// One change somewhere in the tree: a value replaced, a member removed or
  /// duplicated, an array element repeated.
  func mutate(_ value: inout JSONValue, _ rng: inout FuzzRandom, depth: Int) {
    switch value.kind {
    case .object(var members) where !members.isEmpty && rng.chance(80):
      let i = rng.below(members.count)
      switch rng.below(10) {
      case 0: members.remove(at: i)
      case 1: members.append(members[i])
      case 2: members[i].key = rng.pick(["users", "seed", "stepLimit", "weight", "probability", "to", "id", "x", ""])
      case 3: members[i].value = randomValue(&rng)
      default: mutate(&members[i].value, &rng, depth: depth + 1)
      }
      value.kind = .object(members)
    case .array(var elements) where !elements.isEmpty && rng.chance(80):
      let i = rng.below(elements.count)
      switch rng.below(8) {
      case 0: elements.remove(at: i)
      case 1: elements.append(contentsOf: Array(repeating: elements[i], count: 1 + rng.below(3)))
      case 2: elements[i] = randomValue(&rng)
      default: mutate(&elements[i], &rng, depth: depth + 1)
      }
      value.kind = .array(elements)
    default:
      value = randomValue(&rng)
    }
  }

  /// Byte-level damage: truncation, a stray character, deep nesting, CRLF, a BOM.
  func mutateText(_ text: String, _ rng: inout FuzzRandom) -> String {
    var scalars = Array(text.unicodeScalars)
    let at = rng.below(scalars.count + 1)
    switch rng.below(7) {
    case 0: return String(String.UnicodeScalarView(scalars.prefix(at)))
    case 1: scalars.insert(rng.pick(["{", "}", "[", "]", ",", ":", "\"", "\\", "\u{0}", "\u{1B}", "\n", "é"]), at: at)
    case 2: if at < scalars.count { scalars.remove(at: at) }
    case 3: return String(repeating: "[", count: 1 + rng.below(200_000)) + text
    case 4: return text.replacingOccurrences(of: "\n", with: "\r\n")
    case 5: return "\u{FEFF}" + text
    default: return text + rng.pick(["", "{}", "garbage", ",", "\u{0}"])
    }
    return String(String.UnicodeScalarView(scalars))
  }

  // MARK: - Command lines

  /// Every command with options drawn from its own and others', values of every kind.
  func commandLine(_ rng: inout FuzzRandom) -> FuzzCase {
    let options: [String: [String]] = [
      "run": [
        "users", "seed", "threads", "variant", "mode", "format", "shard", "shards", "quiet", "users-per-day", "days", "policy", "epsilon",
        "min-share", "burn-in", "parameter-uncertainty", "draws",
      ],
      "validate": [],
      "grid": ["users", "seed", "threads", "top", "format", "shard", "shards", "quiet"],
      "exact": ["variant", "format", "seed", "alpha", "parameter-uncertainty", "draws"],
      "power": [
        "target-power", "replicates", "days", "looks", "variant", "seed", "shard", "shards", "baseline", "mde", "relative-mde",
        "users-per-arm",
        "power", "alpha", "alternative", "ratio", "method", "sd", "solve", "users-per-day", "format", "compare-bandit", "policy",
        "epsilon", "min-share", "burn-in", "horizon-days", "holdout", "parameter-uncertainty", "draws", "target-assurance", "metric",
      ],
      "analyze": [
        "arm", "arm", "data", "control", "allocation", "alpha", "alternative", "correction", "format", "counts", "planned-users",
        "spending",
        "cs-tuning", "msprt-tau", "margin",
      ],
      "merge": ["format", "top"],
      "trace": ["users", "seed", "variant", "variant", "variant-property", "events-map", "format"],
      "check": ["junit", "format", "baseline", "update-baseline", "tolerance", "relative-tolerance", "allow-empty"],
      "diff": ["tolerance", "relative-tolerance", "format"],
      "calibrate": ["variant", "variant", "variants"],
      "sensitivity": ["vary", "metric", "format"],
    ]
    let cheap = ["run", "validate", "power", "analyze", "merge", "trace", "calibrate"]
    let commands = quick ? cheap : options.keys.sorted()
    let command = rng.chance(3) ? rng.pick(["", "rnu", "--help", "help", "--version", "-x"]) : rng.pick(commands)
    var c = FuzzCase(index: 0, kind: .arguments, rawArguments: command.isEmpty ? [] : [command])
    let small = smallSpec
    c.files[small.name] = Array(small.text.utf8)
    // Without a spec, run and trace take the built-in klick: too slow for the quick profile.
    let needsSpec = quick && ["run", "trace"].contains(command)
    if needsSpec || (rng.chance(50) && !(quick && command == "power")),
      ["run", "grid", "exact", "power", "trace", "sensitivity", "validate", "check", "calibrate"].contains(command)
    {
      c.rawArguments.append(rng.chance(80) ? "\(Self.token)/\(small.name)" : rng.pick(["\(Self.token)", "/nonexistent.json", "-"]))
    }
    let own = options[command] ?? []
    for _ in 0..<rng.below(5) {
      let name = own.isEmpty || rng.chance(10) ? rng.pick(["users", "bogus", "format", "o", "h"]) : rng.pick(own)
      var value = argumentValue(&rng)
      if name == "mode", rng.chance(50) { value = rng.pick(["truth", "experiment", "bandit"]) }
      if name == "policy", rng.chance(50) { value = rng.pick(["thompson", "top-two", "epsilon-greedy"]) }
      if name == "metric", rng.chance(50) { value = rng.pick(["revenuePerUser", "completionRate", "purchaseConversion"]) }
      // An output path stays inside the case's folder, whatever its text.
      if ["o", "output", "junit", "update-baseline"].contains(name), !value.isEmpty, !value.hasPrefix("-") {
        value = "\(Self.token)/\(value)"
      }
      switch rng.below(6) {
      case 0: c.rawArguments.append("--\(name)=\(value)")
      case 1: c.rawArguments.append("--\(name)")
      default: c.rawArguments += ["--\(name)", value]
      }
    }
    bound(&c)
    return c
  }

  /// Keeps a command line's work small: users, replicates and looks capped.
  func bound(_ c: inout FuzzCase) {
    let limits = [
      "users": quick ? 40 : 500.0, "replicates": 200, "users-per-arm": 2000, "days": 5, "looks": 5, "users-per-day": 1e12, "threads": 2,
      "top": 1e4, "draws": 5,
    ]
    var out: [String] = []
    var i = 0
    let args = c.rawArguments
    // A bandit simulates users-per-day × days: keep the day small, and leave out the flags
    // added below that it refuses, so that its own paths are reached.
    let bandit = args.contains { $0.hasPrefix("--compare-bandit") || $0 == "bandit" || $0.hasSuffix("=bandit") }
    var caps = limits
    if bandit { caps["users-per-day"] = quick ? 200 : 2000 }
    while i < args.count {
      let a = args[i]
      let name = a.hasPrefix("--") ? String(a.dropFirst(2).prefix { $0 != "=" }) : ""
      if let cap = caps[name],
        let value = a.contains("=") ? String(a.drop { $0 != "=" }.dropFirst()) : (i + 1 < args.count ? args[i + 1] : nil),
        let x = Double(value), x.isFinite, x > cap, !(extremeNumbers && x > 1e15)
      {
        out.append("--\(name)=\(Int(cap))")
        i += a.contains("=") ? 1 : 2
        continue
      }
      out.append(a)
      i += 1
    }
    if out.first == "power", !out.contains("--replicates"), out.dropFirst().first?.hasPrefix(Self.token) == true {
      out += ["--replicates", "100"]
    }
    if out.first == "power", !bandit, !out.contains(where: { $0.hasPrefix("--users-per-arm") }),
      out.dropFirst().first?.hasPrefix(Self.token) == true
    {
      out += ["--users-per-arm", "200"]
    }
    if ["run", "grid"].contains(out.first), !bandit, !out.contains(where: { $0.hasPrefix("--users") }) {
      out += ["--users", quick ? "20" : "100"]
    }
    if quick, out.first == "trace", !out.contains(where: { $0.hasPrefix("--users") }) { out += ["--users", "3"] }
    c.rawArguments = out
  }
}
