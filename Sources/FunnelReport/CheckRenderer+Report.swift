extension CheckRenderer {
  /// `check`'s report: every expectation of each spec checked, and the baseline compared.
  package struct Report: TableReport, JSONReport, MarkdownReport, HTMLReport, GitHubAnnotationsReport {
    /// The specs checked, in the order given.
    package var files: [File]

    /// The report of `files`.
    package init(_ files: [File]) { self.files = files }

    /// The terminal table.
    package func table() -> String { CheckRenderer.table(files) }
    /// The JSON document.
    package func json() -> String { CheckRenderer.json(files) }
    /// The Markdown text.
    package func markdown() -> String { CheckRenderer.markdown(files) }
    /// The HTML page.
    package func html() -> String { CheckRenderer.html(files) }
    /// The GitHub annotations.
    package func githubAnnotations() -> String { CheckRenderer.github(files) }
  }
}
