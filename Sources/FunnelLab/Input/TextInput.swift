import Foundation

#if canImport(Glibc)
  import Glibc
  private let systemRead = Glibc.read
#elseif canImport(Darwin)
  import Darwin
  private let systemRead = Darwin.read
#endif

/// Why an input file could not be read as text.
package enum TextInputError: Error, Sendable, Hashable {
  /// Nothing exists at the path.
  case missing
  /// The path names a folder.
  case folder
  /// The file exists but cannot be opened or read (permissions, I/O error).
  case unreadable(reason: String)
  /// The bytes are not UTF-8; `offset` is the first invalid byte.
  case notUTF8(offset: Int)
  /// The input is larger than ``TextInput/maximumBytes``.
  case tooLarge

  /// Whether the problem is that the input cannot be read at all (exit 66) rather
  /// than that what was read is not valid text (exit 65).
  package var isUnreadable: Bool {
    switch self {
    case .missing, .folder, .unreadable: true
    case .notUTF8, .tooLarge: false
    }
  }

  /// The kind of the ``SpecError`` reporting it: ``SpecError/Kind/unreadable`` when
  /// ``isUnreadable``, ``SpecError/Kind/limit`` when too large, else ``SpecError/Kind/syntax``.
  package var specErrorKind: SpecError.Kind {
    switch self {
    case .missing, .folder, .unreadable: .unreadable
    case .notUTF8: .syntax
    case .tooLarge: .limit
    }
  }

  /// The problem in a few words, then what to do.
  package var messageAndHint: (message: String, hint: String) {
    switch self {
    case .missing: ("no such file", "check the path")
    case .folder: ("a folder, not a file", "name a file in it")
    case .unreadable(let reason): ("cannot read the file (\(reason))", "check its permissions")
    case .notUTF8(let offset): ("not UTF-8 text (invalid byte at offset \(offset))", "save it as UTF-8")
    case .tooLarge: ("larger than \(TextInput.maximumBytes >> 20) MiB", "inputs are specs and counts, not raw data")
    }
  }
}

/// Reads a whole input as UTF-8 text from any readable path: a regular file, a pipe
/// or FIFO, `/dev/stdin`, a process substitution (`<(jq …)`), or an open descriptor.
///
/// `FileManager.contents(atPath:)` fails on anything but a regular file; this reads
/// with `open`/`read` until end of file, and names what went wrong.
package enum TextInput {
  /// The largest input read (256 MiB): guards against `/dev/zero` and the like.
  package static let maximumBytes = 256 << 20

  /// The UTF-8 text at `path`.
  package static func read(_ path: String) throws(TextInputError) -> String {
    try withDescriptor(path) { fd throws(TextInputError) in try read(descriptor: fd) }
  }

  /// The bytes at `path` in chunks of 64 KiB, to `body`, until the end or until `body`
  /// returns `false`; any size (nothing is kept between chunks).
  package static func chunks(_ path: String, _ body: (ArraySlice<UInt8>) -> Bool) throws(TextInputError) {
    try withDescriptor(path) { fd throws(TextInputError) in try chunks(descriptor: fd, body) }
  }

  /// `body` with `path` open for reading.
  private static func withDescriptor<T>(_ path: String, _ body: (Int32) throws(TextInputError) -> T) throws(TextInputError) -> T {
    var info = stat()
    guard stat(path, &info) == 0 else {
      throw errno == ENOENT || errno == ENOTDIR ? .missing : .unreadable(reason: String(cString: strerror(errno)))
    }
    if info.st_mode & S_IFMT == S_IFDIR { throw .folder }
    let fd = open(path, O_RDONLY)
    guard fd >= 0 else { throw .unreadable(reason: String(cString: strerror(errno))) }
    defer { close(fd) }
    return try body(fd)
  }

  /// The UTF-8 text read from an open descriptor until end of file.
  package static func read(descriptor fd: Int32) throws(TextInputError) -> String {
    try text(bytes(descriptor: fd))
  }

  /// The bytes read from an open descriptor until end of file (at most ``maximumBytes``).
  package static func bytes(descriptor fd: Int32) throws(TextInputError) -> [UInt8] {
    var bytes: [UInt8] = []
    var tooLarge = false
    try chunks(descriptor: fd) { chunk in
      guard bytes.count + chunk.count <= maximumBytes else {
        tooLarge = true
        return false
      }
      bytes += chunk
      return true
    }
    if tooLarge { throw .tooLarge }
    return bytes
  }

  /// The bytes read from an open descriptor in chunks of 64 KiB, to `body`, until end of
  /// file or until `body` returns `false`.
  package static func chunks(descriptor fd: Int32, _ body: (ArraySlice<UInt8>) -> Bool) throws(TextInputError) {
    var chunk = [UInt8](repeating: 0, count: 1 << 16)
    while true {
      let n = chunk.withUnsafeMutableBytes { buffer in systemRead(fd, buffer.baseAddress, buffer.count) }
      if n == 0 { return }
      if n < 0 {
        if errno == EINTR { continue }
        throw errno == EISDIR ? .folder : .unreadable(reason: String(cString: strerror(errno)))
      }
      if !body(chunk[0..<n]) { return }
    }
  }

  /// `bytes` as text; a leading byte order mark is kept (the CSV reader skips it; the JSON parser reports it).
  package static func text(_ bytes: [UInt8]) throws(TextInputError) -> String {
    var iterator = bytes.makeIterator()
    var decoder = UTF8()
    var offset = 0
    loop: while true {
      switch decoder.decode(&iterator) {
      case .scalarValue(let scalar): offset += UTF8.width(scalar)
      case .emptyInput: break loop
      case .error: throw .notUTF8(offset: offset)
      }
    }
    return String(decoding: bytes, as: UTF8.self)
  }
}

/// A whole number written in decimal: digits with an optional sign and `_`
/// separators (`1_000_000`), or scientific notation when whole (`1e6`). Hexadecimal
/// (`0x10`, which `Double` would read as 16), `inf` and `nan` are refused.
package func decimalInteger(_ text: String) -> Int? {
  let cleaned = text.filter { $0 != "_" }
  guard let first = cleaned.first, first != "_", cleaned.allSatisfy({ "0123456789+-eE.".contains($0) }) else { return nil }
  if let n = Int(cleaned) { return n }
  guard let d = Double(cleaned), d.isFinite, d == d.rounded(), abs(d) <= 9e15 else { return nil }
  return Int(rounding: d)
}

/// A finite number written in decimal (`0.05`, `-1.5e-3`); hexadecimal floats,
/// `inf` and `nan` are refused.
package func decimalNumber(_ text: String) -> Double? {
  guard !text.isEmpty, text.allSatisfy({ "0123456789+-eE.".contains($0) }), let x = Double(text), x.isFinite else { return nil }
  return x
}
