import Foundation

/// One generated command line with the files it reads, for `funnellab`.
///
/// Paths are written relative to the case's folder with the prefix ``folderToken``;
/// a runner creates a fresh folder, writes ``files`` and ``existingOutputs`` into
/// it, and replaces the token (``arguments(in:)``).
public struct FuzzCase: Sendable, Hashable {
  /// What the case attacks.
  public enum Kind: String, Sendable, Hashable, CaseIterable {
    case mutatedSpec, arguments, shards, csv, hostileIDs, eventLog, baseline, userFile
    /// Outputs that are inputs or each other, by another name (a symbolic link, standard
    /// input redirected from the file), and outputs that cannot be written (`/dev/full`).
    case collision
  }

  /// Stands for the case's folder in ``rawArguments``.
  public static let folderToken = "{case}"

  public var index: Int
  public var kind: Kind
  public var rawArguments: [String]
  /// Input files by name (relative to the case's folder).
  public var files: [String: [UInt8]] = [:]
  /// What `-` reads.
  public var standardInput: [UInt8] = []
  /// The file (a name in the case's folder) that standard input is redirected from, in place
  /// of ``standardInput``: `funnellab … < file`.
  public var standardInputFile: String?
  /// Symbolic links laid in the case's folder: a link's name → what it points to (a name in
  /// the folder, or an absolute path such as `/dev/null`).
  public var links: [String: String] = [:]
  /// Output files (`-o`, `--junit`) by name; a value is the content the file has
  /// before the run (`nil`: the file does not exist).
  public var outputs: [String: [UInt8]?] = [:]
  /// The output format asked for (`table` when none).
  public var format: String = "table"
  /// Ids whose raw form must not reach a Markdown, HTML or terminal output.
  public var hostileIDs: [String] = []

  /// A case of `kind` running `rawArguments`, with no files yet.
  public init(index: Int, kind: Kind, rawArguments: [String]) {
    self.index = index
    self.kind = kind
    self.rawArguments = rawArguments
  }

  /// The command line with the case's folder in place of ``folderToken``.
  public func arguments(in folder: String) -> [String] {
    rawArguments.map { $0.replacingOccurrences(of: Self.folderToken, with: folder) }
  }

  /// The output format a command line asks for, as the CLI reads it: the last `-f x`,
  /// `--format x` or `--format=x`; when none, the only format of `ingest` (`csv`) and
  /// `trace` (`ndjson`), else `table`.
  public static func format(of arguments: [String]) -> String {
    var format = ["ingest": "csv", "trace": "ndjson"][arguments.first ?? ""] ?? "table"
    for (i, a) in arguments.enumerated() {
      if a == "-f" || a == "--format", i + 1 < arguments.count { format = arguments[i + 1] }
      if a.hasPrefix("--format=") { format = String(a.dropFirst("--format=".count)) }
    }
    return format
  }

  /// Lays the case in `folder` (made empty first): its input files, the outputs that exist
  /// before the run, and its links.
  public func lay(in path: String) throws {
    let folder = URL(fileURLWithPath: path)
    try? FileManager.default.removeItem(at: folder)
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    for (name, bytes) in files { try Data(bytes).write(to: folder.appendingPathComponent(name)) }
    for case (let name, let before?) in outputs {
      let url = folder.appendingPathComponent(name)
      try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
      try Data(before).write(to: url)
    }
    for (name, target) in links.sorted(by: { $0.key < $1.key }) {
      let destination = target.hasPrefix("/") ? target : folder.appendingPathComponent(target).path
      try FileManager.default.createSymbolicLink(atPath: folder.appendingPathComponent(name).path, withDestinationPath: destination)
    }
  }

