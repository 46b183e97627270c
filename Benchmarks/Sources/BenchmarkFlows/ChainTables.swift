import FunnelLab

/// One variant's compiled chain in explicit form: for every state (segment, intent
/// bin, screens seen, personalized flag, screen) the probability of each outcome, and
/// for every outcome where it leads and what it does.
///
/// The probabilities come from the compiled tables through the public
/// ``CompiledFlow/outcomeProbabilities(segment:bin:seen:personalized:screen:)``, so
/// they are exactly FunnelLab's model for the variant (multiples of 2⁻⁵³). What
/// each outcome does is read from the variant's flow with the compiler's rules (the
/// outcomes of a screen are its actions in ``CompiledFlow/actions`` order, a
/// purchase split into one outcome per plan, a failing input or task into success
/// and failure). ``BareWalk`` reproduces the engine's counts from these tables draw
/// for draw, which checks the reading.
///
/// Encoded as JSON for `baseline/klick_numpy.py`.
public struct ChainTables: Sendable, Codable {
  /// Target codes that are not screens.
  public static let completed = -1
  public static let abandoned = -2

  public var experiment: String
  public var variant: String
  public var screens: [String]
  public var segments: [String]
  public var segmentProbabilities: [Double]
  public var traitBins: Int
  /// Levels of the saturated "screens seen" counter (0…seenLevels − 1).
  public var seenLevels: Int
  public var start: Int
  public var stepLimit: Int
  /// Outcomes per state row (the largest screen's count); shorter rows are padded with 0.
  public var stride: Int
  /// Plan slots as `screen/plan`.
  public var plans: [String]
  /// `probabilities[row · stride + k]` with
  /// `row = (((segment · traitBins + bin) · seenLevels + seen) · 2 + personalized) · screens + screen`.
  public var probabilities: [Double]
  /// Per screen and outcome: the screen it leads to, or ``completed`` / ``abandoned``.
  public var outcomeTarget: [[Int]]
  /// Per screen and outcome: the plan slot bought, or −1.
  public var outcomePlan: [[Int]]
  /// Per screen and outcome: whether it sets the personalized flag.
  public var outcomePersonalizes: [[Bool]]
  /// Per screen and outcome: whether it draws a choice option (one more random draw).
  public var outcomeDrawsOption: [[Bool]]
  /// Per screen: 1024 equiprobable dwell times in milliseconds, or empty (no dwell).
  public var dwellMillis: [[UInt32]]

  public var screenCount: Int { screens.count }

  /// The chain of `variant` of `experiment`.
  /// - Throws: ``SpecErrors`` when the variant does not compile.
  public init(_ experiment: Experiment, variant: Int) throws(SpecErrors) {
    let flow = try FlowCompiler.compile(experiment, variant: variant)
    let e = try experiment.experiment(forVariant: variant)
    self.experiment = experiment.name
    self.variant = flow.variantID
    screens = flow.screenIDs
    segments = flow.segmentIDs
    segmentProbabilities = flow.segmentProbabilities
    traitBins = flow.traitBins
    seenLevels = flow.seenLevels
    start = flow.start
    stepLimit = flow.stepLimit
    plans = flow.plans.map { "\(flow.screenIDs[$0.screen])/\($0.plan.id)" }

    var targets: [[Int]] = []
    var plansOf: [[Int]] = []
    var personalizes: [[Bool]] = []
    var drawsOption: [[Bool]] = []
    for (i, screen) in e.flow.screens.enumerated() {
      var t: [Int] = []
      var p: [Int] = []
      var f: [Bool] = []
      var o: [Bool] = []
      for slot in flow.actions where slot.screen == i {
        let action =
          screen.action(slot.id) ?? Action(id: slot.id, kind: slot.kind, to: Self.next(after: i, in: e.flow), probability: nil)
        let target = Self.code(of: Self.target(of: action, at: i, in: e.flow), in: e.flow)
        let sets = screen.personalizes && (action.kind == .select || (screen.kind == .slider && action.kind == .continue))
        let failure: Double =
          switch (screen.content, action.kind) {
          case (.input(let input), .type): input.validationFailureProbability
          case (.task(let task), .continue): task.failureProbability
          default: 0
          }
        switch (screen.content, action.kind) {
        case (.paywall, .purchase):
          for (slotIndex, plan) in flow.plans.enumerated() where plan.screen == i {
            t.append(target)
            p.append(slotIndex)
            f.append(sets)
            o.append(false)
          }
        case _ where failure > 0:
          t += [target, i]
          p += [-1, -1]
          f += [sets, false]
          o += [false, false]
        default:
          t.append(target)
          p.append(-1)
          f.append(sets)
          o.append(screen.kind == .choice && action.kind == .select)
        }
      }
      precondition(t.count == flow.outcomes(of: i).count, "outcomes of screen \(screen.id) misread")
      targets.append(t)
      plansOf.append(p)
      personalizes.append(f)
      drawsOption.append(o)
    }
    outcomeTarget = targets
    outcomePlan = plansOf
    outcomePersonalizes = personalizes
    outcomeDrawsOption = drawsOption
    stride = targets.map(\.count).max() ?? 1

    var probabilities: [Double] = []
    probabilities.reserveCapacity(flow.segmentCount * traitBins * seenLevels * 2 * screens.count * stride)
    for segment in 0..<flow.segmentCount {
      for bin in 0..<traitBins {
        for seen in 0..<seenLevels {
          for personalized in [false, true] {
            for screen in 0..<screens.count {
              let row = flow.outcomeProbabilities(
                segment: segment, bin: bin, seen: seen, personalized: personalized, screen: screen)
              probabilities += row + Array(repeating: 0, count: stride - row.count)
            }
          }
        }
      }
    }
    self.probabilities = probabilities

    dwellMillis = e.flow.screens.map { screen in
      var median = screen.dwell?.medianSeconds ?? screen.kind.defaultMedianSeconds
      if let paywall = screen.paywall { median += e.behavior.secondsPerFeature * Double(paywall.features) }
      guard median > 0 else { return [] }
      return Discretisation.dwellTable(medianSeconds: median, sigma: screen.dwell?.sigma ?? e.behavior.dwellSigma)
    }
  }

  /// The flow's navigation rules (as in the spec's documentation): quit abandons, an
  /// explicit `to` wins, back goes to the previous screen (or stays on the first), and
  /// everything else goes to the next screen (or completes after the last).
  static func target(of action: Action, at i: Int, in flow: Flow) -> String {
    if action.kind == .quit { return Flow.abandoned }
    if let to = action.to { return to }
    if action.kind == .back { return i > 0 ? flow.screens[i - 1].id : flow.screens[i].id }
    return next(after: i, in: flow)
  }

  static func next(after i: Int, in flow: Flow) -> String {
    i + 1 < flow.screens.count ? flow.screens[i + 1].id : Flow.completed
  }

  static func code(of id: String, in flow: Flow) -> Int {
    if id == Flow.completed { return completed }
    if id == Flow.abandoned { return abandoned }
    return flow.index(of: id) ?? 0
  }
}
