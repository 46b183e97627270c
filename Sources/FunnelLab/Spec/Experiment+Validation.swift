import FunnelStats

/// Tolerance within which a screen's action probabilities must sum to 1.
package let probabilitySumTolerance = 1e-6

extension Experiment {
  /// Every problem of the base experiment and of each variant once its patches are
  /// applied. An empty list means the experiment can run.
  package func validationErrors() -> [SpecError] { validationErrors(placing: []) }

  /// ``validationErrors()`` with the problems the decoder reported while decoding the
  /// base flow's screens (``SpecDecodingOutcome/reported``: fields given on the wrong
  /// kind) placed among each screen's problems, after its actions and dwell time, where
  /// a reader of the list looks for them.
  package func validationErrors(placing decodingProblems: [SpecError]) -> [SpecError] {
    var errors = validateBase(placing: decodingProblems)
    if variants.isEmpty {
      errors.append(
        SpecError(
          path: [.key("variants")], message: "the variant list is empty",
          hint: "add at least {\"id\": \"control\"}; the first variant is the control"))
    }
    if variants.count > Limits.variants {
      errors.append(
        SpecError(
          .limit, path: [.key("variants")], message: "\(variants.count) variants; at most \(Limits.variants) are supported",
          hint: "split the comparison, or use a grid"))
    }
    errors += metrics.validationErrors(at: [.key("metrics")])
    if let parameterUncertainty { errors += parameterUncertainty.validationErrors(at: [.key("parameterUncertainty")]) }
    // The cells are built only once their count is known to be within the limit.
    let cellsFit = (grid?.cellCount ?? 0) <= Limits.listedGridCells
    errors += allocationErrors(variants: cellsFit ? allVariants : variants, cellsFit: cellsFit)
    if let grid {
      let gridPath = SpecPath([.key("grid")])
      errors += grid.validationErrors(at: gridPath)
      for (i, factor) in grid.factors.enumerated() {
        for (j, level) in factor.levels.enumerated() where !level.patches.isEmpty {
          let levelPath = gridPath.key("factors").index(i).key("levels").index(j)
          do {
            let patched = try applying(Variant(id: level.id, patches: level.patches), at: levelPath)
            let baseMessages = Set(errors.map(\.description))
            for error in patched.validateBase() where !baseMessages.contains(error.description) {
              errors.append(
                SpecError(error.kind, path: levelPath, message: "after its patches, \(error.path): \(error.message)", hint: error.hint))
            }
          } catch {
            errors.append(contentsOf: error.errors)
          }
        }
      }
    }
    var seen = Set<String>()
    for (i, variant) in variants.enumerated() {
      let path = SpecPath([.key("variants"), .index(i)])
      if !seen.insert(variant.id).inserted {
        errors.append(
          SpecError(path: path.key("id"), message: "duplicate variant id '\(variant.id)'", hint: "give each variant its own id"))
      }
      if variant.id.isEmpty {
        errors.append(SpecError(path: path.key("id"), message: "a variant id is empty", hint: "name it, e.g. \"control\""))
      }
      if let error = SpecError.unprintable(id: variant.id, at: path.key("id"), naming: "variant") { errors.append(error) }
      if variant.patches.isEmpty { continue }
      do {
        let patched = try applying(variant, at: path)
        // Problems the base already has are reported once, at the base.
        let baseMessages = Set(errors.map(\.description))
        for error in patched.validateBase() where !baseMessages.contains(error.description) {
          errors.append(SpecError(error.kind, path: path, message: "after its patches, \(error.path): \(error.message)", hint: error.hint))
        }
      } catch {
        errors.append(contentsOf: error.errors)
      }
    }
    // Tables are held at once only by a run of every variant (the Monte Carlo, a grid of at
    // most ``Limits/variants`` cells); `grid --exact` compiles a larger grid's cells one at a time.
    if errors.isEmpty, cellsFit, allVariants.count <= Limits.variants { errors += tableSizeErrors() }
    return errors
  }

