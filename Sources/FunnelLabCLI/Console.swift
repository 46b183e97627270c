import FunnelLab
package import FunnelReport
import FunnelStats
import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
  private typealias Glibc = Darwin
#endif

/// Where a command writes: results to `out`, messages and progress to `err`.
/// Tests pass a ``CapturingConsole``.
package protocol Console: Sendable {
  /// Writes `text` as it is to the results stream (standard output); no newline is added.
  func out(_ text: String)
  /// Writes `text` as it is to the messages stream (standard error): errors, warnings, progress.
  func err(_ text: String)
  /// Whether stderr is an interactive terminal (progress bars, colour).
  var errIsTerminal: Bool { get }
  /// Whether stdout is an interactive terminal (colour in results, their width).
  var outIsTerminal: Bool { get }
  /// The width in columns of the terminal stdout writes to; `nil` when it is not one.
  var terminalColumns: Int? { get }
  /// An environment variable.
  func environment(_ name: String) -> String?
  /// Everything on standard input up to its end (the input named `-`); `nil`
  /// when it cannot be read. A second call finds the input consumed.
  func readStandardInput() -> [UInt8]?
  /// Standard input in chunks, to `body`, until its end or until `body` returns `false`
  /// (a log larger than memory); `false` when it cannot be read.
  func readStandardInput(chunks body: (ArraySlice<UInt8>) -> Bool) -> Bool
  /// The file standard input reads, when it is a regular file (`< log.ndjson`): an output
  /// may not be that file (``refuseCollidingFiles(_:spec:console:)``); `nil` for a terminal or a pipe.
  var standardInputIdentity: FileIdentity? { get }
  /// Sees the report a command is about to write, before it is rendered in the `--format` asked
  /// for (``ReportFormat/text(of:console:)``). The standard console does nothing; a
  /// ``CapturingConsole`` made with `alsoRendering:` renders it in those formats too, so that a test
  /// reads every format of one run.
  func willWrite(_ report: any Report)
}

extension Console {
  /// Does nothing: a console that writes the streams only.
  package func willWrite(_ report: any Report) {}
}

/// The process's standard streams.
package struct StandardConsole: Console {
  /// The process's file descriptors 1 and 2 and its environment; nothing is opened or buffered.
  package init() {}

  /// Writes all of `text` to file descriptor 1 unbuffered, retrying short writes; a failed write drops the rest.
  package func out(_ text: String) { Self.write(text, to: 1) }
  /// Writes all of `text` to file descriptor 2 unbuffered, retrying short writes; a failed write drops the rest.
  package func err(_ text: String) { Self.write(text, to: 2) }

  /// Writes all of `text` to a file descriptor, retrying short writes.
  static func write(_ text: String, to fd: Int32) {
    var copy = text
    copy.withUTF8 { buffer in
      var offset = 0
      while offset < buffer.count {
        guard let base = buffer.baseAddress else { return }
        let n = Glibc.write(fd, base + offset, buffer.count - offset)
        if n <= 0 { return }
        offset += n
      }
    }
  }

  /// `isatty(2)`: true when standard error is a terminal, false in a pipe, a file or CI.
  package var errIsTerminal: Bool { isatty(2) != 0 }

  /// `isatty(1)`: true when standard output is a terminal.
  package var outIsTerminal: Bool { isatty(1) != 0 }

  /// The `TIOCGWINSZ` width of file descriptor 1; `nil` when it is not a terminal or reports 0.
  package var terminalColumns: Int? {
    guard outIsTerminal else { return nil }
    var size = winsize()
    guard ioctl(1, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return nil }
    return Int(size.ws_col)
  }

  /// The process environment's value of `name` (`getenv`); `nil` when unset.
  package func environment(_ name: String) -> String? {
    getenv(name).map { String(cString: $0) }
  }

  /// `fstat(0)`: the regular file standard input is redirected from, if it is one.
  package var standardInputIdentity: FileIdentity? { FileIdentity(descriptor: 0) }

  /// Reads file descriptor 0 to its end; `nil` when the read fails.
  package func readStandardInput() -> [UInt8]? { try? TextInput.bytes(descriptor: 0) }

  /// Reads file descriptor 0 in chunks of 64 KiB; `false` when a read fails.
  package func readStandardInput(chunks body: (ArraySlice<UInt8>) -> Bool) -> Bool {
    (try? TextInput.chunks(descriptor: 0, body)) != nil
  }
}

