/// The exact funnel of a spec, per variant: every metric's exact value and every screen's
/// reach. A baseline is one saved (`funnellab exact --format json`, or `check
/// --update-baseline`); `check --baseline` and `diff` compare two (``SnapshotComparison``).
/// Exact, so a comparison has no noise: a moved value is a changed flow or assumption.
public struct FunnelSnapshot: Sendable, Hashable {
  /// One variant's exact values.
  public struct Variant: Sendable, Hashable {
    /// The variant id.
    public var id: String
    /// Each metric's exact value, `nil` where undefined (a denominator of 0), in ``FunnelMetric`` order.
    public var metrics: [FunnelMetric: Double?]
    /// Each screen's reach and quits, in flow order.
    public var reach: [ScreenReach]

    /// A screen, the share of users who see it and the share who quit there.
    public struct ScreenReach: Sendable, Hashable {
      /// The screen id.
      public var screen: String
      /// The share of users who see it at least once.
      public var reach: Double
      /// The share of all users who quit on it ("quit here").
      public var abandoned: Double

      /// `screen` reached by `reach` of the users, `abandoned` of them quitting there.
      public init(screen: String, reach: Double, abandoned: Double) {
        self.screen = screen
        self.reach = reach
        self.abandoned = abandoned
      }
    }

    /// A variant's values; see each property.
    public init(id: String, metrics: [FunnelMetric: Double?], reach: [ScreenReach]) {
      self.id = id
      self.metrics = metrics
      self.reach = reach
    }

    /// The reach and quits of `screen`, `nil` when the variant has no such screen.
    public func screen(_ id: String) -> ScreenReach? { reach.first { $0.screen == id } }
  }

  /// The experiment's name.
  public var experiment: String
  /// The declared variants (not grid cells), control first.
  public var variants: [Variant]
  /// The spec's primary metric (a baseline's `summary.primaryMetric`); `nil` when unknown. A
  /// comparison lists it first.
  public var primary: FunnelMetric?

  /// A snapshot of `experiment` and `variants`, with its primary metric when known.
  public init(experiment: String, variants: [Variant], primary: FunnelMetric? = nil) {
    self.experiment = experiment
    self.variants = variants
    self.primary = primary
  }

  /// Solves every declared variant of `experiment` exactly (as `funnellab exact` does), in parallel.
  /// - Throws: ``SpecErrors`` when the experiment is invalid.
  public static func solve(_ experiment: Experiment) throws(SpecErrors) -> FunnelSnapshot {
    let flows = try FlowCompiler.compileAll(experiment)
    return FunnelSnapshot(
      experiment: experiment.name, ids: experiment.variants.map(\.id), flows: flows, funnels: ExactEngine.solve(flows),
      primary: experiment.metrics.primary)
  }

  /// The snapshot of variants already solved: `ids[k]`'s compiled flow `flows[k]` and its
  /// exact funnel `funnels[k]` (so that a command that also renders them solves once), with
  /// the metrics each flow can have (``FunnelMetric/applies(to:)``) and the spec's `primary` metric.
  public init(experiment: String, ids: [String], flows: [CompiledFlow], funnels: [ExactFunnel], primary: FunnelMetric? = nil) {
    let variants = zip(ids, zip(flows, funnels)).map { id, solved in
      let (flow, exact) = solved
      var metrics: [FunnelMetric: Double?] = [:]
      // The metrics the flow can have, as `exact --format json` lists them (no paywall: no revenue).
      for metric in FunnelMetric.allCases where metric.applies(to: [flow]) { metrics[metric] = exact.value(of: metric) }
      let reach = flow.screenIDs.indices.map {
        Variant.ScreenReach(screen: flow.screenIDs[$0], reach: exact.reach[$0], abandoned: exact.abandonedAt[$0])
      }
      return Variant(id: id, metrics: metrics, reach: reach)
    }
    self.init(experiment: experiment, variants: variants, primary: primary)
  }

  /// Whether `text` is a JSON document written by `funnellab exact` (`"command": "exact"`), as
  /// opposed to a spec.
  public static func isBaseline(_ text: String) -> Bool {
    guard let document = try? SpecDecoder(source: "").parse(text), case .string("exact")? = document.value(at: [.key("command")])?.kind
    else { return false }
    return true
  }

