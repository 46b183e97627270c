/// One record's move along its walk, written as FunnelLab's events for ``FlowInference``.
extension ScreenViewLog {
  /// What a record is to its walk.
  private enum Role {
    case view(String)
    case completion
    case purchase
    case side
  }

  mutating func read(_ r: LogRecord, _ line: Int) {
    if fields == nil {
      switch resolve(r) {
      case .success(let f): fields = f
      case .failure(let problem): return inference.stop(line, problem.message)
      }
    }
    guard let f = fields else { return }
    guard let name = FlowInference.text(r.first(f.event)) else {
      return inference.bad(line, "no event name (\(Self.shown(f.event)))")
    }
    guard let user = FlowInference.text(r.first(f.user)) else {
      return inference.bad(line, "no user (\(Self.shown(f.user))): infer follows each user's events")
    }
    guard let time = stamp(r.first(f.time), f, line) else { return }
    var key = user
    if let session = f.session {
      guard let id = FlowInference.text(r.property(session)) else {
        return inference.bad(line, "no session (\"\(session)\"): walks are sessions")
      }
      key += " session " + id
    }
    let role: Role
    switch self.role(name, r, f) {
    case .success(let found): role = found
    case .failure(let problem): return inference.bad(line, problem.message)
    }
    step(key, role, r, time: time, line: line)
  }

  private func role(_ name: String, _ r: LogRecord, _ f: Fields) -> Result<Role, EventIngest.IDProblem> {
    if options.completionEvents.contains(name) { return .success(.completion) }
    if options.purchaseEvents.contains(name) { return .success(.purchase) }
    if options.sideEvents.contains(name) { return .success(.side) }
    guard !f.screens.isEmpty else { return .success(.view(name)) }
    guard let property = f.screens[name] else { return .success(.side) }
    guard let screen = FlowInference.text(r.property(property)) else {
      return .failure(EventIngest.IDProblem("a screen view (\"\(name)\") without its screen (\"\(property)\")"))
    }
    return .success(.view(screen))
  }

  private mutating func step(_ key: String, _ role: Role, _ r: LogRecord, time: Double, line: Int) {
    if key != lastKey { settle(next: key, line: line) }
    if var walk = open[key] {
      guard time >= walk.time else {
        return inference.bad(line, "time goes back for user \(key.escapingControlCharacters); sort each user's events by time")
      }
      if let idle = options.idleMinutes, time - walk.time > idle * 60_000 {
        open[key] = nil
        idleEnds &+= 1
        end(walk, line: line)
      } else {
        walk.time = time
        carry(&walk, r)
        return move(key, &walk, role, line: line)
      }
    }
    guard case .view = role else {
      sideEvents &+= 1
      return
    }
    guard open.count < FlowInference.maximumOpenUsers else {
      return inference.stop(line, "more than \(FlowInference.maximumOpenUsers) walks on the way at once; sort the log by user")
    }
    walkCount += 1
    var walk = Walk(id: "\(key) #\(walkCount)", time: time)
    carry(&walk, r)
    move(key, &walk, role, line: line)
  }

  private mutating func move(_ key: String, _ walk: inout Walk, _ role: Role, line: Int) {
    switch role {
    case .side: sideEvents &+= 1
    case .view(let screen):
      screenViews &+= 1
      view(&walk, screen, line: line)
    case .purchase:
      purchases &+= 1
      guard let screen = walk.screen, !walk.purchase else { break }
      emit(walk, "pro_upgrade_tapped", [("screen_name", screen), ("action", "purchase")], line)
      emit(walk, "purchase_started", [], line)
      emit(walk, "purchase_succeeded", [], line)
      walk.purchase = true
    case .completion:
      completions &+= 1
      guard let screen = walk.screen else { break }
      if !walk.purchase { emit(walk, "onboarding_continued", [("screen_name", screen), ("action", "continue")], line) }
      emit(walk, "onboarding_completed", [], line)
      open[key] = nil
      return
    }
    open[key] = walk
  }

