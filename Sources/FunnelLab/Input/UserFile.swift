package import FunnelStats

/// A per-user export of an experiment (one CSV row per user: the arm, metric columns, an
/// optional pre-period covariate and day), read one line at a time into each arm's sums:
/// memory grows with the arms and days, never with the users.
///
/// **Columns.** A header names them. `arm` is required; the columns the analysis reads
/// are named by ``Columns`` (the metric, the covariate, a ratio's numerator and
/// denominator), and must hold a finite decimal number in every row, within
/// ±``maximumValue``; a `day` column, when present, dates each user (whole numbers are
/// ordered as numbers, anything else as text: ISO dates sort). Other columns (a user id)
/// are ignored.
///
/// **Sums.** Per arm: the metric's count, sum, sum of squares and of cubes (around the
/// first value read, for the skewness); the pre-period covariate's sums for CUPED and for
/// Lin's regression (``StratumSums``, measured from the first covariate value read, the
/// same point in every arm); the ratio's sums (``RatioMetric/Arm``); and per day the
/// metric's sums, for results over time.
///
/// **Problems.** The first line that cannot be read stops the reading (``problem``): its
/// line, and what is wrong in words that say what to write instead.
package struct UserFile: Sendable {
  /// The columns to read.
  package struct Columns: Sendable, Hashable {
    /// The metric compared between arms (e.g. `revenue`).
    package var metric: String?
    /// The pre-period covariate (e.g. `pre_revenue`).
    package var covariate: String?
    /// A ratio's numerator column (e.g. `revenue`).
    package var numerator: String?
    /// A ratio's denominator column (e.g. `purchases`).
    package var denominator: String?

    /// The columns named.
    package init(metric: String?, covariate: String? = nil, numerator: String? = nil, denominator: String? = nil) {
      self.metric = metric
      self.covariate = covariate
      self.numerator = numerator
      self.denominator = denominator
    }
  }

  /// One arm's users, reduced to sums.
  package struct Arm: Sendable, Hashable {
    /// The arm's name as the file writes it.
    package var name: String
    /// Users (rows).
    package var users: Int = 0
    /// The metric's count, sum and sum of squares, measured from ``UserFile/metricCenter``.
    package var metric = SampleMeanStatistic.zero
    /// `Σ(y − c)ᵏ` for `k` = 1, 2, 3 around the file's first metric value `c`.
    package var centeredPowers = [0.0, 0, 0]
    /// The covariate's sums for CUPED (covariate measured from ``UserFile/covariateShift``).
    package var cuped: CUPED.Arm?
    /// The covariate's sums for Lin's regression.
    package var regression: StratumSums?
    /// The ratio's sums.
    package var ratio: RatioMetric.Arm?

    init(name: String, columns: Columns) {
      self.name = name
      if columns.covariate != nil {
        cuped = CUPED.Arm(
          users: 0, outcomeSum: 0, outcomeSumOfSquares: 0, covariateSum: 0, covariateSumOfSquares: 0, sumOfProducts: 0)
      }
      if columns.numerator != nil {
        ratio = RatioMetric.Arm(
          users: 0, numeratorSum: 0, denominatorSum: 0, numeratorSumOfSquares: 0, denominatorSumOfSquares: 0, sumOfProducts: 0)
      }
    }
  }

  /// The largest magnitude of a value read (so that every sum of powers stays finite).
  package static let maximumValue = 1e12
  /// The most arms a file may name.
  package static let maximumArms = 64
  /// The most days a file may name.
  package static let maximumDays = 10_000
  /// The longest arm or day name, in characters.
  package static let maximumNameLength = 80

  /// The columns read.
  package let columns: Columns
  /// The arms in the order the file first names them.
  package private(set) var arms: [Arm] = []
  /// Per day (by its name), the metric's sums per arm index.
  package private(set) var days: [String: [Int: SampleMeanStatistic]] = [:]
  /// Users read.
  package private(set) var users = 0
  /// Whether the file has a `day` column.
  package private(set) var hasDays = false
  /// The first line that could not be read, and why: the reading stopped there.
  package private(set) var problem: (line: Int, message: String)?
  /// The point the covariate is measured from: the first covariate value read.
  package private(set) var covariateShift: Double?

  private var records = CSVRecordAssembler()
  private var header: [String]?
  private var index: (arm: Int, day: Int?, metric: Int?, covariate: Int?, numerator: Int?, denominator: Int?)?
  private var armIndex: [String: Int] = [:]
  /// The point the metric is measured from in every sum (``Arm/metric``, the days', CUPED's and
  /// the regression's): the first metric value read. Its mean is the sums' mean plus this.
  package private(set) var metricCenter: Double?

  /// A reader of `columns`.
  package init(columns: Columns) {
    self.columns = columns
  }

  /// Reads line `number` of the file.
  package mutating func add(line text: String, number: Int) {
    guard problem == nil else { return }
    switch records.add(text, number: number) {
    case .blank, .pending: return
    case .problem(let message, let line): problem = (line, message)
    case .record(let fields, let line):
      if index == nil { readHeader(fields, line) } else { readUser(fields, line) }
    }
  }

  /// A line that could not be read at all (not UTF-8, too long).
  package mutating func addBadLine(_ message: String, number: Int) {
    if problem == nil { problem = (number, message) }
  }

  /// Ends the file: a record left open, or a file without users, is a problem.
  package mutating func finish() {
    guard problem == nil else { return }
    if let line = records.finish() {
      problem = (line, "a quoted field never closes; close the quote")
    } else if header == nil {
      problem = (1, "the file is empty; expected a header naming arm and the metric's column, then one row per user")
    } else if users == 0 {
      problem = (2, "no users after the header; write one row per user")
    }
  }

  /// The days in order: numerically when every name is a whole number, else as text.
  package var dayOrder: [String] {
    let names = Array(days.keys)
    let numbers = names.compactMap { Int($0) }
    if numbers.count == names.count { return names.sorted { (Int($0) ?? 0, $0) < (Int($1) ?? 0, $1) } }
    return names.sorted()
  }

  private mutating func readHeader(_ fields: [String], _ line: Int) {
    header = fields
    for (k, name) in fields.enumerated() where fields[..<k].contains(name) {
      problem = (line, "the header names the column '\(name)' twice; give each column its own name")
      return
    }
    guard let arm = fields.firstIndex(of: "arm") else {
      problem = (line, "the header has no 'arm' column; name the column of each user's arm 'arm'")
      return
    }
    func column(_ name: String?, _ flag: String) -> Int?? {
      guard let name else { return .some(nil) }
      guard let k = fields.firstIndex(of: name) else {
        let suggestion = NameSuggestion.closest(to: name, in: fields).map { "; did you mean '\($0)'?" } ?? ""
        problem = (
          line,
          "no column '\(name)' for \(flag) in the header (\(fields.joined(separator: ", ")))\(suggestion)"
        )
        return nil
      }
      guard k != arm else {
        problem = (line, "\(flag) names the arm column; name a column of numbers")
        return nil
      }
      return .some(k)
    }
    guard let metric = column(columns.metric, "--metric"), let covariate = column(columns.covariate, "--covariate"),
      let numerator = column(columns.numerator, "--ratio"), let denominator = column(columns.denominator, "--ratio")
    else { return }
    let day = fields.firstIndex(of: "day")
    hasDays = day != nil
    index = (arm, day, metric, covariate, numerator, denominator)
  }

  private mutating func readUser(_ fields: [String], _ line: Int) {
    guard let index, let header else { return }
    guard fields.count == header.count else {
      problem = (line, "\(fields.count) fields, expected \(header.count) (the header's); write one value per column")
      return
    }
    func value(_ k: Int?) -> Double?? {
      guard let k else { return .some(nil) }
      let text = fields[k]
      guard let x = decimalNumber(text) else {
        problem = (
          line,
          text.isEmpty
            ? "'\(header[k])' is empty; write 0 for a user without it"
            : "'\(header[k])' is '\(text.escapingControlCharacters)', not a decimal number"
        )
        return nil
      }
      guard abs(x) <= Self.maximumValue else {
        problem = (line, "'\(header[k])' is \(text), beyond ±1e12; is the column in the right unit?")
        return nil
      }
      return .some(x)
    }
    guard let y = value(index.metric), let x = value(index.covariate), let num = value(index.numerator),
      let den = value(index.denominator)
    else { return }
    let name = fields[index.arm]
    guard !name.isEmpty, name.utf8.count <= Self.maximumNameLength || name.count <= Self.maximumNameLength else {
      problem = (line, "the arm is empty or longer than \(Self.maximumNameLength) characters")
      return
    }
    guard let a = armNumber(name, line) else { return }
    var dayName: String?
    if let d = index.day {
      let text = fields[d]
      guard !text.isEmpty, text.utf8.count <= Self.maximumNameLength || text.count <= Self.maximumNameLength else {
        problem = (line, "the day is empty or longer than \(Self.maximumNameLength) characters")
        return
      }
      guard days[text] != nil || days.count < Self.maximumDays else {
        problem = (line, "more than \(Self.maximumDays) days; is the day column a timestamp? write the day")
        return
      }
      dayName = text
    }
    add(arm: a, metric: y, covariate: x, ratio: num.flatMap { n in den.map { (n, $0) } }, day: dayName)
  }

  /// Adds one user's values to arm `a`'s sums.
  private mutating func add(arm a: Int, metric y: Double?, covariate x: Double?, ratio: (Double, Double)?, day dayName: String?) {
    users &+= 1
    arms[a].users &+= 1
    if let y {
      let c = metricCenter ?? y
      metricCenter = c
      // Measured from the first value read: a mean far from 0 keeps its variance's digits.
      let d = y - c
      arms[a].metric.add(d)
      arms[a].centeredPowers[0] += d
      arms[a].centeredPowers[1] += d * d
      arms[a].centeredPowers[2] += d * d * d
      if let dayName { days[dayName, default: [:]][a, default: .zero].add(d) }
    }
    if let x, let raw = y {
      let y = raw - (metricCenter ?? 0)
      let shift = covariateShift ?? x
      covariateShift = shift
      let dx = x - shift
      arms[a].cuped?.users += 1
      arms[a].cuped?.outcomeSum += y
      arms[a].cuped?.outcomeSumOfSquares? += y * y
      arms[a].cuped?.covariateSum += dx
      arms[a].cuped?.covariateSumOfSquares? += dx * dx
      arms[a].cuped?.sumOfProducts += dx * y
      if arms[a].regression == nil {
        arms[a].regression = StratumSums(shift: shift, sums: [Double](repeating: 0, count: StratumSums.monomials.count))
      }
      arms[a].regression?.add(outcome: y, covariate: x)
    }
    if let (num, den) = ratio {
      arms[a].ratio?.users += 1
      arms[a].ratio?.numeratorSum += num
      arms[a].ratio?.denominatorSum += den
      arms[a].ratio?.numeratorSumOfSquares += num * num
      arms[a].ratio?.denominatorSumOfSquares += den * den
      arms[a].ratio?.sumOfProducts += num * den
    }
  }

  private mutating func armNumber(_ name: String, _ line: Int) -> Int? {
    if let a = armIndex[name] { return a }
    guard arms.count < Self.maximumArms else {
      problem = (line, "more than \(Self.maximumArms) arms; is 'arm' the column of each user's arm?")
      return nil
    }
    armIndex[name] = arms.count
    arms.append(Arm(name: name, columns: columns))
    return arms.count - 1
  }
}
