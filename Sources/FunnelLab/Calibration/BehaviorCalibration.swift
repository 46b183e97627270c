import Foundation
import FunnelStats

/// Fits the base probabilities *and* the behavior parameters of a flow to the observed
/// counts of several of its variants (past tests), by maximum likelihood through the
/// exact engine.
///
/// **The likelihood.** For each variant `v` and each observed screen `s` with `N_vs`
/// views, the counts of its explicit actions (and the views no action accounts for) are
/// multinomial with the exact engine's per-view rates `e_vsa(φ)`:
/// `ℓ(φ) = Σ_v Σ_s [Σ_a n_vsa ln e_vsa(φ) + r_vs ln(1 − Σ_a e_vsa(φ))]`. For a flow in
/// which a user sees each screen at most once this is the exact likelihood of the
/// aggregated counts: the users who reach a screen are independent draws of those who
/// reach it. Where one user views a screen more than once (a back, a paywall shown again
/// after a cancelled purchase) it is a composite likelihood: the estimates stay
/// consistent, but one user's views are correlated through their traits, so the
/// intervals can be too narrow (coverage is tested on a flow without repeat views).
///
/// **The parameters** `φ`: per observed screen of the base flow, the log-ratios of its
/// explicit probabilities to the first (the probabilities are their softmax, scaled to the
/// screen's total), then the candidate behavior parameters the design identifies. The
/// variants' patches say what differed; everything they do not change is shared.
///
/// **Identifiability.** At the spec's values the expected (Fisher) information of all
/// parameters is computed. A behavior parameter is fitted only when the share of its
/// information that the parameters before it (base probabilities first, then behavior
/// parameters in declaration order) cannot explain is at least ``identifiabilityShare``;
/// otherwise it is reported as not identified, with the parameters it is confounded
/// with, and kept at the spec's value. With one variant, a parameter that acts on
/// every user alike (default-plan bias, price sensitivity) is absorbed by the base
/// probabilities; a test that changes what it acts on identifies it.
///
/// **The fit.** Fisher scoring with step halving from the spec's values, each behavior
/// parameter kept in its valid range; the Jacobian of the rates by forward differences
/// (one exact solve per parameter and variant). Standard errors come from the
/// **observed information**, the negative Hessian of `ℓ` at the estimate by central
/// differences; Wald intervals are `estimate ± z·SE`. Each fitted behavior parameter
/// also gets a **profile-likelihood interval**: the values `t` with
/// `2[ℓ(φ̂) − max_{φ: θ_j = t} ℓ(φ)] ≤ χ²₁(level)`, found by bracketing and regula
/// falsi, bounded by the parameter's range (and then flagged).
///
/// - Complexity: per scoring iteration `(P + 1)·V` exact solves for `P` parameters and
///   `V` variants (the first's solves are the identification's); the observed information
///   `(P + P²)·V`; each profile point a constrained fit, started on the line through the two
///   points found nearest it.
package struct BehaviorCalibration: Sendable {
  /// What a fitted parameter is.
  package enum ParameterKind: Sendable, Hashable {
    /// The base probability of `action` on `screen` (written to the spec).
    case probability(screen: String, action: String)
    /// A behavior parameter (written to the spec's `behavior`).
    case behavior(BehaviorParameter)
  }

  /// One fitted parameter.
  package struct FittedParameter: Sendable, Hashable {
    /// What it is.
    package var kind: ParameterKind
    /// The spec's value.
    package var assumed: Double
    /// The maximum-likelihood estimate.
    package var fitted: Double
    /// From the observed information (a probability's by the delta method).
    package var standardError: Double
    /// `fitted ± z·SE` (a probability's clamped to [0, 1]).
    package var interval: ClosedRange<Double>
    /// The profile-likelihood interval (behavior parameters only).
    package var profileInterval: ClosedRange<Double>?
    /// The profile interval's lower or upper end is the parameter's range bound, not a crossing.
    package var profileBounded: (lower: Bool, upper: Bool) { (lowerBounded, upperBounded) }
    var lowerBounded = false
    var upperBounded = false

    /// `screen.action` or the behavior parameter's name.
    package var name: String {
      switch kind {
      case .probability(let screen, let action): "\(screen).\(action)"
      case .behavior(let p): p.rawValue
      }
    }
  }

  /// A candidate behavior parameter the design cannot identify.
  package struct Unidentified: Sendable, Hashable {
    /// The parameter, kept at the spec's value.
    package var parameter: BehaviorParameter
    /// The fitted parameters that explain most of its information; empty when it does
    /// not change the observed counts at all.
    package var confoundedWith: [String]
    /// The share of its information the others leave unexplained (below ``identifiabilityShare``).
    package var unexplainedShare: Double
  }

  /// One variant's goodness of fit, screen by screen.
  package struct VariantFit: Sendable, Hashable {
    /// The variant's id.
    package var variant: String
    /// G before and after the fit per observed screen (``Calibration/ScreenFit``).
    package var screens: [Calibration.ScreenFit]
  }

  /// The minimum share of a behavior parameter's information that must be its own for it to be fitted.
  package static let identifiabilityShare = 1e-3

  /// The variants fitted, in the order given.
  package var variants: [VariantFit]
  /// The fitted base probabilities (screen by screen in flow order), then the fitted behavior parameters.
  package var parameters: [FittedParameter]
  /// Candidate behavior parameters left at the spec's value.
  package var unidentified: [Unidentified]
  /// `screen.action` of every explicit action no arm counted: fitted (and written) as probability 0.
  package var neverObserved: [String]
  /// Scoring iterations of the main fit.
  package var iterations: Int
  /// `ℓ` at the spec's values and at the estimate (multinomial constants omitted).
  package var logLikelihood: (assumed: Double, fitted: Double)
  /// The confidence level of the intervals.
  package var level: Double
  /// The covariance of the fitted behavior parameters (in ``parameters``' order), from the observed information.
  package var behaviorCovariance: [[Double]]
  /// The spec with the fitted probabilities and behavior parameters.
  package var calibrated: Experiment
  /// The spec document with them written (member order kept).
  package var document: JSONValue

  /// The fitted behavior parameters.
  package var behaviorParameters: [FittedParameter] {
    parameters.filter { if case .behavior = $0.kind { true } else { false } }
  }

  /// The likelihood-ratio statistic of the fit against the spec's values: `2(ℓ̂ − ℓ₀)`.
  package var likelihoodRatio: Double { 2 * (logLikelihood.fitted - logLikelihood.assumed) }
}