/// A console that keeps what is written, for tests.
package final class CapturingConsole: Console {
  private let state = Mutex<(out: String, err: String)>(("", ""))
  private let alsoRendering: [ReportFormat]
  private let renderings = Mutex<[ReportFormat: String]>([:])
  private let env: [String: String]
  private let terminal: Bool
  private let input: Mutex<[UInt8]?>
  /// The width of the pretended terminal on stdout; `nil`: stdout is not a terminal.
  package let terminalColumns: Int?
  /// The file standard input pretends to be redirected from; `nil`: none.
  package let standardInputIdentity: FileIdentity?

  /// - Parameters:
  ///   - terminal: pretend stderr is a terminal (to test progress output).
  ///   - standardInput: what `-` reads (once); `nil` for an unreadable standard input.
  ///   - terminalColumns: pretend stdout is a terminal this wide (to test colour and width).
  ///   - standardInputFile: pretend standard input is redirected from this file (its identity only: `standardInput` is what is read).
  ///   - alsoRendering: formats to render the command's report in as well, as the command renders it
  ///     (``rendering(_:)``): every format of one run.
  package init(
    environment: [String: String] = [:], terminal: Bool = false, standardInput: [UInt8]? = [], terminalColumns: Int? = nil,
    standardInputFile: String? = nil, alsoRendering: [ReportFormat] = []
  ) {
    self.alsoRendering = alsoRendering
    env = environment
    self.terminal = terminal
    input = Mutex(standardInput)
    self.terminalColumns = terminalColumns
    standardInputIdentity = standardInputFile.flatMap(FileIdentity.init(path:))
  }

  /// Whether `terminalColumns` was given.
  package var outIsTerminal: Bool { terminalColumns != nil }

  /// The bytes of `standardInput`, then nothing: standard input is read once.
  package func readStandardInput() -> [UInt8]? {
    input.withLock { bytes in
      defer { if bytes != nil { bytes = [] } }
      return bytes
    }
  }

  /// The bytes of `standardInput` in chunks of 7 bytes (so that readers meet chunk
  /// boundaries everywhere), then nothing.
  package func readStandardInput(chunks body: (ArraySlice<UInt8>) -> Bool) -> Bool {
    guard let bytes = readStandardInput() else { return false }
    var start = 0
    while start < bytes.count {
      let end = min(start + 7, bytes.count)
      if !body(bytes[start..<end]) { break }
      start = end
    }
    return true
  }

  /// Renders `report` in each format of `alsoRendering` through the command's own call
  /// (``ReportFormat/text(of:)``, in the command's terminal layout); the last report wins.
  package func willWrite(_ report: any Report) {
    for format in alsoRendering {
      guard let text = try? format.text(of: report) else { continue }
      renderings.withLock { $0[format] = text }
    }
  }

  /// The command's report in `format`, one of `alsoRendering`; `nil` when it wrote none in it.
  package func rendering(_ format: ReportFormat) -> String? { renderings.withLock { $0[format] } }

  /// Appends `text` to ``stdout``; safe from any thread.
  package func out(_ text: String) { state.withLock { $0.out += text } }
  /// Appends `text` to ``stderr``; safe from any thread.
  package func err(_ text: String) { state.withLock { $0.err += text } }
  /// The `terminal` given to the initializer (false by default, so no progress output).
  package var errIsTerminal: Bool { terminal }
  /// `name` in the `environment` given to the initializer; the process environment is never read.
  package func environment(_ name: String) -> String? { env[name] }

  /// Everything written with ``out(_:)`` so far, in order.
  package var stdout: String { state.withLock { $0.out } }
  /// Everything written with ``err(_:)`` so far, in order.
  package var stderr: String { state.withLock { $0.err } }
}

