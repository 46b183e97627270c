/// The checksum every shard file and every baseline (`exact --format json`) carries, so that a
/// damaged or edited file is refused before its counts are merged or its values compared.
///
/// The checksum is FNV-1a 64 (offset basis `0xcbf29ce484222325`, prime `0x100000001b3`)
/// of the UTF-8 bytes of the document **without** its `"checksum"` member, written by
/// ``JSONWriter`` in compact form (members in file order, numbers as their literal
/// text), as 16 lower-case hex digits. Reformatting a file (indentation, line ends)
/// keeps it valid; changing any value, key or member order does not.
///
/// It detects accidental damage (truncation, a flipped digit) and edits made without
/// recomputing it; it is not a signature: anyone can recompute it, so it does not
/// protect against a deliberate forgery. Merges also check each file's counts for
/// internal consistency (see `FunnelAggregate.consistencyErrors(at:)`).
package enum ContentChecksum {
  /// The member that holds the checksum.
  package static let key = "checksum"

  /// 16 hex digits of a 64-bit value.
  package static func hex(_ value: UInt64) -> String {
    let digits = String(value, radix: 16)
    return String(repeating: "0", count: 16 - digits.count) + digits
  }

  /// The checksum of `document` (an object), ignoring any `"checksum"` member.
  package static func of(_ document: JSONValue) -> String {
    var body = document
    if case .object(let members) = document.kind { body = JSONValue(.object(members.filter { $0.key != key })) }
    return hex(HashAssignment.fnv1a64(JSONWriter.write(body, pretty: false)))
  }

  /// `document` (an object) with its checksum as the last member (replacing any).
  package static func sealing(_ document: JSONValue) -> JSONValue {
    guard case .object(let members) = document.kind else { return document }
    return JSONValue(.object(members.filter { $0.key != key } + [JSONValue.Member(key: key, value: .string(of(document)))]))
  }

  /// The problem, if any, with `document`'s checksum: missing, or not the content's.
  /// - Parameter again: how to make the file again (the hint of both problems).
  package static func error(in document: JSONValue, again: String = "run this shard again") -> SpecError? {
    guard case .string(let stored)? = document[key]?.kind else {
      return SpecError(
        path: [.key(key)], message: "the file has no checksum", hint: "\(again) with this version of funnellab")
    }
    let actual = of(document)
    guard stored == actual else {
      return SpecError(
        path: [.key(key)], message: "the checksum \(stored) does not match the content (\(actual))",
        hint: "the file was edited or damaged; \(again)")
    }
    return nil
  }
}
