import FunnelLab
package import FunnelStats

extension PowerRenderer {
  /// `power`'s report in the formula mode: the solved design, its calendar and, with looks, its
  /// group-sequential plan (the HTML page draws the power curve around it).
  package struct Report: TableReport, JSONReport, CSVReport, MarkdownReport, HTMLReport {
    /// The solved design.
    package var result: PowerAnalysis.Result
    /// The problem solved (the HTML page's power curve is drawn from it).
    package var problem: PowerAnalysis.Problem
    /// Whether the effect is a difference of means.
    package var isMeans: Bool
    /// Users a day, both arms, when given.
    package var usersPerDay: Int?
    /// Days, when given.
    package var days: Int?
    /// The group-sequential plan, with `--looks`.
    package var sequential: GroupSequentialPlan?

    /// The report of `result`, solved from `problem`.
    package init(
      _ result: PowerAnalysis.Result, problem: PowerAnalysis.Problem, isMeans: Bool, usersPerDay: Int?, days: Int?,
      sequential: GroupSequentialPlan?
    ) {
      self.result = result
      self.problem = problem
      self.isMeans = isMeans
      self.usersPerDay = usersPerDay
      self.days = days
      self.sequential = sequential
    }

    /// The terminal table.
    package func table() -> String {
      PowerRenderer.table(result, isMeans: isMeans, usersPerDay: usersPerDay, days: days, sequential: sequential)
    }
    /// The JSON document.
    package func json() -> String {
      PowerRenderer.json(result, isMeans: isMeans, usersPerDay: usersPerDay, days: days, sequential: sequential)
    }
    /// The CSV text.
    package func csv() -> String {
      PowerRenderer.csv(result, isMeans: isMeans, usersPerDay: usersPerDay, days: days, sequential: sequential)
    }
    /// The Markdown text.
    package func markdown() -> String {
      PowerRenderer.markdown(result, isMeans: isMeans, usersPerDay: usersPerDay, days: days, sequential: sequential)
    }
    /// The HTML page, with the power curve around the design.
    package func html() -> String {
      PowerRenderer.html(
        result, isMeans: isMeans, usersPerDay: usersPerDay, days: days, curve: PowerCurve(problem: problem, result: result),
        sequential: sequential)
    }
  }
}