  /// Problems of `design.allocation` over `variants` (grid cells included when they
  /// fit): unknown ids, weights outside 0 … ``Limits/weight``, every arm at 0.
  func allocationErrors(variants: [Variant], cellsFit: Bool) -> [SpecError] {
    var errors: [SpecError] = []
    let allIDs = Set(variants.map(\.id))
    for id in design.allocation.keys.sorted() {
      let weight = design.allocation[id] ?? 0
      if !allIDs.contains(id) {
        errors.append(
          SpecError(
            .unknownReference, path: [.key("design"), .key("allocation"), .key(id)], message: "no variant '\(id)'",
            hint: NameSuggestion.hint(for: id, in: allIDs.sorted())))
      }
      if !(weight.isFinite && weight >= 0 && weight <= Limits.weight) {
        errors.append(
          SpecError(
            path: [.key("design"), .key("allocation"), .key(id)],
            message: "an allocation weight must be a finite number ≥ 0 and at most \(JSONValue.format(Limits.weight))",
            hint: "weights are relative, e.g. 50 and 50"))
      }
    }
    if !design.allocation.isEmpty, cellsFit, variants.allSatisfy({ (design.allocation[$0.id] ?? 1) == 0 }) {
      errors.append(
        SpecError(
          path: [.key("design"), .key("allocation")], message: "every arm has allocation weight 0",
          hint: "give at least one arm a positive weight, e.g. 50 and 50"))
    }
    return errors
  }

  /// The problem, if any, of the memory the compiled tables of all variants (grid cells
  /// included) would take: their bytes (``Limits/compiledTableBytes(segments:traitBins:seenLevels:screens:stride:)``
  /// per variant) must sum to at most ``Limits/compiledTableBytes``. Checked before
  /// anything is compiled.
  func tableSizeErrors() -> [SpecError] {
    var total = 0
    var largest = (bytes: 0, variant: "")
    for variant in allVariants {
      let patched = variant.patches.isEmpty ? self : ((try? applying(variant, at: .root)) ?? self)
      let bytes = patched.compiledTableBytes ?? Int.max
      if bytes > largest.bytes { largest = (bytes, variant.id) }
      let (sum, overflow) = total.addingReportingOverflow(bytes)
      total = overflow ? Int.max : sum
    }
    guard total > Limits.compiledTableBytes else { return [] }
    let mebibytes = { (bytes: Int) in bytes == Int.max ? "more than 2^63 bytes" : "\(bytes / (1 << 20)) MiB" }
    return [
      SpecError(
        .limit, path: [.key("simulation"), .key("traitBins")],
        message: "the compiled tables of \(allVariants.count) variant\(allVariants.count == 1 ? "" : "s") would take "
          + "\(mebibytes(total)) (segments × traitBins × (screensSeenCap + 1) × 2 × screens × outcomes per screen × 8 bytes each; "
          + "'\(largest.variant)' \(mebibytes(largest.bytes))), more than the limit of \(Limits.compiledTableBytes >> 20) MiB",
        hint: "lower simulation.traitBins or behavior.screensSeenCap, or use fewer segments or variants")
    ]
  }

  /// Bytes of this experiment's compiled table (``Limits/compiledTableBytes(segments:traitBins:seenLevels:screens:stride:)``),
  /// `nil` when the product overflows.
  var compiledTableBytes: Int? {
    let behaviors = population.segments.map { behavior.applying($0.behavior) }
    let cap = behaviors.map(\.screensSeenCap).max() ?? behavior.screensSeenCap
    guard let seen = Int(rounding: cap) else { return nil }
    let stride = flow.screens.map(FlowCompiler.outcomeCount).max() ?? 1
    return Limits.compiledTableBytes(
      segments: population.segments.count, traitBins: simulation.traitBins, seenLevels: seen + 1, screens: flow.screens.count,
      stride: stride)
  }

  /// Problems of the ``expectations``: unknown variants, keys of another kind, values
  /// out of range. Kept apart from ``validationErrors()`` (which every run checks) so
  /// that code may drop variants from a loaded spec and still run it; the loader and
  /// ``ExpectationChecker`` check both.
  package func expectationErrors() -> [SpecError] {
    let variantIDs = ((grid?.cellCount ?? 0) <= Limits.listedGridCells ? allVariants : variants).map(\.id)
    var errors: [SpecError] = []
    var ids: [String: Int] = [:]
    for (i, expectation) in expectations.enumerated() {
      if let first = ids[expectation.id] {
        errors.append(
          SpecError(
            path: [.key("expectations"), .index(i), .key("id")],
            message: "duplicate expectation id '\(expectation.id)' (also expectations[\(first)])",
            hint: "give each expectation its own \"id\""))
      } else {
        ids[expectation.id] = i
      }
      if let error = SpecError.unprintable(id: expectation.id, at: [.key("expectations"), .index(i), .key("id")], naming: "expectation") {
        errors.append(error)
      }
    }
    return errors
      + expectations.enumerated().flatMap { i, expectation in
        expectation.validationErrors(at: [.key("expectations"), .index(i)], variants: variantIDs)
      }
  }