  /// What a run left in `folder`: each output's and each input's bytes (`nil`: absent), and the names there.
  public func observe(_ path: String) -> (outputs: [String: [UInt8]?], inputs: [String: [UInt8]?], names: [String]) {
    let folder = URL(fileURLWithPath: path)
    func bytes(_ name: String) -> [UInt8]? { (try? Data(contentsOf: folder.appendingPathComponent(name))).map(Array.init) }
    var outputs: [String: [UInt8]?] = [:]
    for name in self.outputs.keys { outputs[name] = .some(bytes(name)) }
    var inputs: [String: [UInt8]?] = [:]
    for name in files.keys { inputs[name] = .some(bytes(name)) }
    return (outputs, inputs, (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? [])
  }

  /// The command line as one shell-quoted line, for reports.
  public var shellLine: String {
    (["funnellab"] + rawArguments).map { a in
      a.allSatisfy { $0.isLetter || $0.isNumber || "-_./=:{},+@".contains($0) }
        ? a : "'" + a.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }.joined(separator: " ")
  }
}

/// What one run of a case did.
public struct FuzzRun: Sendable {
  /// The exit code, or `nil` when the process died of a signal.
  public var code: Int32?
  public var signal: Int32?
  public var timedOut = false
  public var stdout: [UInt8]
  public var stderr: [UInt8]
  /// Each output file's content after the run (`nil`: absent).
  public var outputs: [String: [UInt8]?]
  /// The names in the case's folder after the run.
  public var folderNames: [String]
  /// Each input file's content after the run (`nil`: absent); empty when not observed.
  public var inputs: [String: [UInt8]?]

  public init(
    code: Int32?, signal: Int32? = nil, timedOut: Bool = false, stdout: [UInt8], stderr: [UInt8], outputs: [String: [UInt8]?],
    folderNames: [String], inputs: [String: [UInt8]?] = [:]
  ) {
    self.code = code
    self.signal = signal
    self.timedOut = timedOut
    self.stdout = stdout
    self.stderr = stderr
    self.outputs = outputs
    self.folderNames = folderNames
    self.inputs = inputs
  }
}

/// A property a run broke.
public enum FuzzFinding: Sendable, Hashable, CustomStringConvertible {
  case trap(signal: Int32)
  case hang
  case internalError
  case undocumentedExitCode(Int32)
  case checkFailedOutsideCheck
  case noMessage
  case controlCharacterInMessage
  case controlCharacterInTerminalOutput
  case rawMarkup(String)
  case outputChangedOnFailure(String)
  case temporaryFileLeft(String)
  case inputChanged(String)
  case forgedWorkflowCommand(String)

  public var description: String {
    switch self {
    case .trap(let s): "trap (signal \(s))"
    case .hang: "hang (timeout)"
    case .internalError: "internal error (exit 70)"
    case .undocumentedExitCode(let c): "undocumented exit code \(c)"
    case .checkFailedOutsideCheck: "exit 1 from a command other than check and diff"
    case .noMessage: "failure without a one-line message"
    case .controlCharacterInMessage: "raw control character on stderr"
    case .controlCharacterInTerminalOutput: "raw control character in a terminal table"
    case .rawMarkup(let m): "raw markup in the output: \(m)"
    case .outputChangedOnFailure(let name): "output \(name) changed by a failing run"
    case .temporaryFileLeft(let name): "temporary file \(name) left behind"
    case .inputChanged(let name): "input \(name) changed by the run"
    case .forgedWorkflowCommand(let problem): "output a CI runner or a terminal acts on: \(problem.prefix(160))"
    }
  }

  /// The outcome's bucket in a summary (`trap`, `hang`, …).
  public var bucket: String {
    switch self {
    case .trap: "trap"
    case .hang: "hang"
    case .rawMarkup: "raw markup"
    case .outputChangedOnFailure: "output changed on failure"
    case .temporaryFileLeft: "temporary file left"
    case .inputChanged: "input changed"
    case .forgedWorkflowCommand: "forged workflow command"
    default: description
    }
  }
}

extension FuzzCase {
  /// The exit codes `funnellab` documents, but 70 (a bug).
  public static let documentedCodes: Set<Int32> = [0, 1, 64, 65, 66, 73]