/// A progress line on stderr, redrawn at most every 0.2 s: percentage, rate, ETA.
/// Silent with `--quiet`, and unless stderr is a terminal (quiet in pipes and CI), except for a long
/// run: one estimated by its cost model (``WorkEstimate``) to take over ``announcedAboveSeconds`` is
/// announced before it starts, and any other is announced as soon as its pace says so (after its
/// first second); off a terminal a long run then prints a line at every 10 % instead of the bar.
final class ProgressBar: Sendable {
  /// A run expected to take longer than this many seconds of wall time is announced on stderr.
  static let announcedAboveSeconds = 10.0
  /// How long a run goes before its pace is trusted to predict the rest.
  static let secondsBeforePacing = 1.0

  private let console: any Console
  private let label: String
  private let unit: String
  private let enabled: Bool
  /// Whether the run may still be announced from its pace (not quiet, not already announced).
  private let paced: Bool
  /// `lines`: off a terminal, a long run's line per 10 %; `announced`: the run was announced.
  private let state: Mutex<(lastDraw: ContinuousClock.Instant, drawn: Bool, tenths: Int, lines: Bool, announced: Bool)>
  private let start = ContinuousClock.now

  /// - Parameters:
  ///   - unit: what is counted, in the rate (`users/s`).
  ///   - estimate: the run's cost; when it is long (``WorkEstimate/isLong``) and `enabled`, it is
  ///     announced now, on `threads` threads (default: every core).
  convenience init(
    console: any Console, label: String, enabled: Bool, unit: String = "users", estimate: WorkEstimate? = nil, threads: Int? = nil
  ) {
    let threads = threads ?? MonteCarloEngine.defaultThreadCount
    let note = estimate.flatMap {
      $0.wallSeconds(threads: threads) > Self.announcedAboveSeconds ? Self.announcement($0, threads: threads) : nil
    }
    self.init(console: console, label: label, enabled: enabled, unit: unit, note: note)
  }

  /// - Parameter note: a long run's announcement; when given (and `enabled`), it is printed now
  ///   and, off a terminal, a line follows every 10 %.
  init(console: any Console, label: String, enabled: Bool, unit: String, note: String?) {
    self.console = console
    self.label = label
    self.unit = unit
    let enabled = enabled && !TerminalOptions.isQuiet
    self.enabled = enabled && console.errIsTerminal
    let long = enabled && note != nil
    paced = enabled && note == nil
    state = Mutex((ContinuousClock.now, false, 0, long && !console.errIsTerminal, long))
    if long, let note { console.err(note) }
  }

  /// `Note: this run should take about 2.2 min more (8 % of 2,000,000 replicates in 11 s); …`: the
  /// announcement of a run whose pace, `done` of `total` in `elapsed` seconds, says it is long.
  static func pacedAnnouncement(label: String, unit: String, elapsed: Double, done: Int, total: Int) -> String {
    let left = elapsed * Double(total - done) / Double(max(1, done))
    let percent = Int(rounding: Double(done) / Double(max(1, total)) * 100, .towardZero) ?? 0
    return "Note: \(label) should take about \(duration(left)) more (\(percent) % of \(NumberText.grouped(total)) \(unit)"
      + " in \(duration(elapsed))); progress follows, --quiet hides it.\n"
  }

  /// `Note: about 3.2 min on 2 threads (6.4 min of one core): …`, one line.
  static func announcement(_ e: WorkEstimate, threads: Int) -> String {
    "Note: this run should take about \(duration(e.wallSeconds(threads: threads))) on \(Vocabulary.plural(threads, "thread"))"
      + " (\(duration(e.cpuSeconds)) of one core): \(NumberText.grouped(e.walks, rounding: .toNearestOrAwayFromZero)) user walks"
      + " × \(NumberText.fixed(e.stepsPerWalk, 1)) screens at ~\(Int(WorkEstimate.nanosecondsPerStep * WorkEstimate.buildSlowdown)) ns"
      + " a screen\(WorkEstimate.buildSlowdown > 1 ? " in this debug build" : "")"
      + " (the cost model of Benchmarks/README.md); progress follows, --quiet hides it.\n"
  }

