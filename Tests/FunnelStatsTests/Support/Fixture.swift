import Foundation
import Testing

/// One reference case from a fixture file written by `Fixtures/make_reference.py`.
struct FixtureCase: Sendable, CustomTestStringConvertible, Decodable {
  let id: String
  let fn: String
  let args: [String]
  let expected: [String]

  var testDescription: String { "\(id) \(fn)(\(args.joined(separator: ", "))) = \(expected)" }

  func arg(_ i: Int) -> Double { Double(args[i]) ?? .nan }
  func int(_ i: Int) -> Int { Int(args[i]) ?? Int(Double(args[i]) ?? -1) }
  var value: Double { Double(expected[0]) ?? .nan }
  func value(_ i: Int) -> Double { Double(expected[i]) ?? .nan }
}

struct FixtureFile: Decodable {
  let meta: [String: String]
  let cases: [FixtureCase]
}

/// Why a fixture yields no cases: a parameterised test over it fails instead of
/// reporting "No test cases found" and passing (a filter that matched nothing once
/// skipped a reference test for two days).
struct FixtureError: Error, CustomStringConvertible {
  let description: String
}

enum Fixtures {
  static let directory = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Fixtures")

  /// Every case of a fixture file.
  ///
  /// - Throws: `FixtureError` when the file is missing, does not decode or holds no case.
  static func load(_ name: String) throws -> [FixtureCase] {
    let url = directory.appendingPathComponent(name)
    let file: FixtureFile
    do {
      file = try JSONDecoder().decode(FixtureFile.self, from: Data(contentsOf: url))
    } catch {
      throw FixtureError(description: "fixture \(name) cannot be read: \(error)")
    }
    guard !file.cases.isEmpty else { throw FixtureError(description: "fixture \(name) holds no case") }
    return file.cases
  }

  /// The cases of a fixture file whose function is exactly `fn`.
  ///
  /// - Throws: `FixtureError` when the file cannot be read or no case has that function.
  static func cases(_ name: String, fn: String) throws -> [FixtureCase] {
    try matching(name, "named '\(fn)'") { $0.fn == fn }
  }

  /// The cases of a fixture file whose function starts with `prefix`.
  ///
  /// - Throws: `FixtureError` when the file cannot be read or no case's function starts with `prefix`.
  static func cases(_ name: String, prefix: String) throws -> [FixtureCase] {
    try matching(name, "starting with '\(prefix)'") { $0.fn.hasPrefix(prefix) }
  }

  private static func matching(_ name: String, _ what: String, _ filter: (FixtureCase) -> Bool) throws -> [FixtureCase] {
    let all = try load(name)
    let kept = all.filter(filter)
    guard !kept.isEmpty else {
      let functions = Set(all.map(\.fn)).sorted().prefix(12).joined(separator: ", ")
      throw FixtureError(description: "no case of \(name) has a function \(what); it has \(functions)")
    }
    return kept
  }
}

/// Relative error with an absolute floor for expected zeros; equal infinities match.
func relativeError(_ got: Double, _ expected: Double, absoluteFloor: Double = 0) -> Double {
  if got == expected { return 0 }
  if got.isNaN || expected.isNaN { return .infinity }
  let diff = abs(got - expected)
  if diff <= absoluteFloor { return 0 }
  return diff / abs(expected)
}

/// `true` when `got` matches `expected` to `tolerance` (relative); prints the case otherwise.
func close(
  _ got: Double, _ expected: Double, _ tolerance: Double, absoluteFloor: Double = 0,
  _ label: @autoclosure () -> String
) -> Bool {
  let err = relativeError(got, expected, absoluteFloor: absoluteFloor)
  if err <= tolerance { return true }
  print("MISMATCH \(label()): got \(got) expected \(expected) relerr \(err) > tol \(tolerance)")
  return false
}
