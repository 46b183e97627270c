extension StatsError {
  /// Where a problem is: an argument of the function called, then the records and members
  /// inside it. `arms[1].conversions` is `[.name(.arms), .index(1), .name(.conversions)]`.
  ///
  /// Callers decide where a value came from by the steps (``argument``,
  /// ``index(after:)``), so renaming a message never changes an exit code.
  public struct Field: Sendable, Hashable, CustomStringConvertible, ExpressibleByArrayLiteral {
    /// The names of arguments and of their members, as the Swift API spells them.
    public enum Name: String, Sendable, Hashable, CaseIterable {
      // Arms and their records.
      case arms, control, treatment, looks, strata, table, observed, differences
      // Members of an arm or a sample.
      case users, conversions, revenue, successes, trials, n, sumOfSquares, covariates, covariate, outcomes
      // The cells of a 2×2 table.
      case a, b, c, d, neither, treatmentOnly, controlOnly, both
      // Settings and parameters.
      case settings, alpha, power, effect, effects, baseline, sampleSize, ratio, standardDeviation, standardError, standardErrors
      case confidenceLevel, credibleLevel, nullValue, nullDifference, plannedUsers, plannedAllocation, tuningParameter
      case mixingStandardDeviation, replicates, problem, prior, rates, weights, pValues, statistic, boundaries
      case informationFractions, days, burnInDays, horizonDays, usersPerDay, usersPerArm, epsilon, minimumShare
      case leaderProbability, holdoutShare, margin, name
    }

    /// One step of the path.
    public enum Step: Sendable, Hashable {
      /// A named argument or member (`.arms`, `.conversions`).
      case name(Name)
      /// A position in a list (`[1]`).
      case index(Int)
      /// Every position of a list (`[*]`), e.g. a column of a table.
      case every
      /// An entry of a map keyed by a caller's name or value (`[variantB]`).
      case key(String)
    }

    /// The steps, outermost first; never empty for a thrown error.
    public var steps: [Step]

    /// Creates a path from its steps.
    public init(_ steps: [Step]) { self.steps = steps }

    /// Creates a path from its steps.
    public init(arrayLiteral steps: Step...) { self.steps = steps }

    /// This path followed by `more`.
    public func appending(_ more: Step...) -> Field { Field(steps + more) }

    /// The argument the path starts at.
    public var argument: Name? {
      guard case .name(let name) = steps.first else { return nil }
      return name
    }

    /// The index right after the first step named `name` (`looks[3].arms[1]`: 3 after
    /// `.looks`, 1 after `.arms`).
    public func index(after name: Name) -> Int? {
      guard let at = steps.firstIndex(of: .name(name)), at + 1 < steps.count, case .index(let i) = steps[at + 1] else { return nil }
      return i
    }

    /// The steps after the first index that follows `name` (`arms[1].revenue.n` → `revenue.n`).
    public func members(after name: Name) -> Field {
      guard let at = steps.firstIndex(of: .name(name)) else { return Field([]) }
      return Field(Array(steps.dropFirst(min(steps.count, at + 2))))
    }

    /// The path as the API spells it: `arms[1].conversions`, `settings.plannedAllocation[b]`.
    public var description: String {
      var text = ""
      for step in steps {
        switch step {
        case .name(let name): text += (text.isEmpty ? "" : ".") + name.rawValue
        case .index(let i): text += "[\(i)]"
        case .every: text += "[*]"
        case .key(let key): text += "[\(key)]"
        }
      }
      return text
    }
  }
}