  /// `120 ms`, `45 s`, `3.2 min`, `1.5 h`.
  static func duration(_ seconds: Double) -> String {
    if seconds < 0.995, seconds > 0 { return "\(Int(rounding: seconds * 1000) ?? 0) ms" }
    if seconds < 90 { return "\(Int(rounding: seconds) ?? 0) s" }
    if seconds < 5_400 { return NumberText.fixed(seconds / 60, 1) + " min" }
    return NumberText.fixed(seconds / 3_600, 1) + " h"
  }

  /// Reports `done` of `total`; `elapsed` stands for the seconds since the start (for tests).
  func update(done: Int, total: Int, elapsed: Double? = nil) {
    let elapsed = elapsed ?? Self.seconds(ContinuousClock.now - start)
    if paced { announceIfLong(done: done, total: total, elapsed: elapsed) }
    if state.withLock({ $0.lines }) { line(done: done, total: total, elapsed: elapsed) }
    guard enabled else { return }
    let now = ContinuousClock.now
    let line: String? = state.withLock { s in
      guard now - s.lastDraw >= .milliseconds(200) || done == total else { return nil }
      s.lastDraw = now
      s.drawn = true
      let elapsed = Self.seconds(now - start)
      let rate = elapsed > 0 ? Double(done) / elapsed : 0
      let eta = rate > 0 ? Double(total - done) / rate : 0
      let percent = total > 0 ? min(100, max(0, Int(rounding: Double(done) / Double(total) * 100, .towardZero) ?? 100)) : 100
      let filled = percent / 5
      let bar = String(repeating: "█", count: filled) + String(repeating: "░", count: 20 - filled)
      return "\r\(label) \(bar) \(percent)% · \(Self.compact(rate)) \(unit)/s · ETA \(Int(rounding: eta).map(String.init) ?? "?") s "
    }
    if let line { console.err(line) }
  }

  /// Announces the run once when, after its first ``secondsBeforePacing``, its pace says the whole
  /// takes over ``announcedAboveSeconds``; off a terminal, lines per 10 % follow.
  private func announceIfLong(done: Int, total: Int, elapsed: Double) {
    guard elapsed >= Self.secondsBeforePacing, done > 0, done < total,
      elapsed * Double(total) / Double(done) > Self.announcedAboveSeconds
    else { return }
    let (first, drawn) = state.withLock { s -> (Bool, Bool) in
      defer {
        s.announced = true
        s.lines = !console.errIsTerminal
      }
      return (!s.announced, s.drawn)
    }
    guard first else { return }
    console.err((drawn ? "\r\u{1B}[2K" : "") + Self.pacedAnnouncement(label: label, unit: unit, elapsed: elapsed, done: done, total: total))
  }

  /// Off a terminal: one line each time another 10 % is done.
  private func line(done: Int, total: Int, elapsed: Double) {
    guard total > 0 else { return }
    let tenths = min(10, Int(rounding: Double(done) / Double(total) * 10, .towardZero) ?? 10)
    let crossed = state.withLock { s -> Bool in
      guard tenths > s.tenths else { return false }
      s.tenths = tenths
      return true
    }
    guard crossed else { return }
    let left = done > 0 ? elapsed * Double(total - done) / Double(done) : 0
    let percent = min(100, Int(rounding: Double(done) / Double(total) * 100, .towardZero) ?? 100)
    console.err("\(label): \(percent)% · \(Self.duration(elapsed)) so far · about \(Self.duration(left)) left\n")
  }

  func finish() {
    guard enabled else { return }
    if state.withLock({ $0.drawn }) { console.err("\r\u{1B}[2K") }
  }

  static func seconds(_ d: Duration) -> Double {
    Double(d.components.seconds) + Double(d.components.attoseconds) * 1e-18
  }

