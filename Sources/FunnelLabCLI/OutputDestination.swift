import Foundation
import FunnelLab

/// Writes a command's result to stdout or, with `-o FILE`, to a file. The file is
/// written whole, only after the command succeeded (no partial output): a temporary
/// file in the same folder is renamed over it. Missing parent folders are created.
struct OutputDestination {
  var path: String?

  static let option = OptionSpec(
    name: "output", short: "o", valueName: "file",
    help: "Write the result to this file instead of stdout (missing folders are created).")

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
    guard let path, path != "-" else {
      try body { console.out($0) }
      return
    }
    let type = try targetType(path)
    // A device such as /dev/null or /dev/stdout is written in place, not replaced.
    if let type, type != .typeRegular, type != .typeSymbolicLink {
      guard let handle = FileHandle(forWritingAtPath: path) else {
        throw failure("cannot open it for writing", hint: "check its permissions")
      }
      defer { try? handle.close() }
      try body { (text: String) throws(CommandFailure) in
        do { try handle.write(contentsOf: Data(text.utf8)) } catch { throw failure(Self.reason(error), hint: "check the device") }
      }
      return
    }
    let target = URL(fileURLWithPath: path)
    let folder = target.deletingLastPathComponent()
    try createFolder(folder)
    let temporary = folder.appendingPathComponent(".\(target.lastPathComponent).funnellab-\(ProcessInfo.processInfo.processIdentifier)")
    guard FileManager.default.createFile(atPath: temporary.path, contents: nil),
      let handle = FileHandle(forWritingAtPath: temporary.path)
    else {
      throw failure("cannot create a file in \(folder.path.escapingControlCharacters)", hint: "check that the folder is writable")
    }
    do throws(CommandFailure) {
      try body { (text: String) throws(CommandFailure) in
        do { try handle.write(contentsOf: Data(text.utf8)) } catch { throw failure(Self.reason(error), hint: "check the free space") }
      }
      try? handle.close()
      guard rename(temporary.path, target.path) == 0 else {
        throw failure(String(cString: strerror(errno)), hint: "check that the folder is writable")
      }
    } catch {
      try? handle.close()
      try? FileManager.default.removeItem(at: temporary)
      throw error
    }
  }

  /// The file type at `path` (`nil` when nothing is there).
  /// - Throws: when `path` is a folder.
  func targetType(_ path: String) throws(CommandFailure) -> FileAttributeType? {
    let type = (try? FileManager.default.attributesOfItem(atPath: path))?[.type] as? FileAttributeType
    if type == .typeDirectory { throw failure("a folder, not a file", hint: "give a file name, e.g. \(Self.join(path, "result.txt"))") }
    return type
  }

  /// Throws what ``write(_:console:)`` would throw before writing a byte (a folder as the target, a file or a
  /// folder that is not writable on the way), without creating anything: a command that writes two files checks
  /// both first, so that a failure leaves neither.
  func preflight() throws(CommandFailure) {
    guard let path, path != "-" else { return }
    if let type = try targetType(path), type != .typeRegular, type != .typeSymbolicLink { return }
    _ = try nearestExistingFolder(of: URL(fileURLWithPath: path).deletingLastPathComponent())
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
