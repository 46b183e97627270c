/// A level of a grid factor: a name and the patches that make it.
public struct GridLevel: Sendable, Hashable, Decodable {
  /// The level's name: the `level` in a cell's `factor=level` id; unique within its factor.
  public var id: String
  /// The changes to the base flow this level makes, applied in order; empty: the base flow as it is.
  public var patches: [Patch]

  /// A level; without patches it stands for the base flow.
  public init(id: String, patches: [Patch] = []) {
    self.id = id
    self.patches = patches
  }

  enum CodingKeys: String, CodingKey { case id, patches }

  /// Decodes `{"id": …, "patches": […]}`; `patches` may be omitted.
  public init(from decoder: any Decoder) throws {
    let c = try decoder.container(keyedBy: CodingKeys.self)
    id = try c.decode(String.self, forKey: .id)
    patches = try c.decodeIfPresent([Patch].self, forKey: .patches) ?? []
  }
}

/// A factor of a grid: alternatives for one aspect of the flow.
public struct GridFactor: Sendable, Hashable, Decodable {
  /// The factor's name: the `factor` in a cell's `factor=level` id; unique within the grid.
  public var id: String
  /// The alternatives, in the order cells enumerate them; at least one.
  public var levels: [GridLevel]

  /// A factor with these levels (validation requires at least one, with unique ids).
  public init(id: String, levels: [GridLevel]) {
    self.id = id
    self.levels = levels
  }

  enum CodingKeys: String, CodingKey { case id, levels }

  /// Decodes `{"id": …, "levels": […]}`; both are required.
  public init(from decoder: any Decoder) throws {
    let c = try decoder.container(keyedBy: CodingKeys.self)
    id = try c.decode(String.self, forKey: .id)
    levels = try c.decode([GridLevel].self, forKey: .levels)
  }
}

/// Factors crossed into variants: every combination of one level per factor.
///
/// A cell's variant id names its levels, `factor=level` joined by `,`
/// (`upsell=after3,goal=optional,default=monthly`); its patches are its levels'
/// patches in factor order. A level with no patches is the base flow's own.
public struct Grid: Sendable, Hashable, Decodable {
  /// The factors crossed, in order: the first varies slowest in ``variants()`` and comes first in cell ids.
  public var factors: [GridFactor]

  /// A grid of these factors (validation requires at least one, and at most ``Limits/gridCells`` cells).
  public init(factors: [GridFactor]) { self.factors = factors }

  enum CodingKeys: String, CodingKey { case factors }

  /// Decodes `{"factors": […]}`.
  public init(from decoder: any Decoder) throws {
    let c = try decoder.container(keyedBy: CodingKeys.self)
    factors = try c.decode([GridFactor].self, forKey: .factors)
  }

  /// Number of cells: the product of the level counts (`Int.max` when it overflows),
  /// computed without building them.
  public var cellCount: Int { Limits.product(factors.map(\.levels.count)) ?? Int.max }

  /// The cells as variants, in lexicographic order of level indices (first factor slowest).
  public func variants() -> [Variant] { cells().map(\.variant) }

  /// The cells, in the order of ``variants()``, each with the level it takes of every
  /// factor: reports read a cell's levels here, never out of its id.
  public func cells() -> [GridCell] { (0..<(factors.isEmpty ? 0 : cellCount)).map(cell(at:)) }

  /// The level index of every factor (in factor order) of cell `index` of ``cells()``: its
  /// mixed-radix digits, the first factor's the most significant.
  /// - Precondition: `0 <= index < cellCount`.
  public func levelIndices(ofCell index: Int) -> [Int] {
    var digits = [Int](repeating: 0, count: factors.count)
    var rest = index
    for f in factors.indices.reversed() {
      let count = max(factors[f].levels.count, 1)
      digits[f] = rest % count
      rest /= count
    }
    return digits
  }

  /// Cell `index` of ``cells()``, built alone: a grid of 10⁵ cells is read one cell at a time.
  /// - Precondition: `0 <= index < cellCount`.
  public func cell(at index: Int) -> GridCell {
    let chosen = zip(factors, levelIndices(ofCell: index)).map { factor, l in (factor, factor.levels[l]) }
    return GridCell(
      variant: Variant(id: cellID(at: index), summary: nil, patches: chosen.flatMap { $0.1.patches }),
      levels: chosen.map { ($0.0.id, $0.1.id) })
  }

  /// The id of cell `index` of ``cells()`` (`factor=level,…`), without its patches.
  /// - Precondition: `0 <= index < cellCount`.
  public func cellID(at index: Int) -> String {
    zip(factors, levelIndices(ofCell: index)).map { "\($0.id)=\($0.levels[$1].id)" }.joined(separator: ",")
  }

  func validationErrors(at path: SpecPath) -> [SpecError] {
    var errors: [SpecError] = []
    if factors.isEmpty { errors.append(SpecError(path: path.key("factors"), message: "a grid needs at least one factor", hint: nil)) }
    var ids = Set<String>()
    for (i, factor) in factors.enumerated() {
      let fp = path.key("factors").index(i)
      if !ids.insert(factor.id).inserted {
        errors.append(SpecError(path: fp.key("id"), message: "duplicate factor '\(factor.id)'", hint: nil))
      }
      if let error = SpecError.unprintable(id: factor.id, at: fp.key("id"), naming: "factor") { errors.append(error) }
      if factor.levels.isEmpty {
        errors.append(SpecError(path: fp.key("levels"), message: "factor '\(factor.id)' has no levels", hint: nil))
      }
      var levelIDs = Set<String>()
      for (j, level) in factor.levels.enumerated() {
        let lp = fp.key("levels").index(j).key("id")
        if !levelIDs.insert(level.id).inserted { errors.append(SpecError(path: lp, message: "duplicate level '\(level.id)'", hint: nil)) }
        if let error = SpecError.unprintable(id: level.id, at: lp, naming: "level") { errors.append(error) }
      }
    }
    if cellCount > Limits.gridCells {
      let count = cellCount == Int.max ? "more than 2^63" : "\(cellCount)"
      errors.append(
        SpecError(
          .limit, path: path, message: "the grid has \(count) cells; at most \(Limits.gridCells) are supported", hint: "use fewer levels"))
    }
    return errors
  }
}

/// One cell of a ``Grid``: the variant it runs and the level it takes of each factor.
public struct GridCell: Sendable {
  /// The cell as a variant: id `factor=level,factor=level`, the levels' patches in factor order.
  public var variant: Variant
  /// `(factor, level)` ids, in factor order.
  public var levels: [(factor: String, level: String)]

  /// A cell running `variant`, at `levels`.
  public init(variant: Variant, levels: [(factor: String, level: String)]) {
    self.variant = variant
    self.levels = levels
  }
}
