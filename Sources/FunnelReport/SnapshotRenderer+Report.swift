extension SnapshotRenderer.Report: TableReport, JSONReport, MarkdownReport {
  /// The terminal table.
  package func table() -> String { SnapshotRenderer.table(self) }
  /// The JSON document.
  package func json() -> String { SnapshotRenderer.json(self) }
  /// The Markdown text (a pull-request comment).
  package func markdown() -> String { SnapshotRenderer.markdown(self) }
}