  /// Problems of the flow, population, behavior and settings, ignoring variants, with
  /// `decodingProblems` placed among their screens' problems (see ``validationErrors(placing:)``).
  func validateBase(placing decodingProblems: [SpecError] = []) -> [SpecError] {
    var v = Validator(decodingProblems: decodingProblems)
    v.checkExperiment(self)
    // Problems of screens outside the base flow (a variant's inserted screen) follow the base's.
    return v.errors + v.decodingProblems
  }
}

private struct Validator {
  var errors: [SpecError] = []
  /// Problems the decoder reported for the base flow's screens, each listed with its screen's problems.
  var decodingProblems: [SpecError] = []

  mutating func fail(_ path: SpecPath, _ message: String, _ hint: String? = nil, kind: SpecError.Kind = .invalidValue) {
    errors.append(SpecError(kind, path: path, message: message, hint: hint))
  }

  /// ``SpecError/Kind/limit`` for a value above `range` (past a documented limit), else ``SpecError/Kind/invalidValue``.
  func rangeKind<T: Comparable>(_ value: T, _ range: ClosedRange<T>) -> SpecError.Kind {
    value > range.upperBound ? .limit : .invalidValue
  }

  mutating func checkProbability(_ p: Double, _ path: SpecPath) {
    if !p.isFinite || p < 0 || p > 1 {
      fail(path, "probability \(JSONValue.format(p)) is outside [0, 1]", "use a number from 0 to 1")
    }
  }

  mutating func checkExperiment(_ e: Experiment) {
    if e.name.isEmpty { fail([.key("name")], "the name is empty", "name the experiment") }
    if let error = SpecError.unprintable(id: e.name, at: [.key("name")], naming: "experiment") { errors.append(error) }
    if !Limits.users.contains(e.users) {
      fail(
        [.key("users")], "users must be at least 1 and at most \(Limits.users.upperBound), got \(e.users)", "use e.g. 100000",
        kind: rangeKind(e.users, Limits.users))
    }
    if !Limits.stepLimit.contains(e.simulation.stepLimit) {
      fail(
        [.key("simulation"), .key("stepLimit")],
        "stepLimit must be from 1 to \(Limits.stepLimit.upperBound), got \(e.simulation.stepLimit)", "the default is 500",
        kind: rangeKind(e.simulation.stepLimit, Limits.stepLimit))
    }
    if !Limits.traitBins.contains(e.simulation.traitBins) {
      fail(
        [.key("simulation"), .key("traitBins")],
        "traitBins must be from 1 to \(Limits.traitBins.upperBound), got \(e.simulation.traitBins)", "the default is 32",
        kind: rangeKind(e.simulation.traitBins, Limits.traitBins))
    }
    checkBehavior(e.behavior, at: [.key("behavior")])
    errors += e.store.validationErrors(at: [.key("store")])
    errors += e.revenue.validationErrors(at: [.key("revenue")])
    checkFlow(e.flow, behavior: e.behavior)
    checkPopulation(e.population, flow: e.flow)
    if Limits.traitBins.contains(e.simulation.traitBins) { checkCovariate(e.population, bins: e.simulation.traitBins) }
  }

  mutating func checkBehavior(_ b: BehaviorParameters, at path: SpecPath) {
    for parameter in BehaviorParameter.allCases {
      checkBehaviorValue(parameter, b[parameter], at: path.key(parameter.rawValue))
    }
  }

  mutating func checkBehaviorValue(_ parameter: BehaviorParameter, _ value: Double, at path: SpecPath) {
    if !value.isFinite || !parameter.range.contains(value) {
      fail(
        path,
        "\(parameter.rawValue) = \(JSONValue.format(value)) is outside its range \(JSONValue.format(parameter.range.lowerBound))…\(JSONValue.format(parameter.range.upperBound))",
        "the unit is \(parameter.unit); the default is \(JSONValue.format(parameter.defaultValue))")
    } else if parameter.isWholeNumber, value != value.rounded() {
      fail(path, "\(parameter.rawValue) must be a whole number", "e.g. \(JSONValue.format(parameter.defaultValue))")
    }
  }

