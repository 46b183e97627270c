import FunnelTestSupport
import Testing

@testable import FunnelLab

/// The compile's memo of threshold rows (``ThresholdBlockMemo``) changes nothing: a screen's
/// rows follow every input of its key, and a block found equals the block computed.
@Suite struct ThresholdBlockMemoTests {
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
    let memo = ThresholdBlockMemo()
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
    #expect(try FlowCompiler.compile(keener, variant: 0).thresholds == afterIntent.thresholds, "the same without a memo")
  }

  /// A memo keeps at most its capacity: one too small for any block keeps nothing and
  /// changes nothing; the library keeps no memo between calls of its own.
  @Test func aMemoKeepsAtMostItsCapacity() throws {
    let e = try ExperimentLoader.load(contentsOf: experimentPath("betfree-onboarding"))
    let tiny = ThresholdBlockMemo(capacity: 8)
    let roomy = ThresholdBlockMemo()
    let flows = try [tiny, roomy].map { try FlowCompiler.compileAll(e, memo: $0) }
    #expect(tiny.words == 0)
    #expect(roomy.words > 0 && roomy.words <= roomy.capacity)
    #expect(flows[0].map(\.thresholds) == flows[1].map(\.thresholds))
    #expect(try FlowCompiler.compileAll(e).map(\.thresholds) == flows[1].map(\.thresholds))
  }
}