  private mutating func view(_ walk: inout Walk, _ screen: String, line: Int) {
    if walk.screen == screen, !walk.purchase { return }
    let n = ordinal(screen)
    if let current = walk.screen, !walk.purchase {
      let c = ordinal(current)
      let (event, property, action) =
        n == c + 1
        ? ("onboarding_continued", "screen_name", "continue")
        : n < c ? ("onboarding_back_pressed", "from_screen", "back") : ("onboarding_skipped", "from_screen", "skip")
      emit(walk, event, [(property, current), ("action", action)], line)
    }
    emit(walk, "onboarding_screen_viewed", [("screen_name", screen), ("screen_number", String(n))], line)
    walk.screen = screen
    walk.purchase = false
  }

  /// Records that `key`'s events follow another walk's: while the log looks sorted by user, the
  /// walk before is settling, and the one followed by ``settledWalks`` others ends where it
  /// stands; a settling walk whose events come back shows the log is not sorted so.
  private mutating func settle(next key: String, line: Int) {
    defer { lastKey = key }
    guard sortedByWalk else { return }
    if settlingKeys.contains(key) {
      sortedByWalk = false
      settling = []
      settlingKeys = []
      return
    }
    if let previous = lastKey, open[previous] != nil, settlingKeys.insert(previous).inserted { settling.append(previous) }
    while settling.count - settlingStart > Self.settledWalks {
      let oldest = settling[settlingStart]
      settlingStart += 1
      settlingKeys.remove(oldest)
      if let walk = open.removeValue(forKey: oldest) { end(walk, line: line) }
    }
    if settlingStart > 4 * Self.settledWalks {
      settling.removeFirst(settlingStart)
      settlingStart = 0
    }
  }

  /// Ends `walk` where it stands: its purchase leads out of the flow, or its users quit.
  mutating func end(_ walk: Walk, line: Int) {
    if walk.purchase {
      emit(walk, "onboarding_abandoned", [("reason", "exit")], line)
    } else if let screen = walk.screen {
      emit(walk, "onboarding_abandoned", [("reason", "quit"), ("last_screen", screen)], line)
    }
  }

  /// The screen's place in the order: listed, else first seen (past ``FlowInference/maximumScreens``,
  /// the last place: the count refuses the screen).
  private mutating func ordinal(_ screen: String) -> Int {
    if let n = order[screen] { return n }
    guard order.count <= FlowInference.maximumScreens else { return order.count }
    order[screen] = order.count
    return order.count - 1
  }

  private mutating func emit(_ walk: Walk, _ name: String, _ properties: [(String, String)], _ line: Int) {
    let members = properties.map { (key: $0.0, value: EventLineReader.Property.text($0.1)) } + walk.carried
    inference.read(
      EventLineReader.Event(
        name: name, line: line, user: .text(walk.id), timestamp: .text(String(walk.time)), members: members))
  }

  /// Keeps the record's variant and segment on its walk (what ``FlowInference`` filters and splits by).
  private func carry(_ walk: inout Walk, _ r: LogRecord) {
    for key in [inference.variant?.property, inference.segmentProperty].compactMap({ $0 }) {
      let value = r.property(key)
      guard value != .absent else { continue }
      walk.carried.removeAll { $0.key == key }
      walk.carried.append((key, value))
    }
  }

  private mutating func stamp(_ value: EventLineReader.Property, _ f: Fields, _ line: Int) -> Double? {
    guard case .text(let text) = value else {
      inference.bad(line, "no time (\(Self.shown(f.time))): infer orders each user's events by it")
      return nil
    }
    guard let read = LogTimestamp.milliseconds(text) else {
      let shown = text.count <= 40 ? text : String(text.prefix(40)) + "…"
      inference.bad(
        line,
        "the time '\(shown)' is not a time (epoch seconds, milliseconds or microseconds, ISO 8601, or YYYY-MM-DD HH:MM:SS,"
          + " from 1970 to 9999)")
      return nil
    }
    timeFormats[read.format, default: 0] &+= 1
    return read.milliseconds
  }

  static func shown(_ paths: [[String]]) -> String {
    paths.map { "\"" + $0.joined(separator: ".") + "\"" }.joined(separator: " or ")
  }
}