  /// Reads a snapshot from the JSON `funnellab exact --format json` writes (schema
  /// version 1): `experiment`, and per variant `id`, `metrics` and `screens` (`id`, `reach`).
  /// Other fields are ignored, so a report written with more fields still reads.
  /// - Throws: ``SpecErrors`` naming the JSON path and line of the first problem, with `source`.
  public static func decode(exactJSON text: String, source: String) throws(SpecErrors) -> FunnelSnapshot {
    let document = try SpecDecoder(source: source).parse(text)
    func fail(_ path: SpecPath, _ message: String) -> SpecErrors {
      SpecErrors(
        source: source,
        errors: [
          SpecError(
            path: path, line: document.line(at: path), message: message,
            hint:
              "write a baseline with 'funnellab exact SPEC --format json -o BASE.json' or 'funnellab check SPEC --update-baseline BASE.json'"
          )
        ])
    }
    guard case .string("exact")? = document.value(at: [.key("command")])?.kind else {
      throw fail([.key("command")], "not a baseline: a baseline is the JSON of 'funnellab exact' (\"command\": \"exact\")")
    }
    guard case .number(1, _)? = document.value(at: [.key("schemaVersion")])?.kind else {
      throw fail([.key("schemaVersion")], "a baseline of schema version 1 is expected")
    }
    guard case .string(let name)? = document.value(at: [.key("experiment")])?.kind, !name.isEmpty else {
      throw fail([.key("experiment")], "a baseline names its experiment")
    }
    guard case .array(let items)? = document.value(at: [.key("variants")])?.kind, !items.isEmpty else {
      throw fail([.key("variants")], "variants must be a non-empty array")
    }
    var variants: [Variant] = []
    for (i, item) in items.enumerated() {
      let variant = try decodeVariant(item, at: [.key("variants"), .index(i)], fail: fail)
      if let first = variants.firstIndex(where: { $0.id == variant.id }) {
        throw fail(
          [.key("variants"), .index(i), .key("id")],
          "the variant '\(variant.id.escapingControlCharacters)' is listed twice (also variants[\(first)])")
      }
      variants.append(variant)
    }
    if var error = ContentChecksum.error(
      in: document, again: "write the baseline again ('funnellab check SPEC --update-baseline BASE.json')")
    {
      error.line = document.line(at: error.path)
      throw SpecErrors(source: source, errors: [error])
    }
    var primary: FunnelMetric?
    if case .string(let raw)? = document.value(at: [.key("summary"), .key("primaryMetric")])?.kind {
      primary = FunnelMetric(rawValue: raw)
    }
    return FunnelSnapshot(experiment: name, variants: variants, primary: primary)
  }

  /// Why `baseline` cannot judge `current` (each a ``SpecError`` at the baseline's JSON path):
  /// it is of another experiment (unless `allowOtherExperiment`), or one of its variants lists
  /// no value of a metric that the current variant of that id has a value of, so that a move of
  /// that metric would pass unseen. Variants added or gone are not problems here: the comparison
  /// reports them.
  public static func coverageErrors(baseline: FunnelSnapshot, current: FunnelSnapshot, allowOtherExperiment: Bool) -> [SpecError] {
    var errors: [SpecError] = []
    if baseline.experiment != current.experiment, !allowOtherExperiment {
      errors.append(
        SpecError(
          path: [.key("experiment")],
          message:
            "the baseline is of the experiment '\(baseline.experiment.escapingControlCharacters)', not '\(current.experiment.escapingControlCharacters)'",
          hint: "compare it with its own spec, or pass --allow-other-experiment"))
    }
    for (i, old) in baseline.variants.enumerated() {
      guard let new = current.variants.first(where: { $0.id == old.id }) else { continue }
      let missing = FunnelMetric.allCases.filter { metric in
        (new.metrics[metric] ?? nil) != nil && old.metrics[metric] == nil
      }
      guard !missing.isEmpty else { continue }
      errors.append(
        SpecError(
          path: [.key("variants"), .index(i), .key("metrics")],
          message:
            "the variant '\(old.id.escapingControlCharacters)' has no value of \(missing.map(\.rawValue).joined(separator: ", ")), which the spec produces",
          hint: "write the baseline again ('funnellab check SPEC --update-baseline BASE.json')"))
    }
    return errors
  }

