import Foundation
import FunnelLab

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Writes a command's result to stdout or, with `-o FILE`, to a file. The file is
/// written whole, only after the command succeeded (no partial output): a temporary
/// file in the same folder is renamed over it. Missing parent folders are created.
struct OutputDestination {
  var path: String?

  /// `--output`, `-o`: every command's that writes a result.
  static let option = Option<String?>.text(
    "output", short: "o", valueName: "file",
    help: "Write the result to this file instead of stdout (missing folders are created).", file: .writes)

  func write(_ text: String, console: any Console) throws(CommandFailure) {
    try stream(console: console) { (emit: (String) throws(CommandFailure) -> Void) throws(CommandFailure) in try emit(text) }
    if let path, let note = Self.formatNote(path: path, text: text) { console.err(note) }
  }

  /// A note when the file's name promises HTML or JSON but the text is not (`-o report.html` without
  /// `--format html` writes the terminal table): the format follows `--format`, never the name.
  static func formatNote(path: String, text: String) -> String? {
    let named: String
    let matches: Bool
    switch URL(fileURLWithPath: path).pathExtension.lowercased() {
    case "html", "htm": (named, matches) = ("html", text.hasPrefix("<!DOCTYPE html") || text.hasPrefix("<html"))
    case "json": (named, matches) = ("json", text.hasPrefix("{") || text.hasPrefix("["))
    default: return nil
    }
    guard !matches else { return nil }
    let word = named == "html" ? "HTML" : "JSON"
    return "Note: \(path.escapingControlCharacters) is named .\(named) but is not \(word); the format follows --format, "
      + "so add --format \(named) for \(word).\n"
  }

  /// Produces the output piece by piece through `body`'s `emit`: to stdout as it
  /// comes, or to a temporary file renamed over the target when `body` returns (on
  /// a failure the temporary file is removed and the target is untouched).
  func stream(
    console: any Console, _ body: (_ emit: (String) throws(CommandFailure) -> Void) throws(CommandFailure) -> Void
  ) throws(CommandFailure) {
    try stage(console: console, body)?.commit()
  }

  /// Where a result goes: standard output, a device or pipe written in place, or a regular file replaced whole.
  enum Target {
    case standardOutput
    case inPlace(String)
    /// The file to replace: the file a symbolic link names, so that the link stays.
    case replace(URL)
  }

  /// The target of ``path``, links followed.
  /// - Throws: when `path` is a folder.
  func target() throws(CommandFailure) -> Target {
    guard let path, path != "-" else { return .standardOutput }
    var info = stat()
    guard stat(path, &info) == 0 else { return .replace(URL(fileURLWithPath: path)) }
    switch info.st_mode & S_IFMT {
    case S_IFDIR: throw failure("a folder, not a file", hint: "give a file name, e.g. \(Self.join(path, "result.txt"))")
    case S_IFREG:
      guard let resolved = realpath(path, nil) else { return .replace(URL(fileURLWithPath: path)) }
      defer { free(resolved) }
      return .replace(URL(fileURLWithPath: String(cString: resolved)))
    // A device such as /dev/null or /dev/stdout, or a pipe, is written in place, never replaced.
    default: return .inPlace(path)
    }
  }

  /// Writes the output through `body`'s `emit`: to standard output or a device as it comes, or to a
  /// temporary file beside the target file.
  /// - Returns: the temporary file, for the caller to rename over the target (``StagedFile/commit()``)
  ///   or remove; `nil` when the output was written in place.
  func stage(
    console: any Console, _ body: (_ emit: (String) throws(CommandFailure) -> Void) throws(CommandFailure) -> Void
  ) throws(CommandFailure) -> StagedFile? {
    let target: URL
    switch try self.target() {
    case .standardOutput:
      try body { console.out($0) }
      return nil
    case .inPlace(let device):
      guard let handle = FileHandle(forWritingAtPath: device) else {
        throw failure("cannot open it for writing", hint: "check its permissions")
      }
      defer { try? handle.close() }
      try body { (text: String) throws(CommandFailure) in
        do { try handle.write(contentsOf: Data(text.utf8)) } catch { throw failure(Self.reason(error), hint: "check the device") }
      }
      return nil
    case .replace(let url): target = url
    }
    let folder = target.deletingLastPathComponent()
    try createFolder(folder)
    let temporary = folder.appendingPathComponent(".\(target.lastPathComponent).funnellab-\(ProcessInfo.processInfo.processIdentifier)")
    guard FileManager.default.createFile(atPath: temporary.path, contents: nil),
      let handle = FileHandle(forWritingAtPath: temporary.path)
    else {
      throw failure("cannot create a file in \(folder.path.escapingControlCharacters)", hint: "check that the folder is writable")
    }
    let staged = StagedFile(temporary: temporary, target: target, destination: self)
    do throws(CommandFailure) {
      try body { (text: String) throws(CommandFailure) in
        do { try handle.write(contentsOf: Data(text.utf8)) } catch { throw failure(Self.reason(error), hint: "check the free space") }
      }
      do { try handle.close() } catch { throw failure(Self.reason(error), hint: "check the free space") }
    } catch {
      try? handle.close()
      staged.discard()
      throw error
    }
    return staged
  }