  static func compact(_ x: Double) -> String {
    guard let tenths = Int(rounding: x / 1e5, .towardZero), let whole = Int(rounding: x, .towardZero) else { return "?" }
    if x >= 1e6 { return String(tenths / 10) + "." + String(tenths % 10) + "M" }
    if x >= 1e3 { return String(whole / 1000) + "k" }
    return String(whole)
  }
}

extension ProgressBar {
  /// `work` with a bar labelled `label` on `console`'s stderr terminal, handed the bar's update,
  /// and the bar cleared when it ends (with a result or an error), before anything is written.
  static func around<T, E: Error>(
    console: any Console, label: String, unit: String = "users",
    _ work: (_ update: @escaping @Sendable (_ done: Int, _ total: Int) -> Void) throws(E) -> T
  ) throws(E) -> T {
    let bar = ProgressBar(console: console, label: label, enabled: true, unit: unit)
    defer { bar.finish() }
    return try work { done, total in bar.update(done: done, total: total) }
  }
}

/// Progress of work whose pace is known only once it has started: its first report (after a
/// first unit, or after a phase before the units) measures the pace, `note` turns that into an
/// announcement of the rest (or `nil` when it is short), and a ``ProgressBar`` follows.
///
/// `@unchecked Sendable`: work on several threads reports through one serialising reporter
/// (FunnelLab's `SerialProgress` takes a lock around each call), and `finish()` comes after
/// the work has joined, so no two calls ever overlap.
final class PacedProgress: @unchecked Sendable {
  private let console: any Console
  private let label: String
  private let unit: String
  private let note: (_ elapsed: Double, _ done: Int, _ total: Int) -> String?
  private let start = ContinuousClock.now
  private var bar: ProgressBar?

  /// - Parameter note: the announcement from the seconds elapsed at the first report, the units
  ///   done then and their total.
  init(console: any Console, label: String, unit: String, note: @escaping (_ elapsed: Double, _ done: Int, _ total: Int) -> String?) {
    self.console = console
    self.label = label
    self.unit = unit
    self.note = note
  }

  func update(done: Int, total: Int) {
    if let bar { return bar.update(done: done, total: total) }
    let elapsed = ProgressBar.seconds(ContinuousClock.now - start)
    let created = ProgressBar(console: console, label: label, enabled: true, unit: unit, note: note(elapsed, done, total))
    bar = created
    created.update(done: done, total: total)
  }

  func finish() { bar?.finish() }
}

/// Progress of work in stages, a bar each with its own label and unit: a report of another
/// stage ends the last stage's bar and starts its own, so the line always names what is being
/// done. Reports may come from the work's threads, one at a time (FunnelLab's `SerialProgress`);
/// ``finish()``, after the work, clears the last bar. `--quiet` is read when it is made (the
/// work's threads do not see the command's task-local ``TerminalOptions/isQuiet``).
final class StagedProgress<Stage: Equatable & Sendable>: Sendable {
  private let console: any Console
  private let quiet = TerminalOptions.isQuiet
  private let describe: @Sendable (Stage) -> (label: String, unit: String)
  private let current = Mutex<(stage: Stage, bar: ProgressBar)?>(nil)

  /// - Parameter describe: a stage's bar label and what it counts (its unit).
  init(console: any Console, describe: @escaping @Sendable (Stage) -> (label: String, unit: String)) {
    self.console = console
    self.describe = describe
  }

  /// Reports `done` of `total` in `stage`.
  func update(_ stage: Stage, done: Int, total: Int) {
    current.withLock { current in
      if let running = current, running.stage == stage { return running.bar.update(done: done, total: total) }
      current?.bar.finish()
      let (label, unit) = describe(stage)
      let bar = ProgressBar(console: console, label: label, enabled: !quiet, unit: unit, note: nil)
      current = (stage, bar)
      bar.update(done: done, total: total)
    }
  }

  /// Clears the last stage's bar.
  func finish() {
    current.withLock { current in
      current?.bar.finish()
      current = nil
    }
  }
}
