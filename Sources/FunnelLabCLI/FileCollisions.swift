import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A file as the system knows it, so that two names of one file compare equal: its device and
/// inode after every symbolic link is followed (`/dev/stdin` and `/proc/self/fd/0` are such
/// links), or, for a file that does not exist yet, its absolute path with the folders'
/// links resolved.
package enum FileIdentity: Hashable, Sendable {
  /// An existing regular file.
  case inode(device: UInt64, inode: UInt64)
  /// A file to be created.
  case path(String)

  /// The identity of the file `path` names; `nil` for what is not a regular file or a file to
  /// be created (a device such as `/dev/null`, a pipe, a folder): those are read or written in
  /// place, never replaced, so they cannot collide.
  package init?(path: String) {
    var info = stat()
    if stat(path, &info) == 0 {
      guard let identity = Self(info) else { return nil }
      self = identity
      return
    }
    // Not there (or a dangling link): the file the command would create.
    var link = stat()
    guard lstat(path, &link) != 0 || (link.st_mode & S_IFMT) == S_IFLNK else { return nil }
    self = .path(Self.canonical(path))
  }

  /// The identity of the open descriptor `descriptor` (standard input: 0), when it is a regular file.
  init?(descriptor: Int32) {
    var info = stat()
    guard fstat(descriptor, &info) == 0, let identity = Self(info) else { return nil }
    self = identity
  }

  private init?(_ info: stat) {
    guard (info.st_mode & S_IFMT) == S_IFREG else { return nil }
    self = .inode(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))
  }

  /// `path` made absolute, its nearest existing folder's links resolved (`realpath`) and the
  /// rest standardised (`a/./b/../c` is `a/c`).
  static func canonical(_ path: String) -> String {
    var url = URL(fileURLWithPath: path).standardizedFileURL
    var rest: [String] = []
    while url.path != "/" {
      if let resolved = realpath(url.path, nil) {
        defer { free(resolved) }
        var canonical = URL(fileURLWithPath: String(cString: resolved))
        for component in rest.reversed() { canonical.appendPathComponent(component) }
        return canonical.path
      }
      rest.append(url.lastPathComponent)
      url = url.deletingLastPathComponent()
    }
    return "/" + rest.reversed().joined(separator: "/")
  }
}

/// Refuses (64, before anything is read or written) a command line whose outputs collide: an
/// output that is one of the inputs (by any name: another path, a symbolic link, `/dev/stdin`,
/// `/proc/self/fd/0`, or standard input redirected from it), or two outputs that are one file.
/// The files come from the declarations: every positional argument is read (`-` and, where the
/// command says so, no argument, is standard input), and each option says whether it reads or
/// writes (``OptionSpec/file``).
func refuseCollidingFiles(_ arguments: ParsedArguments, spec: CommandSpec, console: any Console) throws(UsageError) {
  var inputs: [(name: String, identity: FileIdentity)] = []
  func input(_ name: String, _ path: String) {
    let identity = path == "-" ? console.standardInputIdentity : FileIdentity(path: path)
    if let identity { inputs.append((name, identity)) }
  }
  for path in arguments.positionals { input(path == "-" ? "standard input" : path, path) }
  if arguments.positionals.isEmpty, spec.positionals.contains(where: \.standardInputWhenAbsent) { input("standard input", "-") }
  let options = spec.allOptions
  for option in options where option.file == .reads {
    for path in arguments.texts(of: option) { input("--\(option.name) \(path)", path) }
  }
  var outputs: [(option: String, path: String, identity: FileIdentity)] = []
  for option in options where option.file == .writes {
    for path in arguments.texts(of: option) where path != "-" {
      guard let identity = FileIdentity(path: path) else { continue }
      let shown = path.escapingControlCharacters
      if let input = inputs.first(where: { $0.identity == identity }) {
        let same = input.name == path ? "" : " (\(input.name.escapingControlCharacters))"
        throw UsageError(
          message: "--\(option.name) \(shown) is also an input\(same): writing it would replace what the command reads",
          hint: "write the result to another file")
      }
      if let other = outputs.first(where: { $0.identity == identity }) {
        throw UsageError(
          message:
            "--\(other.option) \(other.path.escapingControlCharacters) and --\(option.name) \(shown) are one file: one would replace the other",
          hint: "give each output its own file")
      }
      outputs.append(("\(option.name)", path, identity))
    }
  }
}
