package import FunnelLab

/// Renders a ``Sensitivity`` analysis as a table (one row per point, flips marked)
/// or as JSON chart data (schema version ``schemaVersion``).
package enum SensitivityRenderer {
  /// The `schemaVersion` written by ``json(_:)``.
  package static let schemaVersion = 1

  static func f(_ x: Double?) -> String { x.map(CheckRenderer.format) ?? "n/a" }

  static func pad(_ s: String, _ width: Int) -> String {
    s.count >= width ? s : s + String(repeating: " ", count: width - s.count)
  }

  /// One row per grid point (the axes' values, each variant's exact metric value, the winner), `← flip` where
  /// the winner changes along the last axis, then each flip with its bisected tie point, or `No flip`.
  package static func table(_ s: Sensitivity) -> String {
    var out = "\(s.experiment) · sensitivity of the winner on \(s.metric.rawValue) (exact engine, no sampling noise)\n\n"
    let columns = s.axes.map(\.parameter.rawValue) + s.variants + ["winner"]
    let widths = columns.map { max($0.count, 9) }
    out += ("  " + zip(columns, widths).map { pad($0, $1) }.joined(separator: "  ")).replacingTrailingSpaces() + "\n"
    var previous: Sensitivity.Point?
    for p in s.points {
      let cells = p.values.map { f($0) } + p.metricValues.map { f($0) } + [p.winner]
      var line = "  " + zip(cells, widths).map { pad($0, $1) }.joined(separator: "  ")
      if let previous, previous.values.dropLast() == p.values.dropLast(), previous.winner != p.winner { line += "  ← flip" }
      out += line.replacingTrailingSpaces() + "\n"
      previous = p
    }
    out += "\n"
    if s.flips.isEmpty {
      out += "No flip: \(s.points.first?.winner ?? "—") wins everywhere.\n"
    } else {
      for flip in s.flips {
        let fixed = zip(s.axes.dropLast(), flip.fixed).map { "\($0.parameter.rawValue) = \(f($1))" }.joined(separator: ", ")
        out += "Flip: \(flip.from) → \(flip.to) at \(flip.parameter.rawValue) ≈ \(f(flip.at))"
        out += " (between \(f(flip.between.lowerBound)) and \(f(flip.between.upperBound)))" + (fixed.isEmpty ? "" : " with \(fixed)") + "\n"
      }
    }
    return out
  }

  /// Chart data as pretty-printed JSON (`command` `"sensitivity"`): the axes and their values, every point's
  /// metric per variant (`null` when undefined) and winner, and the flips with their bracket and tie point.
  package static func json(_ s: Sensitivity) -> String {
    let document = JSONReportHead(schemaVersion: schemaVersion, command: "sensitivity", experiment: s.experiment).document([
      ("metric", .string(s.metric.rawValue)),
      ("variants", .array(s.variants.map { .string($0) })),
      (
        "axes",
        .array(s.axes.map { .object([("parameter", .string($0.parameter.rawValue)), ("values", .array($0.values.map { .number($0) }))]) })
      ),
      (
        "points",
        .array(
          s.points.map { p in
            .object([
              ("values", .array(p.values.map { .number($0) })),
              ("metric", .array(p.metricValues.map { $0.map { .number($0) } ?? .null })),
              ("winner", .string(p.winner)),
            ])
          })
      ),
      (
        "flips",
        .array(
          s.flips.map { flip in
            .object([
              ("parameter", .string(flip.parameter.rawValue)),
              ("fixed", .array(flip.fixed.map { .number($0) })),
              ("between", .array([.number(flip.between.lowerBound), .number(flip.between.upperBound)])),
              ("at", .number(flip.at)),
              ("from", .string(flip.from)),
              ("to", .string(flip.to)),
            ])
          })
      ),
    ])
    return JSONWriter.write(document)
  }
}

extension String {
  fileprivate func replacingTrailingSpaces() -> String {
    var s = self
    while s.last == " " { s.removeLast() }
    return s
  }
}
