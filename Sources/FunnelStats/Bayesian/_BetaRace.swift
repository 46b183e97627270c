import Foundation

/// `P(arm j has the largest rate)` for Beta posteriors with both shapes ≥ 1, to ~1e-12
/// relative for every value above ~1e-300, at any number of users.
///
/// ```
/// P(j largest) = ∫ f_j(x) Π_{i≠j} F_i(x) dx      (solved as P(j smallest) = ∫ f_j Π S_i on
///                                                  1 − x when the race is run near 1)
/// ```
/// Why it is precise: the race is integrated on whichever side of ½ it runs, where doubles
/// resolve the posteriors' width (near 1, 1 − x would be rounded to 1e-16 absolute); panels
/// follow each density — at most half a standard deviation wide near the mean and so that the
/// log-density changes by at most 8 in the tails — out to where it has fallen by e⁻⁷⁴⁵; CDFs
/// come from the continued fraction, which converges in a few dozen terms away from the mean,
/// except within six standard deviations of the mean of a posterior with both shapes ≥ 20, where it would need
/// O(√n) terms and they are accumulated instead by integrating the density over the same
/// panels (a 10-point Gauss–Legendre integration matrix); a product of CDFs that underflows
/// stops the node early, and CDFs that equal 1 to 1e-23 are not evaluated.
///
/// - Complexity: O(panels × overlapping arms): a few hundred panels per arm, independent of
///   the number of users.
struct _BetaRace {
  /// One posterior with its support and the panels' spacing.
  struct Arm {
    var d: BetaDistribution
    var mean: Double
    var sd: Double
    /// Where `log f ≥ log f(mode) − 745`.
    var lo: Double
    var hi: Double
    /// The region accumulated by integration (empty for small posteriors).
    var coreLo: Double
    var coreHi: Double
    /// Left of this F is 0 and S is 1, right of `certainAbove` F is 1 (to 1e-30).
    var certainBelow: Double
    var certainAbove: Double

    init(_ d: BetaDistribution) {
      self.d = d
      mean = d.mean
      sd = d.variance.squareRoot()
      let a = d.alpha
      let b = d.beta
      let mode = a == 1 && b == 1 ? 0.5 : (a == 1 ? 0 : (b == 1 ? 1 : (a - 1) / (a + b - 2)))
      let peak = mode == 0 || mode == 1 ? log(d.pdf(mode)) : d.logPDF(mode)
      let cut = peak - 745
      let density = d
      // logPDF is finite strictly inside (0, 1); at the ends the density is 0 here (shapes > 1).
      let edge = Double.leastNormalMagnitude
      let inner = min(max(mode, edge), 1.0.nextDown)
      lo = mode == 0 ? 0 : _MonotoneRoot.solve(lower: edge, upper: inner) { density.logPDF($0) - cut } ?? 0
      hi = mode == 1 ? 1 : _MonotoneRoot.solve(lower: inner, upper: 1.0.nextDown) { density.logPDF($0) - cut } ?? 1
      let large = min(a, b) >= 20
      coreLo = large ? max(mean - 6 * sd, lo) : 0
      coreHi = large ? min(mean + 6 * sd, hi) : 0
      // Beyond 12 standard deviations of a near-normal posterior a tail is below 1e-30.
      certainBelow = large ? mean - 12 * sd : -1
      certainAbove = large ? mean + 12 * sd : 2
    }

    /// The panels' breakpoints of this density within `[from, to]`.
    func breakpoints(from: Double, to: Double) -> [Double] {
      var points = [max(from, lo), min(to, hi)]
      if coreHi > coreLo { points += [coreLo, coreHi] }
      let start = min(max(mean, lo), hi)
      for direction in [-1.0, 1.0] {
        var x = start
        for _ in 0..<4000 {
          let slope = abs((d.alpha - 1) / x - (d.beta - 1) / (1 - x))
          var h = 8 / max(slope, 1e-300)
          if abs(x - mean) < 3 * sd || (x > coreLo && x < coreHi) { h = min(h, sd / 2) }
          x += direction * h
          // Stop only when the walk leaves the range outward: a mean below `from` (or above
          // `to`) still needs the points on the far side, where the density's tail runs.
          if direction < 0 ? x <= max(from, lo) : x >= min(to, hi) { break }
          if x > from && x < to { points.append(x) }
        }
      }
      return points.filter { $0 >= from && $0 <= to }
    }
  }

  var arms: [Arm]
  /// Whether the race is run on `1 − x` (rates near 1).
  var flipped: Bool

  init(_ posteriors: [BetaDistribution]) {
    let means = posteriors.map(\.mean)
    let flip = (means.max() ?? 0) > 0.5
    flipped = flip
    arms = posteriors.map { Arm(flip ? BetaDistribution(alpha: $0.beta, beta: $0.alpha) : $0) }
  }