extension BehaviorCalibration {
  /// The behavior parameters that act on action probabilities (the others act on time or
  /// are bounds and prices): the default candidates.
  package static let fittable: [BehaviorParameter] = [
    .fatiguePerScreen, .requiredInputFriction, .optionalSkipShare, .intentOnQuit, .intentOnPurchase, .investmentPerScreen,
    .personalizationBoost, .defaultPlanBias, .badgeBoost, .priceSensitivity, .featureUtility,
  ]

  /// A stage of ``fit(_:document:observed:candidates:level:profile:source:progress:fitting:)``
  /// before the profile-likelihood intervals, as its `fitting` progress names it.
  package enum Stage: Sendable, Hashable {
    /// Which candidates the design identifies: the Jacobian at the spec's values, a row
    /// (an evaluation of the rates) per parameter, candidates included.
    case identification
    /// Scoring iteration `iteration` (from 1): the Jacobian at the current point, a row per
    /// fitted parameter (then a few evaluations of the step, not counted); the first
    /// iteration's rows are the identification's, reported done at once.
    case scoring(iteration: Int)
    /// The observed information at the estimate: `P + P²` evaluations of the rates.
    case information
  }

  /// Fits `experiment` to the counts of `observed` (variant id and its counts).
  /// - Parameters:
  ///   - candidates: the behavior parameters that may be fitted (default ``fittable``).
  ///   - profile: whether to compute the profile-likelihood intervals.
  ///   - threads: workers of the evaluations (`nil`: every core); the fit does not depend on it.
  ///   - progress: called with the profile-likelihood ends done and their total (two a
  ///     fitted behavior parameter): first with 0 once the fit itself is done, then after each end.
  ///   - fitting: called with each ``Stage`` of the fit before that and its work done and
  ///     total: first with 0 as the stage starts, then as each evaluation ends, one call at a
  ///     time (from the workers' threads). It observes only: the fit is the same without it.
  /// - Throws: ``SpecErrors`` for an invalid spec, unknown variants, screens or actions,
  ///   a parameter that cannot be fitted, or a fit that does not converge.
  package static func fit(
    _ experiment: Experiment, document: JSONValue, observed: [(variant: String, counts: ObservedCounts)],
    candidates: [BehaviorParameter] = fittable, level: Double = 0.95, profile: Bool = true, source: String = "observed",
    threads: Int? = nil, progress: ((_ done: Int, _ total: Int) -> Void)? = nil,
    fitting: (@Sendable (_ stage: Stage, _ done: Int, _ total: Int) -> Void)? = nil
  ) throws(SpecErrors) -> BehaviorCalibration {
    guard level > 0, level < 1 else {
      throw failure("the confidence level \(level) is not between 0 and 1", hint: "e.g. 0.95", source: source)
    }
    let errors = experiment.validationErrors()
    guard errors.isEmpty else { throw SpecErrors(source: experiment.name, errors: errors) }
    if let bad = candidates.first(where: { !fittable.contains($0) }) {
      throw failure(
        "\(bad.rawValue) does not act on the action counts, so counts cannot fit it",
        hint: "fittable: " + fittable.map(\.rawValue).joined(separator: ", "), source: source)
    }
    // Declaration order: the order in which identifiability is decided.
    var all = try LikelihoodModel(experiment, observed: observed, behaviors: Array(Set(candidates)).sorted(), source: source)
    all.threads = threads
    let (identified, unidentified, solved) = all.identify(at: all.start, progress: report(.identification, to: fitting))
    var model = all
    model.keep(identified)
    // The spec's values in the fitted parameters' layout (base log-ratios, then the identified parameters).
    let start = model.start
    var phi = start
    // The identification solved the spec's values and their Jacobian: the fit starts from them.
    let atStart = solved.kept(by: model, from: all)
    let assumedRates = atStart?.rates ?? model.rates(start)
    let assumedLogLikelihood = model.logLikelihood(rates: assumedRates)
    if let impossible = model.impossibleScreen(rates: assumedRates) {
      throw failure(
        "variant '\(impossible.variant)', screen '\(impossible.screen)': \(impossible.problem)",
        hint: "check the export, or give the spec the action these users took", source: source)
    }
    var iterations: (@Sendable (_ iteration: Int, _ done: Int, _ total: Int) -> Void)?
    if let fitting { iterations = { fitting(.scoring(iteration: $0), $1, $2) } }
    let scoring = model.maximize(from: &phi, fixed: nil, solved: atStart, progress: iterations)
    guard scoring.converged else {
      throw failure(
        "the fit did not converge in \(LikelihoodModel.maxIterations) iterations",
        hint: "fit fewer behavior parameters with --fit, or check the counts", source: source)
    }
    if let k = model.behaviors.indices.first(where: { model.behaviors[$0].range.isBound(phi[model.baseCount + $0]) }) {
      let parameter = model.behaviors[k]
      throw failure(
        "\(parameter.rawValue) is fitted at its range bound \(JSONValue.format(phi[model.baseCount + k])): "
          + "the counts push it past what the model allows, so it has no interval",
        hint: "fit without it (--fit), or check the counts", source: source)
    }
    let fitted = scoring.logLikelihood
    guard let covariance = model.covariance(at: phi, centerRates: scoring.rates, progress: report(.information, to: fitting)) else {
      throw failure(
        "the observed information is not positive definite at the estimate",
        hint: "some fitted parameter is at a bound or barely identified; fit fewer with --fit", source: source)
    }
    let z = Normal.standardQuantile(p: 0.5 + level / 2, q: 0.5 - level / 2)
    let (behaviorParameters, behaviorCovariance) = behaviorIntervals(
      model, experiment: experiment, phi: phi, covariance: covariance, logLikelihood: fitted, z: z, profile: profile,
      progress: progress)
    let parameters = model.probabilityParameters(phi, covariance: covariance, z: z) + behaviorParameters
    var (document, calibrated) = model.write(phi, into: document)
    try Calibration.refuseBrokenFlow(experiment, fitted: calibrated, source: source)
    writeUncertainty(
      of: model.behaviors, estimates: model.behaviors.indices.map { phi[model.baseCount + $0] }, covariance: behaviorCovariance,
      keeping: experiment.parameterUncertainty, source: source, into: &document, calibrated: &calibrated)
    return BehaviorCalibration(
      variants: model.goodnessOfFit(assumed: assumedRates, fitted: scoring.rates), parameters: parameters, unidentified: unidentified,
      neverObserved: model.screens.flatMap { s in
        s.neverObserved.map { "\(experiment.flow.screens[s.index].id).\(experiment.flow.screens[s.index].actions[$0].id)" }
      },
      iterations: scoring.iterations, logLikelihood: (assumedLogLikelihood, fitted), level: level,
      behaviorCovariance: behaviorCovariance, calibrated: calibrated,
      document: document)
  }
}

