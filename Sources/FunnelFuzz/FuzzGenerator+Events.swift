import FunnelLab

extension FuzzGenerator {
  // MARK: - Event logs

  /// `ingest` with a damaged event log: NDJSON or CSV, lines cut or repeated, bytes that
  /// are not UTF-8, hostile ids as screens, properties of the wrong type, a byte order
  /// mark, CRLF; through a file or standard input, with or without an events map, a
  /// variant property and a bad-line allowance.
  func eventLog(_ rng: inout FuzzRandom) -> FuzzCase {
    if rng.chance(30) { return inferLog(&rng) }
    let screens = ["welcome", "paywall", "goal"] + (rng.chance(30) ? [rng.pick(Self.hostileIDs)] : [])
    let names = TraceEvent.names + ["app_opened", "Onboarding Started", ""]
    var events: [(String, [(String, JSONValue)])] = []
    let variant = rng.chance(50)
    for _ in 0..<(1 + rng.below(12)) {
      var properties: [(String, JSONValue)] = []
      if rng.chance(65) {
        // A well-formed event that counts, so that logs also succeed.
        let (event, key) = rng.pick([
          ("onboarding_screen_viewed", "screen_name"), ("onboarding_continued", "screen_name"), ("onboarding_skipped", "from_screen"),
          ("onboarding_abandoned", "last_screen"),
        ])
        properties.append((key, .string(rng.pick(screens))))
        if variant { properties.append(("variant", .string(rng.pick(["control", "b"])))) }
        events.append((event, properties))
        continue
      }
      for key in ["screen_name", "from_screen", "last_screen", "action", "reason", "variant"] where rng.chance(45) {
        properties.append((key, .string(rng.pick(screens + ["continue", "quit", "exit", "control", "b"]))))
      }
      events.append((rng.pick(names), properties))
    }
    let csv = rng.chance(35)
    var lines = csv ? csvLines(events) : events.map { ndjsonLine($0.0, $0.1, &rng) }
    for _ in 0..<rng.below(3) where !lines.isEmpty && rng.chance(70) {
      let i = rng.below(lines.count)
      switch rng.below(7) {
      case 0: lines[i] = String(lines[i].prefix(rng.below(lines[i].count + 1)))
      case 1: lines.append(lines[i])
      case 2: lines.insert(rng.pick(["", "   ", "{}", "[]", "null", "{\"event\":", String(repeating: "[", count: 600), "\"x\""]), at: i)
      case 3: lines[i] = lines[i].replacingOccurrences(of: "\"welcome\"", with: rng.pick(["3", "[1]", "{\"a\":1}", "null", "1e400"]))
      case 4:
        lines[i] = lines[i].replacingOccurrences(
          of: "welcome", with: rng.pick(Self.hostileIDs.map { $0.replacingOccurrences(of: "\"", with: "") }))
      case 5: lines.remove(at: i)
      default: lines[i] += rng.pick([",", "\"", "}", " trailing"])
      }
    }
    let lineEnd = rng.pick(["\n", "\r\n"])
    var bytes = Array((lines.joined(separator: lineEnd) + (rng.chance(70) ? lineEnd : "")).utf8)
    if rng.chance(10) { bytes = [0xEF, 0xBB, 0xBF] + bytes }
    if rng.chance(6) { bytes.insert(rng.pick([0xC3, 0xFF, 0x00]), at: rng.below(bytes.count + 1)) }
    var c = FuzzCase(index: 0, kind: .eventLog, rawArguments: ["ingest"])
    let name = csv ? "events.csv" : "events.ndjson"
    if rng.chance(25) {
      c.standardInput = bytes
      if rng.chance(50) { c.rawArguments.append("-") }
    } else {
      c.files[name] = bytes
      c.rawArguments.append("\(Self.token)/\(name)")
    }
    if csv, c.files.isEmpty || rng.chance(20) { c.rawArguments += ["--input-format", rng.pick(["csv", "csv", "ndjson", "xml"])] }
    if rng.chance(40) { c.rawArguments += ["--max-bad-lines", rng.pick(["0", "1", "3", "100", "-1", "x"] + numbers)] }
    if variant || rng.chance(10) {
      c.rawArguments += ["--variant-property", rng.pick(["variant", "variant", "variant", "", "arm", rng.pick(Self.hostileIDs)])]
    }
    if rng.chance(20) {
      c.files["map.json"] = Array(
        rng.pick([
          "{\"onboarding_started\": \"Onboarding Started\"}", "{\"onboarding_strted\": \"x\"}", "[]", "{\"goal_selected\": 3}", "{",
        ]).utf8)
      c.rawArguments += ["--events-map", "\(Self.token)/map.json"]
    }
    return c
  }