  mutating func checkPopulation(_ population: Population, flow: Flow) {
    let base = SpecPath([.key("population"), .key("segments")])
    if population.segments.isEmpty { fail(base, "the population has no segment", "add {\"id\": \"everyone\"}") }
    if population.segments.count > Limits.segments {
      fail(base, "\(population.segments.count) segments; at most \(Limits.segments) are supported", "merge similar segments", kind: .limit)
    }
    var ids = Set<String>()
    var total = 0.0
    var weightsValid = true
    for (i, segment) in population.segments.enumerated() {
      let path = base.index(i)
      if !ids.insert(segment.id).inserted { fail(path.key("id"), "duplicate segment id '\(segment.id)'", "give each segment its own id") }
      if let error = SpecError.unprintable(id: segment.id, at: path.key("id"), naming: "segment") { errors.append(error) }
      if !segment.weight.isFinite || segment.weight < 0 || segment.weight > Limits.weight {
        fail(
          path.key("weight"),
          "weight \(JSONValue.format(segment.weight)) must be a finite number ≥ 0 and at most \(JSONValue.format(Limits.weight))",
          "weights are relative, e.g. 0.7 and 0.3")
        weightsValid = false
      } else {
        total += segment.weight
      }
      if !segment.intent.mean.isFinite || abs(segment.intent.mean) > 20 {
        fail(path.key("intent").key("mean"), "intent mean must be finite and within ±20", nil)
      }
      if !segment.intent.sd.isFinite || segment.intent.sd < 0 || segment.intent.sd > 20 {
        fail(path.key("intent").key("sd"), "intent sd must be from 0 to 20", "0 gives every user the mean")
      }
      for parameter in segment.behavior.keys.sorted() {
        if let value = segment.behavior[parameter] {
          checkBehaviorValue(parameter, value, at: path.key("behavior").key(parameter.rawValue))
        }
      }
      for screenID in segment.screens.keys.sorted() {
        let screenPath = path.key("screens").key(screenID)
        guard let screen = flow.screen(screenID) else {
          fail(
            screenPath, "unknown screen '\(screenID)'", NameSuggestion.hint(for: screenID, in: flow.screens.map(\.id)),
            kind: .unknownReference)
          continue
        }
        let overrides = segment.screens[screenID] ?? [:]
        for actionID in overrides.keys.sorted() {
          if screen.action(actionID) == nil {
            fail(
              screenPath.key(actionID), "screen '\(screenID)' has no action '\(actionID)'",
              NameSuggestion.hint(for: actionID, in: screen.actions.map(\.id)), kind: .unknownReference)
          }
          checkProbability(overrides[actionID] ?? 0, screenPath.key(actionID))
        }
        // The overridden screen's probabilities must still sum to 1.
        let sum = screen.actions.reduce(0.0) { $0 + (overrides[$1.id] ?? $1.probability ?? 0) }
        if abs(sum - 1) > probabilitySumTolerance {
          fail(
            screenPath,
            "with this segment's probabilities, screen '\(screenID)' sums to \(JSONValue.format((sum * 1e9).rounded() / 1e9)), not 1",
            "adjust the probabilities so they sum to 1 (tolerance \(probabilitySumTolerance))")
        }
      }
    }
    if !population.segments.isEmpty, weightsValid, total <= 0 {
      fail(base, "segment weights sum to 0", "give at least one segment a positive weight")
    }
  }