extension BehaviorCalibration {
  /// `fitting`'s progress of one `stage`: `(done, total)` reported as `(stage, done, total)`.
  static func report(
    _ stage: Stage, to fitting: (@Sendable (_ stage: Stage, _ done: Int, _ total: Int) -> Void)?
  ) -> (@Sendable (_ done: Int, _ total: Int) -> Void)? {
    guard let fitting else { return nil }
    return { done, total in fitting(stage, done, total) }
  }

  /// Each fitted behavior parameter with its Wald interval and, with `profile`, its
  /// profile-likelihood interval (reporting each end to `progress`); and their covariance rows.
  static func behaviorIntervals(
    _ model: LikelihoodModel, experiment: Experiment, phi: [Double], covariance: [[Double]], logLikelihood fitted: Double, z: Double,
    profile: Bool, progress: ((_ done: Int, _ total: Int) -> Void)?
  ) -> (parameters: [FittedParameter], covariance: [[Double]]) {
    var parameters: [FittedParameter] = []
    var behaviorCovariance: [[Double]] = []
    let ends = profile ? 2 * model.behaviors.count : 0
    if ends > 0 { progress?(0, ends) }
    for (k, parameter) in model.behaviors.enumerated() {
      let i = model.baseCount + k
      let se = covariance[i][i].squareRoot()
      var fittedParameter = FittedParameter(
        kind: .behavior(parameter), assumed: experiment.behavior[parameter], fitted: phi[i], standardError: se,
        interval: (phi[i] - z * se)...(phi[i] + z * se))
      if profile {
        model.profile(
          i, estimate: phi, logLikelihood: fitted, se: se, z: z, covarianceRow: covariance[i], into: &fittedParameter
        ) { end in
          progress?(2 * k + end, ends)
        }
      }
      parameters.append(fittedParameter)
      behaviorCovariance.append(model.behaviors.indices.map { covariance[i][model.baseCount + $0] })
    }
    return (parameters, behaviorCovariance)
  }