  /// The panels over `[from, to]`: every arm's breakpoints, merged and thinned so that
  /// neighbours are at least a quarter of the local spacing apart.
  static func panels(_ arms: [Arm], from: Double, to: Double) -> [Double] {
    var candidates: [(x: Double, spacing: Double)] = []
    for arm in arms where arm.hi > from && arm.lo < to {
      let points = arm.breakpoints(from: from, to: to).sorted()
      for (k, x) in points.enumerated() {
        let gap = k + 1 < points.count ? points[k + 1] - x : (k > 0 ? x - points[k - 1] : to - from)
        candidates.append((x, gap))
      }
    }
    candidates.append((from, 0))
    candidates.append((to, 0))
    candidates.sort { $0.x < $1.x }
    var kept: [Double] = []
    for c in candidates {
      if let last = kept.last, c.x - last < 0.25 * c.spacing || c.x <= last { continue }
      kept.append(c.x)
    }
    if let last = kept.last, last < to { kept.append(to) }
    return kept
  }
}

extension _BetaRace {
  /// 10-point Gauss–Legendre nodes and weights on [−1, 1], and the integration matrix
  /// `S[m][n] = ∫_{−1}^{t_m} ℓ_n(t) dt` of the Lagrange basis on the nodes, from the
  /// Legendre expansion `ℓ_n(t) = w_n Σ_k (2k+1)/2 P_k(t_n) P_k(t)` (exact for degree ≤ 9).
  static let integration: (nodes: [Double], weights: [Double], matrix: [[Double]]) = {
    let (nodes, weights) = _Quadrature.rule
    let n = nodes.count
    func legendre(_ x: Double) -> [Double] {
      var p = [1.0, x]
      for k in 1...n { p.append(((2 * Double(k) + 1) * x * p[k] - Double(k) * p[k - 1]) / (Double(k) + 1)) }
      return p
    }
    let at = nodes.map(legendre)
    var matrix = [[Double]](repeating: [Double](repeating: 0, count: n), count: n)
    for m in 0..<n {
      for k in 0..<n {
        var total = (nodes[m] + 1) / 2
        for j in 1..<n { total += 0.5 * at[k][j] * (at[m][j + 1] - at[m][j - 1]) }
        matrix[m][k] = weights[k] * total
      }
    }
    return (nodes, weights, matrix)
  }()

  /// `(F, S)` of `arm` at the nodes `xs` of panel `[a, b]`, given its densities `f` there;
  /// `carried` is F at `a` inside the arm's core (accumulated panel by panel), `nil` outside.
  static func tails(
    _ arm: Arm, a: Double, b: Double, xs: [Double], f: [Double], carried: inout Double?
  ) -> [(lower: Double, upper: Double)] {
    guard arm.coreHi > arm.coreLo, a >= arm.coreLo, b <= arm.coreHi else {
      carried = nil
      if a >= arm.certainAbove { return xs.map { _ in (1, 0) } }
      if b <= arm.certainBelow { return xs.map { _ in (0, 1) } }
      return xs.map { x in
        if x <= arm.lo && arm.lo > 0 { return (0, 1) }
        if x >= arm.hi && arm.hi < 1 { return (1, 0) }
        if let upper = upperTailSum(arm.d, x) { return (1 - upper, upper) }
        return SpecialFunctions.incompleteBeta(arm.d.alpha, arm.d.beta, x: x, y: 1 - x)
      }
    }
    let start = carried ?? arm.d.cdf(a)
    let half = (b - a) / 2
    let (_, weights, matrix) = integration
    var out: [(lower: Double, upper: Double)] = []
    for (m, row) in matrix.enumerated() {
      // Left of two standard deviations the continued fraction is quick and keeps F's
      // relative precision, which a partial integral of a steep density does not.
      if xs[m] < arm.mean - 2 * arm.sd {
        out.append(SpecialFunctions.incompleteBeta(arm.d.alpha, arm.d.beta, x: xs[m], y: 1 - xs[m]))
        continue
      }
      var partial = 0.0
      for (s, v) in zip(row, f) { partial += s * v }
      let lower = min(1, start + half * partial)
      out.append((lower, 1 - lower))
    }
    var whole = 0.0
    for (w, v) in zip(weights, f) { whole += w * v }
    carried = start + half * whole
    return out
  }