  /// The pre-period covariate and the observable segments: bounded means and effects, every
  /// cell's mean within ``Limits/covariateCellMean``, the compiled tables within
  /// ``Limits/covariateTableEntries``, and a stratum id `other` that is free.
  mutating func checkCovariate(_ population: Population, bins: Int) {
    let base = SpecPath([.key("population")])
    let segments = base.key("segments")
    if population.segments.contains(where: { !$0.observable }),
      let i = population.segments.firstIndex(where: { $0.observable && $0.id == Population.otherStratum })
    {
      fail(
        segments.index(i).key("id"), "an observable segment cannot be called '\(Population.otherStratum)'",
        "'\(Population.otherStratum)' is the stratum of the segments that are not observable; rename the segment")
    }
    guard let covariate = population.covariate else {
      if let i = population.segments.firstIndex(where: { $0.covariateMean != nil }) {
        fail(
          segments.index(i).key("covariateMean"), "covariateMean needs a pre-period covariate",
          "add population.covariate, e.g. {\"name\": \"appOpensLastWeek\", \"mean\": 5}")
      }
      return
    }
    let path = base.key("covariate")
    if covariate.name.isEmpty || covariate.name.count > 64 || covariate.name.unicodeScalars.contains(where: { $0.value < 0x20 }) {
      fail(path.key("name"), "the covariate's name must have 1 to 64 printable characters", "e.g. appOpensLastWeek")
    }
    var valid = checkCovariateMean(covariate.mean, at: path.key("mean"))
    if !covariate.intentEffect.isFinite || abs(covariate.intentEffect) > Limits.covariateIntentEffect {
      fail(
        path.key("intentEffect"),
        "intentEffect \(JSONValue.format(covariate.intentEffect)) must be within ±\(JSONValue.format(Limits.covariateIntentEffect))",
        "0 makes the covariate unrelated to intent; 0.5 is a moderate link")
      valid = false
    }
    for (i, segment) in population.segments.enumerated() {
      if let mean = segment.covariateMean, !checkCovariateMean(mean, at: segments.index(i).key("covariateMean")) { valid = false }
    }
    guard valid, errors.isEmpty else { return }
    let binMeans = CompiledStrata.binMeans(bins)
    var entries = 0
    for (i, segment) in population.segments.enumerated() {
      for binMean in binMeans {
        let lambda = CompiledStrata.cellMean(covariate, segment: segment, binMean: binMean)
        guard lambda.isFinite, lambda <= Limits.covariateCellMean else {
          fail(
            segments.index(i),
            "the covariate's mean reaches \(lambda.isFinite ? JSONValue.format(lambda.rounded()) : "∞") for this segment's most "
              + "extreme intent, above \(JSONValue.format(Limits.covariateCellMean))",
            "lower population.covariate.intentEffect, the covariate's mean or the segment's intent sd", kind: .limit)
          return
        }
        entries += CompiledStrata.tableEntries(lambda)
      }
    }
    if entries > Limits.covariateTableEntries {
      fail(
        path, "the covariate compiles to \(entries) table entries, above \(Limits.covariateTableEntries)",
        "lower simulation.traitBins or the covariate's mean", kind: .limit)
    }
  }

  /// Whether a covariate mean is in (0, ``Limits/covariateMean``]; records the error when not.
  mutating func checkCovariateMean(_ mean: Double, at path: SpecPath) -> Bool {
    guard !mean.isFinite || mean <= 0 || mean > Limits.covariateMean else { return true }
    fail(
      path, "the covariate's mean \(JSONValue.format(mean)) must be above 0 and at most \(JSONValue.format(Limits.covariateMean))",
      "the mean count of a user of intent 0, e.g. 5")
    return false
  }

  mutating func checkFlow(_ flow: Flow, behavior: BehaviorParameters) {
    let base = SpecPath([.key("flow")])
    let screensPath = base.key("screens")
    if flow.screens.isEmpty {
      fail(screensPath, "the flow has no screens", "add at least one screen")
      return
    }
    if flow.screens.count > Limits.screens {
      fail(
        screensPath, "the flow has \(flow.screens.count) screens; at most \(Limits.screens) are supported", "split the flow", kind: .limit)
    }
    let plans = flow.screens.reduce(0) { $0 + ($1.paywall?.plans.count ?? 0) }
    if plans > Limits.plans {
      fail(screensPath, "the flow's paywalls have \(plans) plans; at most \(Limits.plans) are supported", "offer fewer plans", kind: .limit)
    }
    var ids = Set<String>()
    for (i, screen) in flow.screens.enumerated() {
      if !ids.insert(screen.id).inserted {
        fail(screensPath.index(i).key("id"), "duplicate screen id '\(screen.id)'", "give each screen its own id")
      }
      if screen.id == Flow.completed || screen.id == Flow.abandoned {
        fail(screensPath.index(i).key("id"), "'\(screen.id)' is a reserved target name", "rename the screen")
      }
      if screen.id.isEmpty { fail(screensPath.index(i).key("id"), "a screen id is empty", "name it") }
      if let error = SpecError.unprintable(id: screen.id, at: screensPath.index(i).key("id"), naming: "screen") { errors.append(error) }
    }
    let targets = ids.union([Flow.completed, Flow.abandoned])
    if let start = flow.start, !ids.contains(start) {
      fail(
        base.key("start"), "unknown screen '\(start)'", NameSuggestion.hint(for: start, in: flow.screens.map(\.id)), kind: .unknownReference
      )
    }
    for (i, screen) in flow.screens.enumerated() {
      checkScreen(screen, index: i, in: flow, targets: targets, at: screensPath.index(i))
    }
    checkReachability(flow, at: base)
  }