  static func decodeVariant(
    _ item: JSONValue, at path: SpecPath, fail: (SpecPath, String) -> SpecErrors
  ) throws(SpecErrors) -> Variant {
    guard case .string(let id)? = item.value(at: [.key("id")])?.kind else { throw fail(path.key("id"), "a variant needs its id") }
    // Ids are printed in every report, as a spec's are: one that could break a line or reach a terminal is refused.
    if id.unicodeScalars.contains(where: \.isEscapedInMessages) {
      throw fail(path.key("id"), "the variant id '\(id.escapingControlCharacters)' contains a control character")
    }
    guard case .object(let members)? = item.value(at: [.key("metrics")])?.kind else {
      throw fail(path.key("metrics"), "a variant needs its metrics object")
    }
    var metrics: [FunnelMetric: Double?] = [:]
    for member in members {
      guard let metric = FunnelMetric(rawValue: member.key) else { continue }
      switch member.value.kind {
      case .null: metrics[metric] = .some(nil)
      case .number(let x, _) where x.isFinite: metrics[metric] = x
      default: throw fail(path.key("metrics").key(member.key), "a metric's value must be a finite number or null")
      }
    }
    var reach: [Variant.ScreenReach] = []
    if case .array(let screens)? = item.value(at: [.key("screens")])?.kind {
      for (j, screen) in screens.enumerated() {
        guard case .string(let name)? = screen.value(at: [.key("id")])?.kind,
          case .number(let r, _)? = screen.value(at: [.key("reach")])?.kind, r.isFinite,
          case .number(let q, _)? = screen.value(at: [.key("abandoned")])?.kind, q.isFinite
        else { throw fail(path.key("screens").index(j), "a screen needs an id, a finite reach and a finite abandoned share") }
        if name.unicodeScalars.contains(where: \.isEscapedInMessages) {
          throw fail(
            path.key("screens").index(j).key("id"), "the screen id '\(name.escapingControlCharacters)' contains a control character")
        }
        reach.append(Variant.ScreenReach(screen: name, reach: r, abandoned: q))
      }
    }
    return Variant(id: id, metrics: metrics, reach: reach)
  }
}

/// How far an exact value may move before a baseline comparison fails: beyond
/// `absolute + relative × |baseline|` (as numpy's `isclose`), with per-metric absolute
/// tolerances that override ``absolute``. The defaults (1e-9 each) flag any change
/// beyond floating-point rounding: snapshot testing.
public struct SnapshotTolerance: Sendable, Hashable {
  /// The absolute tolerance of every metric not in ``perMetric``.
  public var absolute: Double
  /// The relative tolerance, a share of the baseline's value.
  public var relative: Double
  /// Absolute tolerances by metric.
  public var perMetric: [FunnelMetric: Double]

  /// A tolerance; see each property.
  public init(absolute: Double = 1e-9, relative: Double = 1e-9, perMetric: [FunnelMetric: Double] = [:]) {
    self.absolute = absolute
    self.relative = relative
    self.perMetric = perMetric
  }

  /// The largest move of `metric` from `baseline` that is not a change.
  public func allowance(_ metric: FunnelMetric, baseline: Double) -> Double {
    (perMetric[metric] ?? absolute) + relative * abs(baseline)
  }
}

/// Two snapshots compared: what moved beyond the tolerance, variants added or gone, and
/// where the change comes from (the screens whose reach moved most).
public struct SnapshotComparison: Sendable, Hashable {
  /// One metric of one variant that moved beyond its allowance (or became defined or undefined).
  public struct Change: Sendable, Hashable {
    /// The variant id.
    public var variant: String
    /// The metric.
    public var metric: FunnelMetric
    /// The baseline's value (`nil`: undefined).
    public var baseline: Double?
    /// The current value (`nil`: undefined).
    public var current: Double?
    /// The allowance it exceeded.
    public var allowance: Double
  }

