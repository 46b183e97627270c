/// One stratum's users in one arm, reduced to the power sums that a covariate-adjusted
/// comparison with robust (HC0/HC1) standard errors needs: `Σ x′ᵃ yᵇ` for every
/// monomial of degree at most 4 in `x′` with `b ≤ 2`, where `x′ = x − shift` is the
/// pre-period covariate measured from the stratum's own reference point, and `y` is the
/// outcome (0/1 for a conversion).
///
/// Why degree 4: a robust variance sums `e²·(k + c·x′)²` over users, with the residual
/// `e = y − m − β·x′`, a polynomial of degree 4 in `(x′, y)`. Why a shift: raw power sums
/// of a covariate in the thousands lose every digit of the residual to cancellation;
/// measured from a point near the stratum's mean they do not. Producers that hold exact
/// integer sums (the simulator) shift exactly before converting to `Double`.
///
/// A stratum without a covariate has `x′ = 0` for everyone: every sum with `a ≥ 1` is 0.
public struct StratumSums: Sendable, Hashable {
  /// The monomials `x′ᵃyᵇ` kept, in the order of ``sums``.
  public static let monomials: [(x: Int, y: Int)] = [
    (0, 0), (1, 0), (2, 0), (3, 0), (4, 0),
    (0, 1), (1, 1), (2, 1), (3, 1),
    (0, 2), (1, 2), (2, 2),
  ]

  /// The covariate's reference point: `x′ = x − shift`.
  public var shift: Double
  /// `Σ x′ᵃyᵇ` for each of ``monomials``, in that order; the first is the user count.
  public var sums: [Double]

  /// Sums as given: `sums` in the order of ``monomials`` (12 values).
  public init(shift: Double, sums: [Double]) {
    self.shift = shift
    self.sums = sums
  }

  /// The sums of a stratum without a covariate: `users`, `Σy` and `Σy²`.
  public init(users: Double, sum: Double, sumOfSquares: Double) {
    var sums = [Double](repeating: 0, count: Self.monomials.count)
    sums[0] = users
    sums[5] = sum
    sums[9] = sumOfSquares
    self.init(shift: 0, sums: sums)
  }

  /// The sums of per-user `outcomes` and `covariates` (same length; `covariates` `nil`
  /// for none), measured from `shift` (default: the covariates' mean rounded to a whole number).
  public init(outcomes: [Double], covariates: [Double]?, shift: Double? = nil) {
    let x = covariates ?? [Double](repeating: 0, count: outcomes.count)
    let n = Double(outcomes.count)
    let reference = shift ?? (covariates == nil || outcomes.isEmpty ? 0 : (x.reduce(0, +) / n).rounded())
    var sums = [Double](repeating: 0, count: Self.monomials.count)
    for (y, raw) in zip(outcomes, x) {
      let d = raw - reference
      for (k, m) in Self.monomials.enumerated() { sums[k] += Self.power(d, m.x) * Self.power(y, m.y) }
    }
    self.init(shift: reference, sums: sums)
  }

  /// Adds one user with `outcome` and `covariate` (measured from ``shift`` here): what a
  /// reader of per-user rows streams, in bounded memory.
  public mutating func add(outcome y: Double, covariate x: Double) {
    let d = x - shift
    let d2 = d * d
    let y2 = y * y
    sums.withUnsafeMutableBufferPointer { s in
      s[0] += 1
      s[1] += d
      s[2] += d2
      s[3] += d2 * d
      s[4] += d2 * d2
      s[5] += y
      s[6] += d * y
      s[7] += d2 * y
      s[8] += d2 * d * y
      s[9] += y2
      s[10] += d * y2
      s[11] += d2 * y2
    }
  }

  /// Users in the stratum.
  public var users: Double { sums[0] }

  /// `Σ x′ᵃyᵇ`; 0 for a monomial that is not kept.
  public subscript(x a: Int, y b: Int) -> Double {
    guard let k = Self.monomials.firstIndex(where: { $0.x == a && $0.y == b }) else { return 0 }
    return sums[k]
  }

  private static func power(_ v: Double, _ k: Int) -> Double {
    var r = 1.0
    for _ in 0..<k { r *= v }
    return r
  }
}

/// A polynomial in `(x′, y)`, as coefficients by monomial: the terms of `e²·L²`.
struct _Polynomial {
  var terms: [Int: Double] = [:]

  static func key(_ x: Int, _ y: Int) -> Int { x * 8 + y }

  init(_ pairs: [(x: Int, y: Int, coefficient: Double)]) {
    for p in pairs { terms[Self.key(p.x, p.y), default: 0] += p.coefficient }
  }

  static func * (a: _Polynomial, b: _Polynomial) -> _Polynomial {
    var product = _Polynomial([])
    for (ka, ca) in a.terms {
      for (kb, cb) in b.terms {
        product.terms[ka + kb, default: 0] += ca * cb
      }
    }
    return product
  }

  /// `Σ_users p(x′, y)` from the stratum's sums, in a fixed order of monomials.
  func total(over stratum: StratumSums) -> Double {
    var s = 0.0
    for key in terms.keys.sorted() {
      guard let c = terms[key], c != 0 else { continue }
      s += c * stratum[x: key / 8, y: key % 8]
    }
    return s
  }
}
