extension Array {
  /// The element at `i`, `nil` out of range.
  subscript(safe i: Int) -> Element? { indices.contains(i) ? self[i] : nil }
}