  /// Problems of one screen: its actions, dwell, fields given on the wrong kind (found by the decoder), and the
  /// fields of its kind.
  mutating func checkScreen(_ screen: Screen, index: Int, in flow: Flow, targets: Set<String>, at path: SpecPath) {
    checkActions(of: screen, index: index, targets: targets, at: path)
    checkDwell(of: screen, at: path)
    placeDecodingProblems(of: path)
    switch screen.content {
    case .choice(let choice): checkChoice(choice, of: screen, at: path)
    case .input(let input): checkInput(input, of: screen, at: path)
    case .task(let task): checkTask(task, at: path)
    case .paywall(let paywall): checkPaywall(paywall, of: screen, at: path)
    case .slider(let slider): checkSlider(slider, at: path)
    case .info, .permission: break
    }
  }

  /// Lists the decoder's problems of the screen at `path` (its fields given on the wrong kind).
  private mutating func placeDecodingProblems(of path: SpecPath) {
    let isOfScreen = { (problem: SpecError) in problem.path.components.dropLast().elementsEqual(path.components) }
    errors += decodingProblems.filter(isOfScreen)
    decodingProblems.removeAll(where: isOfScreen)
  }

  /// Whether `screen` offers an action of kind `kind`.
  private func offers(_ screen: Screen, _ kind: ActionKind) -> Bool { screen.actions.contains { $0.kind == kind } }

  /// The screen's action list: its size, each action, and that the probabilities sum to 1.
  private mutating func checkActions(of screen: Screen, index: Int, targets: Set<String>, at path: SpecPath) {
    if screen.actions.isEmpty {
      fail(path.key("actions"), "screen '\(screen.id)' has no actions", "add at least continue and quit")
    }
    if screen.actions.count > Limits.actionsPerScreen {
      fail(
        path.key("actions"), "screen '\(screen.id)' has \(screen.actions.count) actions; at most \(Limits.actionsPerScreen) are supported",
        nil, kind: .limit)
    }
    var actionIDs = Set<String>()
    var sum = 0.0
    for action in screen.actions {
      let ap = path.key("actions").key(action.id)
      if !actionIDs.insert(action.id).inserted { fail(ap, "duplicate action id '\(action.id)'", nil) }
      if let error = SpecError.unprintable(id: action.id, at: ap, naming: "action") { errors.append(error) }
      checkAction(action, on: screen.kind, index: index, targets: targets, at: ap)
      if let p = action.probability, p.isFinite { sum += p }
    }
    if !screen.actions.isEmpty, screen.actions.allSatisfy({ $0.probability != nil }), abs(sum - 1) > probabilitySumTolerance {
      fail(
        path.key("actions"), "probabilities of screen '\(screen.id)' sum to \(JSONValue.format((sum * 1e9).rounded() / 1e9)), not 1",
        "adjust them so they sum to 1 (tolerance \(probabilitySumTolerance))")
    }
  }

  /// One action: allowed on this kind of screen, its probability, and its target.
  private mutating func checkAction(_ action: Action, on kind: ScreenKind, index: Int, targets: Set<String>, at ap: SpecPath) {
    if !kind.allowedActions.contains(action.kind) {
      fail(
        ap, "a \(kind.rawValue) screen cannot offer '\(action.kind.rawValue)'",
        "allowed here: " + ActionKind.allCases.filter { kind.allowedActions.contains($0) }.map(\.rawValue).joined(separator: ", "))
    }
    if let p = action.probability {
      checkProbability(p, ap.key("probability"))
    } else {
      fail(ap, "action '\(action.id)' has no probability", "add \"probability\": a number from 0 to 1")
    }
    if let to = action.to {
      if !targets.contains(to) {
        fail(
          ap.key("to"), "unknown screen '\(to)'",
          NameSuggestion.hint(for: to, in: Array(targets).sorted()) ?? "use a screen id, \"completed\" or \"abandoned\"",
          kind: .unknownReference)
      }
      if action.kind.target == .forbidden {
        fail(ap.key("to"), "\(action.kind.rawValue) always leads to abandonment; it takes no target", "remove \"to\"")
      }
    } else if action.kind.target == .required {
      fail(ap, "a \(action.kind.rawValue) action needs a target", "add \"to\": the id of the screen it leads to")
    } else if action.kind == .back, index == 0 {
      fail(ap, "back on the first screen has no previous screen", "remove it, or add \"to\"")
    }
  }