  /// `1 − I_x(a, b) = P(Binomial(a + b − 1, x) < a)` summed term by term, for an integer
  /// `a ≤ 1000` right of the mean and `x < 10⁻³`: there the continued fraction runs on
  /// `1 − x`, whose rounding costs ~1e-16/x relative; the sum keeps full precision. `nil`
  /// elsewhere.
  static func upperTailSum(_ d: BetaDistribution, _ x: Double) -> Double? {
    let a = d.alpha
    guard a == a.rounded(), a <= 1000, x < 1e-3, x >= (a + 1) / (a + d.beta + 2) else { return nil }
    let n = a + d.beta - 1
    let logY = log1p(-x)
    let logX = log(x)
    var logChoose = 0.0
    var total = 0.0
    for k in 0..<Int(a) {
      let kk = Double(k)
      if k > 0 { logChoose += log((n - kk + 1) / kk) }
      total += exp(logChoose + kk * logX + (n - kk) * logY)
    }
    return min(total, 1)
  }

  /// Densities of `arm` at `xs` (0 outside its support).
  static func densities(_ arm: Arm, _ xs: [Double]) -> [Double] {
    xs.map { x in x < arm.lo || x > arm.hi ? 0 : arm.d.pdf(x) }
  }

  /// The nodes of panel `[a, b]`.
  static func nodes(_ a: Double, _ b: Double) -> [Double] {
    let mid = (a + b) / 2
    let half = (b - a) / 2
    return integration.nodes.map { mid + half * $0 }
  }

  /// `P(arm j has the largest rate)` for every arm, in the arms' order.
  func probabilities() -> [Double] {
    let largest = !flipped
    let los = arms.map(\.lo)
    let his = arms.map(\.hi)
    guard let from = largest ? los.max() : los.min(), let to = largest ? his.max() : his.min(), to > from else {
      return arms.map { _ in 1 / Double(arms.count) }
    }
    let active = arms.indices.filter { arms[$0].hi > from && arms[$0].lo < to }
    let breaks = Self.panels(active.map { arms[$0] }, from: from, to: to)
    var totals = [Double](repeating: 0, count: arms.count)
    var carried = [Double?](repeating: nil, count: arms.count)
    let weights = Self.integration.weights
    for (a, b) in zip(breaks, breaks.dropFirst()) where b > a {
      let xs = Self.nodes(a, b)
      var f: [[Double]] = []
      var t: [[Double]] = []
      for i in active {
        let density = Self.densities(arms[i], xs)
        f.append(density)
        t.append(Self.tails(arms[i], a: a, b: b, xs: xs, f: density, carried: &carried[i]).map { largest ? $0.lower : $0.upper })
      }
      let half = (b - a) / 2
      for m in xs.indices {
        var logSum = 0.0
        var zeros = 0
        for k in active.indices {
          if t[k][m] > 0 { logSum += log(t[k][m]) } else { zeros += 1 }
        }
        guard zeros <= 1 else { continue }
        for (k, i) in active.enumerated() where f[k][m] > 0 {
          let others: Double
          if zeros == 0 {
            others = exp(logSum - log(t[k][m]))
          } else {
            others = t[k][m] == 0 ? exp(logSum) : 0
          }
          totals[i] += half * weights[m] * f[k][m] * others
        }
      }
    }
    return totals.map { min(1, max(0, $0)) }
  }

  /// `E[max(X_A − X_B, 0)]` for `X_A ~ a`, `X_B ~ b` (Beta, shapes ≥ 1), integrated on the
  /// side of ½ where both run:
  ///
  /// ```
  /// E[(X_A − y)⁺] = (μ_A − y) S_A(y) + f_A(y) y (1 − y) / (α_A + β_A)
  /// E[(X_A − X_B)⁺] = ∫ f_B(y) E[(X_A − y)⁺] dy
  /// ```
  static func expectedExcess(_ a: BetaDistribution, over b: BetaDistribution) -> Double {
    let flip = max(a.mean, b.mean) > 0.5
    // On 1 − x the excess of A over B is the excess of B' over A'.
    let (upper, lower) =
      flip
      ? (Arm(BetaDistribution(alpha: b.beta, beta: b.alpha)), Arm(BetaDistribution(alpha: a.beta, beta: a.alpha)))
      : (Arm(a), Arm(b))
    let from = lower.lo
    let to = min(lower.hi, upper.hi)
    guard to > from else { return 0 }
    let breaks = panels([upper, lower], from: from, to: to)
    let weights = integration.weights
    let total = upper.d.alpha + upper.d.beta
    var carried: Double?
    var sum = 0.0
    for (x0, x1) in zip(breaks, breaks.dropFirst()) where x1 > x0 {
      let xs = nodes(x0, x1)
      let fb = densities(lower, xs)
      let fa = densities(upper, xs)
      let s = tails(upper, a: x0, b: x1, xs: xs, f: fa, carried: &carried).map(\.upper)
      var panel = 0.0
      for m in xs.indices where fb[m] > 0 {
        let y = xs[m]
        let excess = (upper.mean - y) * s[m] + fa[m] * y * (1 - y) / total
        panel += weights[m] * fb[m] * max(excess, 0)
      }
      sum += (x1 - x0) / 2 * panel
    }
    return max(0, sum)
  }
}
