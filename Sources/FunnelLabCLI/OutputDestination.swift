import Foundation

/// Writes a command's result to stdout or, with `-o FILE`, to a file. The file is
/// written whole, only after the command succeeded (no partial output).
struct OutputDestination {
  var path: String?

  static let option = OptionSpec(
    name: "output", short: "o", valueName: "file",
    help: "Write the result to this file instead of stdout.")

  func write(_ text: String, console: any Console) throws(CommandFailure) {
    guard let path, path != "-" else {
      console.out(text)
      return
    }
    let url = URL(fileURLWithPath: path)
    do {
      // An atomic write renames a temporary file over the target: right for a file,
      // but it would replace a device such as /dev/null with a regular file.
      let type = (try? FileManager.default.attributesOfItem(atPath: path))?[.type] as? FileAttributeType
      if let type, type != .typeRegular {
        guard let handle = FileHandle(forWritingAtPath: path) else { throw CocoaError(.fileWriteNoPermission) }
        defer { try? handle.close() }
        try handle.write(contentsOf: Data(text.utf8))
      } else {
        try Data(text.utf8).write(to: url, options: .atomic)
      }
    } catch {
      throw CommandFailure(
        code: .cannotCreateOutput,
        text: "Error: cannot write '\(path)': \(error.localizedDescription); check that its folder exists and is writable.\n")
    }
  }
}