  /// The screen's dwell time: median and sigma in range.
  private mutating func checkDwell(of screen: Screen, at path: SpecPath) {
    guard let dwell = screen.dwell else { return }
    let seconds = Limits.dwellSeconds
    if !dwell.medianSeconds.isFinite || !seconds.contains(dwell.medianSeconds) {
      fail(
        path.key("dwell").key("medianSeconds"),
        "medianSeconds must be from \(JSONValue.format(seconds.lowerBound)) to \(JSONValue.format(seconds.upperBound))",
        "seconds a typical user spends here")
    }
    let sigmas = BehaviorParameter.dwellSigma.range
    if let sigma = dwell.sigma, !sigma.isFinite || !sigmas.contains(sigma) {
      fail(
        path.key("dwell").key("sigma"),
        "sigma must be from \(JSONValue.format(sigmas.lowerBound)) to \(JSONValue.format(sigmas.upperBound))",
        "the default is the behavior parameter dwellSigma")
    }
  }

  /// A choice screen: its options and their weights, a select action, and whether it may be left unanswered.
  private mutating func checkChoice(_ choice: Screen.Choice, of screen: Screen, at path: SpecPath) {
    if choice.options.isEmpty { fail(path.key("options"), "a choice screen needs options", "list them, e.g. [\"relax\", \"focus\"]") }
    if choice.options.count > Limits.optionsPerChoice {
      fail(path.key("options"), "\(choice.options.count) options; at most \(Limits.optionsPerChoice) are supported", nil, kind: .limit)
    }
    if !offers(screen, .select) { fail(path.key("actions"), "a choice screen needs a select action", "add \"select\": probability") }
    var optionIDs = Set<String>()
    for (j, option) in choice.options.enumerated() {
      if !optionIDs.insert(option.id).inserted { fail(path.key("options").index(j), "duplicate option '\(option.id)'", nil) }
      if !option.weight.isFinite || option.weight <= 0 || option.weight > Limits.weight {
        fail(
          path.key("options").index(j).key("weight"),
          "an option weight must be a finite number > 0 and at most \(JSONValue.format(Limits.weight))", "weights are relative")
      }
    }
    if choice.required, screen.actions.contains(where: { ScreenKind.choice.actionsSkippingAnswer.contains($0.kind) }) {
      fail(
        path.key("required"), "a required choice cannot be skipped or continued without an answer",
        "set \"required\": false, or remove the skip/continue action")
    }
  }

  /// An input screen: a type action, a validation failure below certainty, and whether it may be skipped.
  private mutating func checkInput(_ input: Screen.Input, of screen: Screen, at path: SpecPath) {
    if !offers(screen, .type) { fail(path.key("actions"), "an input screen needs a type action", "add \"type\": probability") }
    checkProbability(input.validationFailureProbability, path.key("validationFailureProbability"))
    if input.validationFailureProbability >= 1 {
      fail(path.key("validationFailureProbability"), "validation that always fails traps the user", "use a value below 1")
    }
    if input.required, screen.actions.contains(where: { ScreenKind.input.actionsSkippingAnswer.contains($0.kind) }) {
      fail(path.key("required"), "a required input cannot be skipped", "set \"required\": false, or remove the skip action")
    }
  }

  /// A task screen: a failure probability below certainty.
  private mutating func checkTask(_ task: Screen.Work, at path: SpecPath) {
    checkProbability(task.failureProbability, path.key("failureProbability"))
    if task.failureProbability >= 1 {
      fail(path.key("failureProbability"), "a task that always fails traps the user", "use a value below 1")
    }
  }

