// funnellab-fuzz: runs the cases of FunnelFuzz as subprocesses of a built
// `funnellab` (one at a time, each with a timeout) and counts the outcomes:
// exit codes, traps (signals), hangs, outputs changed by failing runs and the other
// findings of `FuzzCase.judge`. See scripts/fuzz.sh.
//
//   funnellab-fuzz [--binary .build/release/funnellab] [--cases 100000] [--start 0]
//                  [--seed 1] [--timeout 60] [--no-extremes] [--quick] [--slow seconds] [--show]
//                  [--keep folder]   (copy each case's files there, to replay it by hand)
//
// --timeout counts the case's CPU seconds where /proc shows them (Linux), with a
// wall-clock guard of 5 × timeout; elsewhere it counts wall-clock seconds.
import Foundation
import FunnelFuzz

#if canImport(Glibc)
  import Glibc
#endif

struct Settings {
  var binary = ".build/release/funnellab"
  var cases = 1000
  var start = 0
  var seed: UInt64 = 1
  var timeout = 60.0
  var extremes = true
  var quick = false
  /// Print every case's command line and stderr (to replay one with --start N --cases 1).
  var show = false
  /// Report every case slower than this many seconds.
  var slow = Double.infinity
  /// Copy each case's folder (its input files, before the run) to this folder.
  var keep: String?

  init(_ arguments: [String]) {
    var i = 0
    while i < arguments.count {
      let value = i + 1 < arguments.count ? arguments[i + 1] : ""
      switch arguments[i] {
      case "--binary": binary = value
      case "--cases": cases = Int(value) ?? cases
      case "--start": start = Int(value) ?? start
      case "--seed": seed = UInt64(value) ?? seed
      case "--timeout": timeout = Double(value) ?? timeout
      case "--no-extremes": extremes = false; i -= 1
      case "--quick": quick = true; i -= 1
      case "--show": show = true; i -= 1
      case "--slow": slow = Double(value) ?? slow
      case "--keep": keep = value
      default: FileHandle.standardError.write(Data("unknown argument \(arguments[i])\n".utf8)); exit(64)
      }
      i += 2
    }
  }
}

/// Runs `binary` with `arguments` in the working folder `directory`; stdin, stdout and stderr
/// go through files in `scratch`. A case runs in its own folder, so that a relative path it
/// names (an option value such as `-inf` taken as a file) lands there, never in the repository.
func execute(
  _ binary: String, _ arguments: [String], stdin: [UInt8], stdinFile: URL? = nil, in directory: URL, scratch: URL, timeout: Double
) -> (Int32?, Int32?, Bool, [UInt8], [UInt8]) {
  let inURL = stdinFile ?? scratch.appendingPathComponent("stdin")
  let outURL = scratch.appendingPathComponent("stdout")
  let errURL = scratch.appendingPathComponent("stderr")
  if stdinFile == nil { _ = FileManager.default.createFile(atPath: inURL.path, contents: Data(stdin)) }
  _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
  _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
  let process = Process()
  process.executableURL = URL(fileURLWithPath: binary)
  process.arguments = arguments
  process.currentDirectoryURL = directory
  process.standardInput = FileHandle(forReadingAtPath: inURL.path)
  process.standardOutput = FileHandle(forWritingAtPath: outURL.path)
  process.standardError = FileHandle(forWritingAtPath: errURL.path)
  do { try process.run() } catch { return (nil, nil, false, [], Array("cannot start: \(error)".utf8)) }
  // A hang is `timeout` seconds of the case's own CPU time where the system tells it
  // (Linux: /proc/<pid>/stat), so a busy machine cannot fake one; a case that blocks
  // without using the CPU is stopped at 5 × timeout of wall-clock time.
  let started = Date()
  let wallLimit = cpuSeconds(of: process.processIdentifier) == nil ? timeout : 5 * timeout
  var timedOut = false
  var polls = 0
  while process.isRunning {
    polls += 1
    let wall = Date().timeIntervalSince(started)
    let cpu = polls % 50 == 0 ? cpuSeconds(of: process.processIdentifier) : nil
    if wall > wallLimit || (cpu ?? 0) > timeout {
      timedOut = true
      kill(process.processIdentifier, SIGKILL)
      break
    }
    usleep(2000)
  }
  process.waitUntilExit()
  let out = (try? Data(contentsOf: outURL)).map(Array.init) ?? []
  let err = (try? Data(contentsOf: errURL)).map(Array.init) ?? []
  if timedOut { return (nil, nil, true, out, err) }
  if process.terminationReason == .uncaughtSignal { return (nil, process.terminationStatus, false, out, err) }
  return (process.terminationStatus, nil, false, out, err)
}

/// The user + system CPU seconds a running process has used, from /proc (Linux); nil
/// where that is not available.
func cpuSeconds(of pid: Int32) -> Double? {
  guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
    let close = stat.lastIndex(of: ")")
  else { return nil }
  // Fields after the command name: state is field 3; utime and stime are fields 14 and 15.
  let fields = stat[stat.index(after: close)...].split(separator: " ")
  guard fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
  return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
}

/// Writes a line to stdout at once (progress is read while the run goes on).
func say(_ line: String) { FileHandle.standardOutput.write(Data((line + "\n").utf8)) }

