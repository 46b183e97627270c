import FunnelLab

extension Experiment {
  /// This experiment reduced to a purely explicit-probability flow: every behavior
  /// parameter measured in utility units set to 0 (globally and in every segment),
  /// one intent bin, and no dwell time (`dwell.medianSeconds` 0 on every screen and
  /// no seconds per paywall feature).
  ///
  /// The compiled tables then reproduce the spec's probabilities (a purchase's
  /// probability split evenly over its plans), and the walk draws one number per
  /// step and nothing else: the cheapest flow the engine can run.
  public var explicitProbabilitiesOnly: Experiment {
    var e = self
    let utilityParameters = BehaviorParameter.allCases.filter { $0.unit.hasPrefix("utility") }
    for parameter in utilityParameters { e.behavior[parameter] = 0 }
    e.behavior.secondsPerFeature = 0
    for s in e.population.segments.indices {
      for parameter in utilityParameters where e.population.segments[s].behavior[parameter] != nil {
        e.population.segments[s].behavior[parameter] = 0
      }
      e.population.segments[s].behavior[.secondsPerFeature] = nil
    }
    e.simulation.traitBins = 1
    for i in e.flow.screens.indices {
      e.flow.screens[i].dwell = Dwell(medianSeconds: 0)
    }
    return e
  }
}
