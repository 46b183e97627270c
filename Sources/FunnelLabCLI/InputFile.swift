import Foundation
import FunnelLab

/// The inputs a command reads: `-` for standard input, or any readable path (a file,
/// a pipe or FIFO, `/dev/stdin`, a process substitution such as `<(jq …)`).
enum InputFile {
  /// How `path` is named in messages.
  static func displayName(_ path: String) -> String {
    path == "-" ? "standard input" : path.escapingControlCharacters
  }

  /// The UTF-8 text of the input `path` (read once: standard input is consumed).
  /// - Throws: a failure with exit 66 when it cannot be read (missing, a folder, no
  ///   permission) or 65 when what was read is not UTF-8 text or too large.
  static func read(_ path: String, console: any Console) throws(CommandFailure) -> String {
    do throws(TextInputError) {
      guard path == "-" else { return try TextInput.read(path) }
      guard let bytes = console.readStandardInput() else { throw TextInputError.unreadable(reason: "standard input is closed") }
      return try TextInput.text(bytes)
    } catch {
      throw failure(path, error)
    }
  }

  /// The message and exit code for an input that cannot be read as text.
  /// Streams the lines of the file at `path` (`-`: standard input) to `line`, one chunk at
  /// a time (memory holds one line), with a progress bar on a terminal; stops early when
  /// `goOn` turns false or a line is too long to be a line, and calls `finish` when it read
  /// to the end.
  /// - Returns: why the reading stopped before the end (a line too long), if it did.
  static func streamLines(
    _ path: String, label: String, console: any Console, line: (Int, LineReader.Line) -> Void, goOn: () -> Bool,
    finish: () -> Void
  ) throws(CommandFailure) -> (line: Int, message: String)? {
    var reader = LineReader()
    let size = path == "-" ? nil : (try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int
    let progress = ProgressBar(console: console, label: label, enabled: (size ?? 0) > 0, unit: "bytes")
    var done = 0
    func chunk(_ bytes: ArraySlice<UInt8>) -> Bool {
      reader.feed(bytes, line)
      done += bytes.count
      progress.update(done: min(done, size ?? done), total: size ?? done)
      return reader.stopped == nil && goOn()
    }
    defer { progress.finish() }
    if path == "-" {
      guard console.readStandardInput(chunks: chunk) else { throw InputFile.failure(path, .unreadable(reason: "standard input is closed")) }
    } else {
      do throws(TextInputError) {
        try TextInput.chunks(path, chunk)
      } catch {
        throw InputFile.failure(path, error)
      }
    }
    if reader.stopped == nil, goOn() {
      reader.finish(line)
      finish()
    }
    return reader.stopped
  }

  static func failure(_ path: String, _ error: TextInputError) -> CommandFailure {
    let (message, hint) = error.messageAndHint
    let extra = error == .missing && path.hasPrefix("experiments/") ? "; the seed experiments are in experiments/" : ""
    return CommandFailure(
      code: error.isUnreadable ? .noInput : .invalidInput, text: "Error: \(displayName(path)): \(message); \(hint)\(extra).\n")
  }
}

/// A spec as read: where from, its text (what a shard file records) and the experiment.
struct LoadedSpec {
  var source: String
  var text: String
  var experiment: Experiment

  /// The spec named by the first positional argument, or the built-in default.
  static func load(_ arguments: ParsedArguments, console: any Console) throws(CommandFailure) -> LoadedSpec {
    guard let path = arguments.positionals.first else {
      return try load(text: ExperimentLoader.defaultExperimentText, source: "built-in klick-onboarding")
    }
    return try load(path, console: console)
  }

  /// The spec at `path` (`-`: standard input).
  static func load(_ path: String, console: any Console) throws(CommandFailure) -> LoadedSpec {
    try load(text: InputFile.read(path, console: console), source: InputFile.displayName(path))
  }

  static func load(text: String, source: String) throws(CommandFailure) -> LoadedSpec {
    do {
      return LoadedSpec(source: source, text: text, experiment: try ExperimentLoader.load(text: text, source: source))
    } catch {
      throw CommandFailure.invalid(error)
    }
  }

  /// The specs at `paths`, skipping JSON Schemas (a shell glob `experiments/*.json`
  /// includes `experiments/schema.json`) with a note on stderr; each spec that
  /// cannot be loaded is a failure, and the others are still loaded.
  static func loadAll(_ paths: [String], console: any Console) -> [Result<LoadedSpec, CommandFailure>] {
    var specs: [Result<LoadedSpec, CommandFailure>] = []
    for path in paths {
      do {
        let text = try InputFile.read(path, console: console)
        if isJSONSchema(text) {
          console.err("note: skipping \(InputFile.displayName(path)): a JSON Schema, not an experiment\n")
          continue
        }
        specs.append(.success(try load(text: text, source: InputFile.displayName(path))))
      } catch {
        specs.append(.failure(error))
      }
    }
    return specs
  }

  /// Whether `text` is a JSON Schema: its `$schema` names json-schema.org.
  static func isJSONSchema(_ text: String) -> Bool {
    guard let document = try? JSONParser.parse(text), case .string(let schema)? = document["$schema"]?.kind else { return false }
    return schema.contains("json-schema.org")
  }
}