  /// Writes the fit's uncertainty as the spec's `parameterUncertainty` section (see
  /// ``ParameterUncertainty/fitted(_:estimates:covariance:keeping:summary:)``); when it
  /// cannot be written, a section that would still hold the overturned guesses is removed.
  static func writeUncertainty(
    of behaviors: [BehaviorParameter], estimates: [Double], covariance: [[Double]], keeping earlier: ParameterUncertainty?,
    source: String, into document: inout JSONValue, calibrated: inout Experiment
  ) {
    guard !behaviors.isEmpty else { return }
    let uncertainty = ParameterUncertainty.fitted(
      behaviors, estimates: estimates, covariance: covariance, keeping: earlier,
      summary: "Fitted by calibrate from \(source): each parameter normal at its estimate with its standard error, "
        + "correlated as the estimates (observed information).")
    if let uncertainty {
      document = document.settingMember(["parameterUncertainty"], to: uncertainty.specJSON)
    } else {
      document = document.removingMember("parameterUncertainty")
    }
    calibrated.parameterUncertainty = uncertainty
  }
}

extension ClosedRange<Double> {
  /// `x` is one of the range's two ends.
  fileprivate func isBound(_ x: Double) -> Bool { x == lowerBound || x == upperBound }
}

extension BehaviorCalibration {
  /// One problem of the fit, reported against the observed counts' file.
  static func failure(_ message: String, hint: String, source: String) -> SpecErrors {
    SpecErrors(source: source, errors: [SpecError(path: .root, message: message, hint: hint)])
  }

  /// The goodness of fit of the whole model: the G of every variant's screens after the fit,
  /// on their degrees of freedom less the parameters fitted, and its p-value (1 when no
  /// degree of freedom is left: the model is saturated).
  package var fittedTotal: (g: Double, degreesOfFreedom: Int, p: Double) {
    let screens = variants.flatMap(\.screens)
    let g = screens.reduce(0) { $0 + $1.fittedG }
    let df = max(screens.reduce(0) { $0 + $1.degreesOfFreedom } - freeParameterCount, 0)
    return (g, df, df > 0 ? ChiSquared(degreesOfFreedom: Double(df)).sf(g) : 1)
  }

  /// The parameters fitted freely: a screen's probabilities sum to its total, so each
  /// screen has one fewer free than it lists.
  package var freeParameterCount: Int {
    parameters.count - Set(parameters.compactMap { if case .probability(let screen, _) = $0.kind { screen } else { nil } }).count
  }
}
