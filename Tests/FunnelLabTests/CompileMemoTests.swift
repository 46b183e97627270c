import FunnelTestSupport
import Testing

@testable import FunnelLab

/// The compile's memo (``CompileMemo``) changes nothing: a screen's threshold rows follow
/// every input of their key, a dwell table its median and σ, and what is found equals what
/// is computed.
@Suite struct CompileMemoTests {
  /// The rows of `screen` in every state of `flow`.
  static func rows(_ flow: CompiledFlow, screen: Int) -> [UInt64] {
    var rows: [UInt64] = []
    for segment in 0..<flow.segmentCount {
      for bin in 0..<flow.traitBins {
        for seen in 0..<flow.seenLevels {
          for personalized in 0..<2 {
            let start = flow.row(segment: segment, bin: bin, seen: seen, personalized: personalized, screen: screen)
            rows += flow.thresholds[start..<(start + flow.stride)]
          }
        }
      }
    }
    return rows
  }

  /// A price sensitivity moves the paywall's rows only; a segment's intent moves every screen
  /// whose outcomes depend on the state; compiling the spec again gives its table bit for bit.
  @Test func rowsFollowTheirInputsAndRepeatExactly() throws {
    let e = try ExperimentLoader.load(contentsOf: experimentPath("betfree-onboarding"))
    let memo = CompileMemo()
    let before = try FlowCompiler.compile(e, variant: 0, memo: memo)
    let paywall = try #require(before.screenIDs.firstIndex(of: "paywall"))

    var pricier = e
    pricier.behavior.priceSensitivity += 0.25
    let afterPrice = try FlowCompiler.compile(pricier, variant: 0, memo: memo)
    for screen in before.screenIDs.indices {
      let same = Self.rows(before, screen: screen) == Self.rows(afterPrice, screen: screen)
      #expect(same == (screen != paywall), "screen \(before.screenIDs[screen])")
    }

    var keener = e
    keener.population.segments[0].intent.mean += 0.5
    let afterIntent = try FlowCompiler.compile(keener, variant: 0, memo: memo)
    // Every screen here has a quit, whose utility depends on the intent.
    for screen in before.screenIDs.indices {
      #expect(Self.rows(before, screen: screen) != Self.rows(afterIntent, screen: screen), "screen \(before.screenIDs[screen])")
    }

    let again = try FlowCompiler.compile(e, variant: 0, memo: memo)
    #expect(again.thresholds == before.thresholds)
    #expect(again.dwellMillis == before.dwellMillis)
    #expect(try FlowCompiler.compile(e, variant: 0).dwellMillis == before.dwellMillis, "dwell tables without a memo")
    #expect(try FlowCompiler.compile(keener, variant: 0).thresholds == afterIntent.thresholds, "the same without a memo")
  }

  /// A memo keeps at most its capacity: one too small for any block keeps nothing and
  /// changes nothing; the library keeps no memo between calls of its own.
  @Test func aMemoKeepsAtMostItsCapacity() throws {
    let e = try ExperimentLoader.load(contentsOf: experimentPath("betfree-onboarding"))
    let tiny = CompileMemo(capacity: 8)
    let roomy = CompileMemo()
    let flows = try [tiny, roomy].map { try FlowCompiler.compileAll(e, memo: $0) }
    #expect(tiny.words == 0)
    #expect(roomy.words > 0 && roomy.words <= roomy.capacity)
    #expect(flows[0].map(\.thresholds) == flows[1].map(\.thresholds))
    #expect(flows[0].map(\.dwellMillis) == flows[1].map(\.dwellMillis))
    #expect(try FlowCompiler.compileAll(e).map(\.thresholds) == flows[1].map(\.thresholds))
  }
}

extension CompileMemoTests {
  /// A dwell table is kept by its median and σ: another median or σ gets its own table (a
  /// memo that returned the first would give the second screen the first one's times), and
  /// a screen whose median moves in a variant gets the table of its new median.
  @Test func dwellTablesFollowTheirMedianAndSigma() {
    let memo = CompileMemo()
    let pairs: [(Double, Double)] = [(4, 0.6), (8, 0.6), (4, 0.9), (4, 0.6)]
    for (median, sigma) in pairs {
      let found = memo.dwellTable(medianSeconds: median, sigma: sigma)
      #expect(found == Discretisation.dwellTable(medianSeconds: median, sigma: sigma), "median \(median), σ \(sigma)")
    }
    // Three distinct tables of 1,024 times, two to a word.
    #expect(memo.words == 3 * Discretisation.dwellTableSize / 2)
  }
}