  /// A paywall: its plans, one purchase action, a known default plan, and the feature count.
  private mutating func checkPaywall(_ paywall: Screen.Paywall, of screen: Screen, at path: SpecPath) {
    if paywall.plans.isEmpty {
      fail(path.key("plans"), "a paywall needs at least one plan", "add {\"id\": …, \"price\": …, \"period\": …}")
    }
    if !offers(screen, .purchase) { fail(path.key("actions"), "a paywall needs a purchase action", "add \"purchase\": probability") }
    if screen.actions.filter({ $0.kind == .purchase }).count > 1 {
      fail(path.key("actions"), "a paywall has one purchase action; plans share it", "remove the extra purchase actions")
    }
    var planIDs = Set<String>()
    for (j, plan) in paywall.plans.enumerated() {
      let pp = path.key("plans").index(j)
      if !planIDs.insert(plan.id).inserted { fail(pp.key("id"), "duplicate plan '\(plan.id)'", nil) }
      if let error = SpecError.unprintable(id: plan.id, at: pp.key("id"), naming: "plan") { errors.append(error) }
      checkPlan(plan, at: pp)
    }
    if let d = paywall.defaultPlan, !planIDs.contains(d) {
      fail(
        path.key("defaultPlan"), "unknown plan '\(d)'", NameSuggestion.hint(for: d, in: paywall.plans.map(\.id)), kind: .unknownReference)
    }
    if paywall.features < 0 || paywall.features > 100 { fail(path.key("features"), "features must be from 0 to 100", nil) }
  }

  /// One paywall plan: price, intro offer, renewal, trial and utility in range.
  private mutating func checkPlan(_ plan: Plan, at pp: SpecPath) {
    if !plan.price.isFinite || plan.price <= 0 || plan.price > 1e6 {
      fail(pp.key("price"), "price must be a number > 0 and at most 1000000", "e.g. 9.99")
    }
    if let intro = plan.introPrice, !intro.isFinite || intro < 0 || intro > 1e6 {
      fail(pp.key("introPrice"), "introPrice must be from 0 to 1000000", nil)
    }
    if plan.introPeriods < 0 || plan.introPeriods > 1000 { fail(pp.key("introPeriods"), "introPeriods must be from 0 to 1000", nil) }
    if let r = plan.renewalProbability { checkProbability(r, pp.key("renewalProbability")) }
    if plan.trialDays < 0 || plan.trialDays > 3650 { fail(pp.key("trialDays"), "trialDays must be from 0 to 3650", nil) }
    if !plan.utility.isFinite || abs(plan.utility) > 20 { fail(pp.key("utility"), "utility must be within ±20", nil) }
  }

  /// A slider: finite range bounds.
  private mutating func checkSlider(_ slider: Screen.Slider, at path: SpecPath) {
    if let r = slider.range, !r.lowerBound.isFinite || !r.upperBound.isFinite {
      fail(path.key("range"), "range bounds must be finite", nil)
    }
  }

  /// Screens no path from the start reaches, and whether completion is reachable.
  mutating func checkReachability(_ flow: Flow, at base: SpecPath) {
    guard let start = flow.startID, let startIndex = flow.index(of: start) else { return }
    var reached = Set([startIndex])
    var stack = [startIndex]
    var completes = false
    while let i = stack.popLast() {
      let screen = flow.screens[i]
      var nexts: [String] = []
      for action in screen.actions where action.kind != .quit && (action.probability ?? 0) > 0 {
        nexts.append(FlowTargets.target(of: action, at: i, in: flow))
      }
      if screen.required == false, !screen.actions.contains(where: { $0.kind == .skip }) {
        nexts.append(FlowTargets.next(after: i, in: flow))
      }
      for next in nexts {
        if next == Flow.completed { completes = true; continue }
        if let j = flow.index(of: next), reached.insert(j).inserted { stack.append(j) }
      }
    }
    for (i, screen) in flow.screens.enumerated() where !reached.contains(i) {
      fail(
        base.key("screens").index(i), "screen '\(screen.id)' is unreachable from '\(start)'",
        "link to it from another screen, or remove it", kind: .unreachable)
    }
    if !completes {
      fail(
        base.key("screens"), "no path from '\(start)' reaches completion",
        "the last screen's continue, or an action with \"to\": \"completed\", must be reachable", kind: .unreachable)
    }
  }
}

/// Where actions lead by default.
enum FlowTargets {
  /// The id after screen `i` in display order, or `completed` after the last.
  static func next(after i: Int, in flow: Flow) -> String {
    i + 1 < flow.screens.count ? flow.screens[i + 1].id : Flow.completed
  }

  /// The screen before `i`, or `i` itself on the first screen.
  static func previous(before i: Int, in flow: Flow) -> String {
    i > 0 ? flow.screens[i - 1].id : flow.screens[i].id
  }

  /// The target an action leads to from screen `i`.
  static func target(of action: Action, at i: Int, in flow: Flow) -> String {
    if action.kind == .quit { return Flow.abandoned }
    if let to = action.to { return to }
    return action.kind == .back ? previous(before: i, in: flow) : next(after: i, in: flow)
  }
}