  /// `infer` with a damaged log of users' walks: views, continues, backs, a purchase, quits
  /// and completions with user ids and times, then lines cut, repeated, reordered or
  /// changed, hostile screen names, a variant filter, a report file.
  func inferLog(_ rng: inout FuzzRandom) -> FuzzCase {
    let screens = ["welcome", "goal", "paywall"] + (rng.chance(25) ? [rng.pick(Self.hostileIDs)] : [])
    var lines: [String] = []
    for user in 0..<(1 + rng.below(5)) {
      var t = rng.below(10) == 0 ? rng.pick([-5, 1_000_000]) : 0
      func line(_ event: String, _ properties: String) {
        let id = rng.chance(1) ? rng.pick(["null", "\"\"", "[1]", "1.5"]) : String(user)
        lines.append("{\"user_id\":\(id),\"timestamp_ms\":\(t),\"event\":\"\(event)\",\"properties\":{\(properties)}}")
        t += rng.below(100) == 0 ? -rng.below(100) : rng.below(5_000)
      }
      func name(_ k: Int) -> String {
        var quoted = ""
        JSONWriter.writeString(screens[min(k, screens.count - 1)], into: &quoted)
        return quoted
      }
      line("onboarding_started", "")
      var at = 0
      for _ in 0..<rng.below(6) {
        let screen = name(at)
        line("onboarding_screen_viewed", "\"screen_name\":\(screen),\"screen_number\":\(at + 1)")
        switch rng.below(6) {
        case 0:
          line("onboarding_back_pressed", "\"from_screen\":\(screen),\"action\":\"back\"")
          at = max(at - 1, 0)
        case 1:
          line("pro_upgrade_tapped", "\"screen_name\":\(screen),\"action\":\"purchase\",\"plan\":\"yearly\"")
          let outcome = rng.pick(["purchase_succeeded", "purchase_cancelled", "purchase_pending", "purchase_failed"])
          line("purchase_started", "\"plan\":\"yearly\"")
          line(outcome, "\"plan\":\"yearly\"")
          // A cancelled or failed tap keeps the user on the screen, viewed again.
          if outcome == "purchase_succeeded" || outcome == "purchase_pending" { at += 1 }
        case 2: line("onboarding_action_failed", "\"screen_name\":\(screen),\"action\":\"type\"")
        default:
          let event = rng.pick(["onboarding_continued", "goal_selected", "pro_maybe_later_tapped"])
          line(event, "\"screen_name\":\(screen),\"action\":\"continue\",\"goal\":\"x\"")
          at += 1
        }
      }
      // The walk ends on a screen: a last action that completes, or a quit there.
      line("onboarding_screen_viewed", "\"screen_name\":\(name(at))")
      if rng.chance(50) {
        line("onboarding_continued", "\"screen_name\":\(name(at)),\"action\":\"continue\"")
        line("onboarding_completed", "")
      } else {
        let reason = rng.pick(["quit", "quit", "exit", "step_limit", "x"])
        line("onboarding_abandoned", "\"last_screen\":\(name(at)),\"reason\":\"\(reason)\"")
      }
    }
    for _ in 0..<rng.below(3) where !lines.isEmpty && rng.chance(50) {
      let i = rng.below(lines.count)
      switch rng.below(5) {
      case 0: lines[i] = String(lines[i].prefix(rng.below(lines[i].count + 1)))
      case 1: lines.append(lines[i])
      case 2: lines.swapAt(i, rng.below(lines.count))
      case 3: lines[i] = lines[i].replacingOccurrences(of: "welcome", with: rng.pick(["", "paywall", "a\\nb"]))
      default: lines.remove(at: i)
      }
    }
    var c = FuzzCase(index: 0, kind: .eventLog, rawArguments: ["infer", "\(Self.token)/events.ndjson"])
    c.files["events.ndjson"] = Array((lines.joined(separator: "\n") + "\n").utf8)
    if rng.chance(30) { c.rawArguments += ["--max-bad-lines", rng.pick(["1", "5", "x"])] }
    if rng.chance(15) { c.rawArguments += ["--variant-property", "variant", "--variant", rng.pick(["control", "b"])] }
    if rng.chance(30) {
      let before: [UInt8]? = rng.chance(50) ? Array("before\n".utf8) : nil
      c.outputs["report.txt"] = .some(before)
      c.rawArguments += ["--report", "\(Self.token)/report.txt"]
    }
    c.rawArguments += format(&rng, ["table", "json", "markdown", "html", "csv"])
    return c
  }

  /// One NDJSON line: the event and its properties, sometimes under Amplitude's keys,
  /// sometimes with a property of another type.
  private func ndjsonLine(_ event: String, _ properties: [(String, JSONValue)], _ rng: inout FuzzRandom) -> String {
    var members = properties
    if rng.chance(10), !members.isEmpty { members[rng.below(members.count)].1 = randomValue(&rng) }
    let amplitude = rng.chance(15)
    let line: JSONValue = .object([
      ("user_id", .integer(rng.below(1000))), (amplitude ? "event_type" : "event", .string(event)),
      (amplitude ? "event_properties" : "properties", .object(members)),
    ])
    return JSONWriter.write(line, pretty: false).trimmingCharacters(in: .newlines)
  }

  /// The events as CSV lines: a header with an event column, one column per property.
  private func csvLines(_ events: [(String, [(String, JSONValue)])]) -> [String] {
    let keys = ["screen_name", "from_screen", "last_screen", "action", "reason", "variant"]
    func field(_ text: String) -> String {
      text.contains(where: { ",\"\n\r".contains($0) }) ? "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\"" : text
    }
    return [(["event"] + keys).joined(separator: ",")]
      + events.map { event, properties in
        ([event]
          + keys.map { key in
            if case .string(let s)? = properties.first(where: { $0.0 == key })?.1.kind { return s }
            return ""
          }).map(field).joined(separator: ",")
      }
  }
}