  /// One screen of one variant whose reach or quits moved: before and after (`nil` where the
  /// screen is absent).
  public struct ScreenShift: Sendable, Hashable {
    /// The variant id.
    public var variant: String
    /// The screen id.
    public var screen: String
    /// The baseline's values.
    public var baseline: FunnelSnapshot.Variant.ScreenReach?
    /// The current values.
    public var current: FunnelSnapshot.Variant.ScreenReach?
  }

  /// The metrics that moved, by variant then metric, in the snapshots' order.
  public var changes: [Change]
  /// Variants in the current snapshot and not in the baseline.
  public var added: [String]
  /// Variants in the baseline and not in the current snapshot.
  public var removed: [String]
  /// The screens whose reach or quits moved beyond the absolute tolerance, or that came or
  /// went, by variant in flow order: the first of a variant is where its change starts.
  public var screens: [ScreenShift]
  /// The tolerance compared with.
  public var tolerance: SnapshotTolerance
  /// The primary metric (the current snapshot's, else the baseline's); `nil` when unknown.
  public var primary: FunnelMetric?

  /// The moved metrics in the order a report lists them: the primary metric's first, then the
  /// largest relative move first (a value undefined on one side first of all), ties in
  /// ``changes`` order.
  package var rankedChanges: [Change] {
    func size(_ x: Change) -> Double {
      guard let a = x.baseline, let b = x.current else { return .infinity }
      return abs(b - a) / max(abs(a), 1e-12)
    }
    func key(_ x: (offset: Int, element: Change)) -> (Int, Double, Int) {
      (x.element.metric == primary ? 0 : 1, -size(x.element), x.offset)
    }
    return changes.enumerated().sorted { key($0) < key($1) }.map(\.element)
  }

  /// Whether nothing moved: no change, no variant added or removed.
  public var passed: Bool { changes.isEmpty && added.isEmpty && removed.isEmpty }

  /// Compares `current` with `baseline`, variant by variant (matched by id) and metric by metric;
  /// a metric the baseline does not list is not compared (`null` is listed: undefined).
  public static func compare(
    baseline: FunnelSnapshot, current: FunnelSnapshot, tolerance: SnapshotTolerance = SnapshotTolerance()
  ) -> SnapshotComparison {
    let oldIDs = baseline.variants.map(\.id)
    let newIDs = current.variants.map(\.id)
    var changes: [Change] = []
    var screens: [ScreenShift] = []
    for new in current.variants {
      guard let old = baseline.variants.first(where: { $0.id == new.id }) else { continue }
      // A metric the baseline does not list (one written before the metric existed) is not compared.
      for metric in FunnelMetric.allCases {
        guard let stored = old.metrics[metric] else { continue }
        let (a, b) = (stored, new.metrics[metric] ?? nil)
        switch (a, b) {
        case (nil, nil): continue
        case (let x?, let y?):
          let allowance = tolerance.allowance(metric, baseline: x)
          if abs(y - x) > allowance {
            changes.append(Change(variant: new.id, metric: metric, baseline: x, current: y, allowance: allowance))
          }
        default:
          changes.append(Change(variant: new.id, metric: metric, baseline: a, current: b, allowance: 0))
        }
      }
      let names = new.reach.map(\.screen) + old.reach.map(\.screen).filter { new.screen($0) == nil }
      for screen in names {
        let (a, b) = (old.screen(screen), new.screen(screen))
        let moved =
          if let a, let b {
            abs(a.reach - b.reach) > tolerance.absolute || abs(a.abandoned - b.abandoned) > tolerance.absolute
          } else { true }
        if moved { screens.append(ScreenShift(variant: new.id, screen: screen, baseline: a, current: b)) }
      }
    }
    return SnapshotComparison(
      changes: changes, added: newIDs.filter { !oldIDs.contains($0) }, removed: oldIDs.filter { !newIDs.contains($0) },
      screens: screens, tolerance: tolerance, primary: current.primary ?? baseline.primary)
  }
}
