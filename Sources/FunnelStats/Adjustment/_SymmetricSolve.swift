import Foundation

/// Small dense symmetric positive-definite systems of the regression adjustments: the
/// normal equations of one arm, at most ``RegressionAdjustment/maxCovariates`` + 1
/// unknowns.
///
/// The matrix is equilibrated first (`D⁻¹AD⁻¹` with `D = diag(√aᵢᵢ)`), so columns
/// of very different scales (a count in the thousands beside a stratum's 0/1) keep
/// their accuracy, then factored by Cholesky. A pivot that is not clearly positive
/// (relative to the equilibrated diagonal of 1) means the columns are collinear.
package struct _SymmetricSolve {
  package let size: Int
  /// The lower Cholesky factor of the equilibrated matrix, row-major.
  private var factor: [Double]
  /// `√aᵢᵢ` per column.
  private let scale: [Double]

  /// Factors `matrix` (row-major `size × size`); `nil` when it is not numerically
  /// positive definite (collinear columns, or a column that is all zero).
  package init?(_ matrix: [Double], size: Int) {
    self.size = size
    var scale = [Double](repeating: 0, count: size)
    for i in 0..<size {
      let d = matrix[i * size + i]
      guard d > 0, d.isFinite else { return nil }
      scale[i] = d.squareRoot()
    }
    var l = [Double](repeating: 0, count: size * size)
    for i in 0..<size {
      for j in 0...i {
        var s = matrix[i * size + j] / (scale[i] * scale[j])
        for k in 0..<j { s -= l[i * size + k] * l[j * size + k] }
        if i == j {
          guard s > 1e-12 else { return nil }
          l[i * size + i] = s.squareRoot()
        } else {
          l[i * size + j] = s / l[j * size + j]
        }
      }
    }
    factor = l
    self.scale = scale
  }

  /// `C·z` where `C = D·L` is the lower Cholesky factor of `A` itself (`A = C·Cᵀ`): turns
  /// independent standard normal deviates `z` into deviates with covariance `A`.
  package func factorTimes(_ z: [Double]) -> [Double] {
    (0..<size).map { i in
      var s = 0.0
      for k in 0...i { s += factor[i * size + k] * z[k] }
      return s * scale[i]
    }
  }

  /// `x` with `A·x = b`.
  package func solve(_ b: [Double]) -> [Double] {
    var y = [Double](repeating: 0, count: size)
    for i in 0..<size {
      var s = b[i] / scale[i]
      for k in 0..<i { s -= factor[i * size + k] * y[k] }
      y[i] = s / factor[i * size + i]
    }
    var x = [Double](repeating: 0, count: size)
    for i in stride(from: size - 1, through: 0, by: -1) {
      var s = y[i]
      for k in (i + 1)..<size { s -= factor[k * size + i] * x[k] }
      x[i] = s / factor[i * size + i]
    }
    for i in 0..<size { x[i] /= scale[i] }
    return x
  }
}