  /// Every property `run` breaks.
  public func judge(_ run: FuzzRun) -> [FuzzFinding] {
    if let signal = run.signal { return [.trap(signal: signal)] }
    if run.timedOut { return [.hang] }
    guard let code = run.code else { return [.hang] }
    var findings: [FuzzFinding] = []
    if code == 70 {
      findings.append(.internalError)
    } else if !Self.documentedCodes.contains(code) {
      findings.append(.undocumentedExitCode(code))
    }
    if code == 1, !["check", "diff"].contains(rawArguments.first ?? "") { findings.append(.checkFailedOutsideCheck) }
    let err = String(decoding: run.stderr, as: UTF8.self)
    if err.unicodeScalars.contains(where: { $0 != "\n" && Self.isControl($0) }) { findings.append(.controlCharacterInMessage) }
    for (name, before) in files {
      if let after = run.inputs[name], after != before { findings.append(.inputChanged(name)) }
    }
    if let line = Self.workflowCommand(in: err) { findings.append(.forgedWorkflowCommand(line)) }
    if code != 0, code != 1 {
      let first = err.split(separator: "\n", omittingEmptySubsequences: false).first ?? ""
      if first.trimmingCharacters(in: .whitespaces).count < 8 || !first.contains(":") { findings.append(.noMessage) }
      for (name, before) in outputs where run.outputs[name] != before { findings.append(.outputChangedOnFailure(name)) }
      for name in run.folderNames where name.contains(".funnellab-") { findings.append(.temporaryFileLeft(name)) }
    } else {
      findings += outputFindings(String(decoding: run.stdout, as: UTF8.self))
      for case (_, let bytes?) in run.outputs.sorted(by: { $0.key < $1.key }) {
        if let line = Self.workflowCommand(in: String(decoding: bytes, as: UTF8.self)) { findings.append(.forgedWorkflowCommand(line)) }
      }
    }
    return findings
  }

  /// The first problem ``forgedCommandLines(_:annotations:)`` finds in `text`: a workflow command a
  /// CI runner would act on, or a raw terminal control.
  static func workflowCommand(in text: String, annotations: Bool = false) -> String? {
    forgedCommandLines(text, annotations: annotations).first
  }

  func outputFindings(_ out: String) -> [FuzzFinding] {
    var findings: [FuzzFinding] = []
    let writesStdout = !rawArguments.contains("-o") && !rawArguments.contains("--shard")
    if writesStdout, format == "table", out.unicodeScalars.contains(where: { $0 != "\n" && Self.isControl($0) }) {
      findings.append(.controlCharacterInTerminalOutput)
    }
    if format == "markdown", let markup = FuzzCase.unescapedMarkup(in: out).first { findings.append(.rawMarkup(markup)) }
    if let line = Self.workflowCommand(in: out, annotations: format == "github") { findings.append(.forgedWorkflowCommand(line)) }
    if format == "html" {
      for id in hostileIDs where id.contains("<") && out.contains(id) { findings.append(.rawMarkup(id)) }
    }
    return findings
  }

  static func isControl(_ s: Unicode.Scalar) -> Bool {
    s.value < 0x20 || (0x7F...0x9F).contains(s.value)
  }

  /// Markdown that a renderer would act on: raw HTML or an autolink (`<` then a
  /// letter, `/`, `!`, `?`), a link or image (`](`, `][`) — not escaped by a backslash.
  public static func unescapedMarkup(in markdown: String) -> [String] {
    let scalars = Array(markdown.unicodeScalars)
    var found: [String] = []
    for (i, s) in scalars.enumerated() {
      let escaped = i > 0 && scalars[i - 1] == "\\"
      let next = i + 1 < scalars.count ? scalars[i + 1] : " "
      if !escaped, s == "<", next.properties.isAlphabetic || "/!?".unicodeScalars.contains(next) { found.append("<\(next)") }
      if !escaped, s == "]", next == "(" || next == "[" { found.append("]\(next)") }
    }
    return found
  }
}
