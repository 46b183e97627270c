import FunnelStats

extension ParameterUncertainty {
  /// The normal parameters' covariance `Σᵢⱼ = ρᵢⱼ·σᵢ·σⱼ` (row-major), in the order of their indices in
  /// ``parameters``, with those indices.
  func normalCovariance() -> (indices: [Int], matrix: [Double]) {
    var indices: [Int] = []
    var sds: [Double] = []
    for (i, u) in parameters.enumerated() {
      if case .normal(_, let sd) = u.distribution {
        indices.append(i)
        sds.append(sd)
      }
    }
    let m = indices.count
    var matrix = [Double](repeating: 0, count: m * m)
    for i in 0..<m { matrix[i * m + i] = sds[i] * sds[i] }
    for c in correlations {
      guard c.between.count == 2,
        let a = indices.firstIndex(where: { parameters[$0].parameter == c.between[0] }),
        let b = indices.firstIndex(where: { parameters[$0].parameter == c.between[1] }), a != b
      else { continue }
      matrix[a * m + b] = c.rho * sds[a] * sds[b]
      matrix[b * m + a] = matrix[a * m + b]
    }
    return (indices, matrix)
  }

  /// `count` draws of the parameters' values (each in the order of ``parameters``), from a stream
  /// seeded by `seed` alone: the same seed gives the same draws on every platform and thread
  /// count. A draw with a normal value outside its parameter's range is drawn again (the
  /// normals are truncated jointly); `nil` when more than 1000 + 100 × `count` draws fall
  /// outside in all, which means the distributions put almost no mass (under ~1 %) inside
  /// the ranges. Call on a validated value.
  public func values(count: Int, seed: UInt64) -> [[Double]]? {
    var rng = Xoshiro256StarStar(seed: SplitMix64.mix(seed ^ 0x5041_5241_4D53))  // "PARAMS"
    let (indices, covariance) = normalCovariance()
    let factor = indices.isEmpty ? nil : _SymmetricSolve(covariance, size: indices.count)
    if !indices.isEmpty, factor == nil { return nil }
    func unit() -> Double { (Double(rng.next() >> 11) + 0.5) / 9_007_199_254_740_992 }  // in (0, 1)
    var draws: [[Double]] = []
    draws.reserveCapacity(count)
    var rejected = 0
    while draws.count < count {
      var values = [Double](repeating: 0, count: parameters.count)
      let z = indices.map { _ in
        let u = unit()
        return Normal.standardQuantile(p: u, q: 1 - u)
      }
      let correlated = factor?.factorTimes(z) ?? []
      var inside = true
      for (i, u) in parameters.enumerated() {
        switch u.distribution {
        case .uniform(let low, let high): values[i] = low + (high - low) * unit()
        case .normal(let mean, _):
          guard let k = indices.firstIndex(of: i) else { continue }
          values[i] = mean + correlated[k]
          if !u.parameter.range.contains(values[i]) { inside = false }
        }
      }
      if inside {
        draws.append(values)
      } else {
        rejected += 1
        if rejected > 1000 + 100 * count { return nil }
      }
    }
    return draws
  }

  /// Every problem of the section at `path`: the draw count, each distribution against its
  /// parameter's range, and the correlations (normal parameters only, distinct, listed once,
  /// |ρ| < 1, together positive definite).
  public func validationErrors(at path: SpecPath) -> [SpecError] {
    var errors: [SpecError] = []
    func fail(_ at: SpecPath, _ message: String, _ hint: String, kind: SpecError.Kind = .invalidValue) {
      errors.append(SpecError(kind, path: at, message: message, hint: hint))
    }
    if !Limits.parameterDraws.contains(draws) {
      fail(
        path.key("draws"), "draws must be from \(Limits.parameterDraws.lowerBound) to \(Limits.parameterDraws.upperBound), got \(draws)",
        "the default is \(Self.defaultDraws)", kind: draws > Limits.parameterDraws.upperBound ? .limit : .invalidValue)
    }
    if parameters.isEmpty {
      fail(path.key("parameters"), "no parameter is uncertain", "add e.g. \"defaultPlanBias\": {\"mean\": 0.8, \"sd\": 0.2}")
    }
    for u in parameters {
      let at = path.key("parameters").key(u.parameter.rawValue)
      let range = u.parameter.range
      let rangeText = "\(JSONValue.format(range.lowerBound))…\(JSONValue.format(range.upperBound))"
      let unit = "the unit is \(u.parameter.unit); its range is \(rangeText)"
      if u.parameter.isWholeNumber {
        fail(at, "\(u.parameter.rawValue) is a whole number and cannot be drawn", "leave it out: it bounds the simulator's state")
        continue
      }
      switch u.distribution {
      case .normal(let mean, let sd):
        if !mean.isFinite || !range.contains(mean) { fail(at.key("mean"), "mean \(JSONValue.format(mean)) is outside \(rangeText)", unit) }
        if !sd.isFinite || sd < 1e-9 || sd > range.upperBound - range.lowerBound {
          fail(at.key("sd"), "sd must be at least 1e-9 and at most the range's width, got \(JSONValue.format(sd))", unit)
        }
      case .uniform(let low, let high):
        if !low.isFinite || !high.isFinite || !range.contains(low) || !range.contains(high) || low >= high {
          fail(at, "low \(JSONValue.format(low)) and high \(JSONValue.format(high)) must lie in \(rangeText) with low < high", unit)
        }
      }
    }
    var pairs = Set<[BehaviorParameter]>()
    for (i, c) in correlations.enumerated() {
      let at = path.key("correlations").index(i)
      let normal = Set(parameters.compactMap { u -> BehaviorParameter? in if case .normal = u.distribution { u.parameter } else { nil } })
      if let outside = c.between.first(where: { !normal.contains($0) }) {
        fail(
          at.key("between"), "'\(outside.rawValue)' is not a normal parameter of this section",
          "correlate only parameters given with mean and sd")
      } else if c.between.count != 2 || c.between[0] == c.between[1] {
        fail(at.key("between"), "a correlation joins two different parameters", "e.g. [\"defaultPlanBias\", \"priceSensitivity\"]")
      } else if !pairs.insert(c.between.sorted()).inserted {
        fail(at.key("between"), "this pair is correlated twice", "keep one entry per pair")
      }
      if !c.rho.isFinite || abs(c.rho) >= 1 {
        fail(at.key("rho"), "rho must lie strictly between −1 and 1, got \(JSONValue.format(c.rho))", "e.g. 0.3")
      }
    }
    if errors.isEmpty, !correlations.isEmpty {
      let (indices, covariance) = normalCovariance()
      if _SymmetricSolve(covariance, size: indices.count) == nil {
        fail(
          path.key("correlations"), "the correlations are not consistent (their matrix is not positive definite)",
          "weaken them: e.g. a with b and b with c near 1 force a with c near 1 too")
      }
    }
    return errors
  }
}