  /// Throws what ``write(_:console:)`` would throw before writing a byte (a folder as the target, a file or a
  /// folder that is not writable on the way), without creating anything: a command that writes two files checks
  /// both first, so that a failure leaves neither.
  func preflight() throws(CommandFailure) {
    guard case .replace(let target) = try target() else { return }
    _ = try nearestExistingFolder(of: target.deletingLastPathComponent())
  }

  /// The nearest existing folder on the way to `folder`, checked to be a writable folder (to name the real problem).
  func nearestExistingFolder(of folder: URL) throws(CommandFailure) -> URL {
    var existing = folder.standardizedFileURL
    var isFolder: ObjCBool = false
    while !FileManager.default.fileExists(atPath: existing.path, isDirectory: &isFolder), existing.path != "/" {
      existing = existing.deletingLastPathComponent()
    }
    let name = existing.path.escapingControlCharacters
    guard isFolder.boolValue else { throw failure("\(name) is a file, not a folder", hint: "choose another path") }
    guard access(existing.path, W_OK) == 0 else { throw failure("the folder \(name) is not writable", hint: "check its permissions") }
    return existing
  }

  /// Creates `folder` and its missing parents, after checking that the nearest
  /// existing one is a writable folder.
  func createFolder(_ folder: URL) throws(CommandFailure) {
    let existing = try nearestExistingFolder(of: folder)
    guard existing != folder.standardizedFileURL else { return }
    do {
      try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    } catch {
      throw failure("cannot create the folder \(folder.path.escapingControlCharacters) (\(Self.reason(error)))", hint: "check the path")
    }
  }

  func failure(_ problem: String, hint: String) -> CommandFailure {
    CommandFailure(
      code: .cannotCreateOutput, text: "Error: cannot write '\((path ?? "").escapingControlCharacters)': \(problem); \(hint).\n")
  }

  /// The POSIX reason of a Foundation error, else its description.
  static func reason(_ error: any Error) -> String {
    let ns = error as NSError
    if let underlying = ns.userInfo[NSUnderlyingErrorKey] as? NSError, underlying.domain == NSPOSIXErrorDomain {
      return String(cString: strerror(Int32(underlying.code)))
    }
    if ns.domain == NSPOSIXErrorDomain { return String(cString: strerror(Int32(ns.code))) }
    return ns.localizedDescription
  }

  static func join(_ folder: String, _ name: String) -> String {
    folder.hasSuffix("/") ? folder + name : folder + "/" + name
  }
}

/// An output written to a temporary file beside its target and not yet renamed over it: what
/// ``OutputDestination/stage(console:_:)`` returns, so that a command with several outputs
/// replaces none of them until every one is written (``OutputSet``).
struct StagedFile {
  var temporary: URL
  var target: URL
  var destination: OutputDestination

  /// Renames the temporary file over the target (an atomic replacement within one folder).
  func commit() throws(CommandFailure) {
    guard rename(temporary.path, target.path) == 0 else {
      let reason = String(cString: strerror(errno))
      discard()
      throw destination.failure(reason, hint: "check that the folder is writable")
    }
  }

  /// Removes the temporary file; the target stays as it was.
  func discard() { try? FileManager.default.removeItem(at: temporary) }
}

/// The results of a command that writes several files (`check -o … --junit … --update-baseline …`,
/// `calibrate -o … --write-spec …`, `infer -o … --report …`), written all or nothing: every file
/// first to a temporary file beside it, then standard output and devices, and only when all of
/// that succeeded is each temporary file renamed over its target. On a failure no earlier file is
/// replaced and no temporary file is left.
struct OutputSet {
  private var items: [(destination: OutputDestination, text: String)] = []

  /// An empty set.
  init() {}

  /// Adds `text`, to be written to `destination`.
  mutating func add(_ text: String, to destination: OutputDestination) { items.append((destination, text)) }

  /// Writes every result, all or nothing (see the type), with each file's format note.
  /// - Throws: ``CommandFailure`` (73) naming the first output that could not be written.
  func write(console: any Console) throws(CommandFailure) {
    for item in items { try item.destination.preflight() }
    var staged: [StagedFile] = []
    var inPlace: [(destination: OutputDestination, text: String)] = []
    do throws(CommandFailure) {
      for item in items {
        guard case .replace = try item.destination.target() else {
          inPlace.append(item)
          continue
        }
        let text = item.text
        if let file = try item.destination.stage(console: console, { (emit) throws(CommandFailure) in try emit(text) }) {
          staged.append(file)
        }
      }
      for item in inPlace {
        let text = item.text
        try item.destination.stream(console: console) { (emit) throws(CommandFailure) in try emit(text) }
      }
    } catch {
      for file in staged { file.discard() }
      throw error
    }
    for (k, file) in staged.enumerated() {
      do throws(CommandFailure) {
        try file.commit()
      } catch {
        for rest in staged[(k + 1)...] { rest.discard() }
        throw error
      }
    }
    for item in items {
      if let path = item.destination.path, let note = OutputDestination.formatNote(path: path, text: item.text) { console.err(note) }
    }
  }
}
