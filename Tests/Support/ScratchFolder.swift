package import Foundation

/// One folder for every file the tests write: `funnellab-tests-<pid>` under the system's
/// temporary folder, removed when the test process exits. A test asks for a fresh subfolder
/// (``scratchFolder(_:)``) instead of writing anywhere else, so a run leaves nothing behind,
/// in the repository or in `/tmp`.
package enum ScratchFolder {
  /// The process's scratch root; created on first use, with its removal registered at exit.
  package static let root: URL = {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("funnellab-tests-\(getpid())")
    try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    atexit { try? FileManager.default.removeItem(at: ScratchFolder.root) }
    return url
  }()
}

/// A new, empty folder under the process's scratch root (``ScratchFolder/root``).
///
/// - Parameter label: a readable prefix of the folder's name.
/// - Throws: the file system's error when the folder cannot be created.
package func scratchFolder(_ label: String = "case") throws -> URL {
  let url = ScratchFolder.root.appendingPathComponent("\(label)-\(UUID().uuidString)")
  try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
  return url
}