let settings = Settings(Array(CommandLine.arguments.dropFirst()))
let root = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
func read(_ path: String) -> String { (try? String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)) ?? "" }
let names = ["klick-onboarding.json", "betfree-onboarding.json", "urbannest-onboarding.json", "ncdb-first-launch.json"]
let work = FileManager.default.temporaryDirectory.appendingPathComponent("funnellab-fuzz-\(getpid())")
let scratch = work.appendingPathComponent("scratch")
let folder = work.appendingPathComponent("case")
try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)

var shardSets: [[String]] = []
for set in FuzzSeeds.shardCommands(klick: "experiments/klick-onboarding.json", urbannest: "experiments/urbannest-onboarding.json") {
  shardSets.append(
    set.map { String(decoding: execute(settings.binary, $0, stdin: [], in: root, scratch: scratch, timeout: 600).3, as: UTF8.self) })
}
let seeds = FuzzSeeds(
  specs: names.map { ($0, read("experiments/\($0)")) },
  observed: (read("experiments/urbannest-onboarding.json"), read("experiments/urbannest-observed.csv")), shardSets: shardSets,
  baseline: String(
    decoding: execute(
      settings.binary, FuzzSeeds.baselineCommand(urbannest: "experiments/urbannest-onboarding.json"), stdin: [], in: root, scratch: scratch,
      timeout: 600
    ).3, as: UTF8.self))
let generator = FuzzGenerator(seed: settings.seed, seeds: seeds, extremeNumbers: settings.extremes, quick: settings.quick)

var codes: [String: Int] = [:]
var buckets: [String: Int] = [:]
var examples: [String] = []
let began = Date()
for index in settings.start..<(settings.start + settings.cases) {
  let c = generator.generate(index)
  try c.lay(in: folder.path)
  if let keep = settings.keep {
    let copy = URL(fileURLWithPath: keep).appendingPathComponent("case\(index)")
    try? FileManager.default.removeItem(at: copy)
    try FileManager.default.createDirectory(at: copy.deletingLastPathComponent(), withIntermediateDirectories: true)
    try FileManager.default.copyItem(at: folder, to: copy)
    _ = FileManager.default.createFile(atPath: copy.appendingPathComponent("stdin").path, contents: Data(c.standardInput))
    say("kept case \(index) in \(copy.path): \(c.arguments(in: copy.path))")
  }
  let started = Date()
  let (code, signal, timedOut, out, err) = execute(
    settings.binary, c.arguments(in: folder.path), stdin: c.standardInput,
    stdinFile: c.standardInputFile.map { folder.appendingPathComponent($0) }, in: folder, scratch: scratch, timeout: settings.timeout)
  let seconds = Date().timeIntervalSince(started)
  if settings.show {
    say("case \(index) [\(c.kind.rawValue)]: \(c.shellLine.prefix(2000))")
    for (name, bytes) in c.files.sorted(by: { $0.key < $1.key }) {
      say("--- \(name):\n" + String(decoding: bytes.prefix(4000), as: UTF8.self))
    }
    say("--- stderr:\n" + String(decoding: err.prefix(6000), as: UTF8.self))
  }
  if seconds > settings.slow { say(String(format: "%.2f s", seconds) + " case \(index) [\(c.kind.rawValue)]: \(c.shellLine.prefix(200))") }
  let after = c.observe(folder.path)
  let run = FuzzRun(
    code: code, signal: signal, timedOut: timedOut, stdout: out, stderr: err, outputs: after.outputs, folderNames: after.names,
    inputs: after.inputs)
  let outcome = timedOut ? "timeout" : signal.map { "signal \($0)" } ?? "exit \(code ?? -1)"
  codes[outcome, default: 0] += 1
  for finding in Set(c.judge(run)) {
    buckets[finding.bucket, default: 0] += 1
    if examples.count < 200 {
      let firstLine = String(decoding: err, as: UTF8.self).split(separator: "\n").first.map(String.init) ?? ""
      examples.append("case \(index) [\(c.kind.rawValue)] \(finding): \(c.shellLine)\n    \(firstLine.prefix(300))")
      say("finding: " + (examples.last ?? ""))
    }
  }
  let done = index - settings.start + 1
  if done % 500 == 0 {
    let rate = Double(done) / Date().timeIntervalSince(began)
    say(
      "\(done) cases, \(String(format: "%.1f", rate))/s; outcomes \(codes.sorted { $0.key < $1.key }); findings \(buckets.sorted { $0.key < $1.key })"
    )
  }
}
try? FileManager.default.removeItem(at: work)
say(
  "\nfunnellab-fuzz: seed \(settings.seed), cases \(settings.start)..<\(settings.start + settings.cases), timeout \(Int(settings.timeout)) s, \(Int(Date().timeIntervalSince(began))) s"
)
say("outcomes:")
for (k, v) in codes.sorted(by: { $0.key < $1.key }) { say("  \(k): \(v)") }
say("findings:")
if buckets.isEmpty { say("  none") }
for (k, v) in buckets.sorted(by: { $0.key < $1.key }) { say("  \(k): \(v)") }
for e in examples { say(e) }
exit(buckets.isEmpty ? 0 : 1)
