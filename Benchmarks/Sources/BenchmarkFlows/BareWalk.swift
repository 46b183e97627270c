import FunnelLab
import FunnelStats

/// The least a program can do to walk users through a ``ChainTables`` chain: the
/// hardware limit for this work, against which the full engine is measured.
///
/// It draws exactly what `MonteCarloEngine` draws, in the same order, from the same
/// per-user streams (one draw for the segment and the intent bin, then one draw a step
/// for the outcome and the dwell time, and one for an option when the outcome selects
/// one), reads the same
/// kind of integer threshold tables from raw memory, and keeps only the counts that
/// the numpy baseline reports: completions, purchasers by first plan and completion
/// time. No per-screen, per-action or reach counts, no flags beyond the personalized
/// state. Because the draws are the same, its counts equal the engine's exactly.
public final class BareWalk: @unchecked Sendable {
  /// What a bare walk counts.
  public struct Counts: Sendable, Hashable {
    public var users: UInt64 = 0
    public var completed: UInt64 = 0
    public var purchasers: UInt64 = 0
    public var completionMillis: UInt64 = 0
    public var planPurchases: [UInt64]

    public init(plans: Int) { planPurchases = Array(repeating: 0, count: max(plans, 1)) }
  }

  let screens, stride, bins, seenLevels, maxSeen, start, stepLimit, planCount: Int
  let segmentThresholds: UnsafeMutableBufferPointer<UInt64>
  let thresholds: UnsafeMutableBufferPointer<UInt64>
  /// Per `screen · stride + k`: target, plan slot, flags (1 personalizes, 2 draws an option).
  let target: UnsafeMutableBufferPointer<Int32>
  let plan: UnsafeMutableBufferPointer<Int32>
  let flags: UnsafeMutableBufferPointer<UInt8>
  let dwell: UnsafeMutableBufferPointer<UInt32>
  /// Whether the bin is the cell draw's low bits (a power-of-two bin count ≤ 2¹¹).
  let binsInCellDraw: Bool

  public init(_ chain: ChainTables) {
    screens = chain.screenCount
    stride = chain.stride
    bins = chain.traitBins
    seenLevels = chain.seenLevels
    maxSeen = chain.seenLevels - 1
    start = chain.start
    stepLimit = chain.stepLimit
    planCount = chain.plans.count
    func copy<T>(_ array: [T]) -> UnsafeMutableBufferPointer<T> {
      let buffer = UnsafeMutableBufferPointer<T>.allocate(capacity: max(array.count, 1))
      _ = buffer.initialize(from: array)
      return buffer
    }
    segmentThresholds = copy(Self.thresholds(chain.segmentProbabilities))
    var rows: [UInt64] = []
    rows.reserveCapacity(chain.probabilities.count)
    var offset = 0
    while offset < chain.probabilities.count {
      rows += Self.thresholds(Array(chain.probabilities[offset..<(offset + chain.stride)]))
      offset += chain.stride
    }
    thresholds = copy(rows)
    func padded<T>(_ rows: [[T]], _ fill: T) -> [T] {
      rows.flatMap { $0 + Array(repeating: fill, count: chain.stride - $0.count) }
    }
    target = copy(padded(chain.outcomeTarget, 0).map { Int32($0) })
    plan = copy(padded(chain.outcomePlan, -1).map { Int32($0) })
    let personal = padded(chain.outcomePersonalizes, false)
    let option = padded(chain.outcomeDrawsOption, false)
    flags = copy(zip(personal, option).map { ($0 ? 1 : 0) | ($1 ? 2 : 0) })
    binsInCellDraw = bins.nonzeroBitCount == 1 && bins <= 1 << 11
    dwell = copy(chain.dwellMillis.flatMap { $0.isEmpty ? Array(repeating: 0, count: 1024) : $0 })
  }

  deinit {
    segmentThresholds.deallocate()
    thresholds.deallocate()
    target.deallocate()
    plan.deallocate()
    flags.deallocate()
    dwell.deallocate()
  }

  /// Cumulative thresholds on the 2⁵³ scale of probabilities that are multiples of
  /// 2⁻⁵³ (as exported): exact, the last 2⁵³; trailing zero-probability outcomes unreachable.
  static func thresholds(_ probabilities: [Double]) -> [UInt64] {
    var cumulative: UInt64 = 0
    var result = probabilities.map { p -> UInt64 in
      cumulative += UInt64((p * 0x1p53).rounded())
      return min(cumulative, 1 << 53)
    }
    if var k = result.indices.last {
      result[k] = 1 << 53
      while k > 0, probabilities[k] == 0 {
        result[k - 1] = 1 << 53
        k -= 1
      }
    }
    return result
  }

  /// Walks users `range` of stream family `seed` on the calling thread.
  /// - Complexity: O(users × steps); no allocation but the returned plan counts.
  public func run(users range: Range<UInt64>, seed: UInt64) -> Counts {
    var counts = Counts(plans: planCount)
    counts.planPurchases.withUnsafeMutableBufferPointer { planPurchases in
      for user in range {
        var rng = Xoshiro256StarStar(seed: seed, stream: user)
        let cellDraw = rng.next()
        let segmentDraw = cellDraw >> 11
        var segment = 0
        while segmentDraw >= segmentThresholds[segment] { segment += 1 }
        let bin =
          binsInCellDraw ? Int(cellDraw & UInt64(bins - 1)) : Int(rng.next().multipliedFullWidth(by: UInt64(bins)).high)
        let cell = (segment * bins + bin) * seenLevels
        var screen = start
        var seen = 0
        var personalized = 0
        var millis: UInt64 = 0
        var firstPlan: Int32 = -1
        for _ in 0..<stepLimit {
          let draw = rng.next()
          millis &+= UInt64(dwell[screen &<< Discretisation.dwellTableBits | Int(draw & Discretisation.dwellTableMask)])
          let base = (((cell + seen) << 1 | personalized) * screens + screen) * stride
          let r = draw >> 11
          var k = 0
          while r >= thresholds[base + k] { k += 1 }
          let o = screen * stride + k
          let f = flags[o]
          if f != 0 {
            if f & 1 != 0 { personalized = 1 }
            if f & 2 != 0 { _ = rng.next() }
          }
          if firstPlan < 0 { firstPlan = plan[o] }
          let next = Int(target[o])
          if next < 0 {
            if next == ChainTables.completed {
              counts.completed &+= 1
              counts.completionMillis &+= millis
            }
            break
          }
          screen = next
          if seen < maxSeen { seen += 1 }
        }
        if firstPlan >= 0 {
          counts.purchasers &+= 1
          planPurchases[Int(firstPlan)] &+= 1
        }
      }
    }
    counts.users = UInt64(range.count)
    return counts
  }
}
