/// The alternative hypothesis of a test.
///
/// `.twoSided` tests `θ ≠ θ₀`; `.greater` tests `θ > θ₀`; `.less` tests `θ < θ₀`,
/// where θ is the treatment's parameter and θ₀ the control's (or the null value).
public enum Alternative: String, Sendable, Hashable, CaseIterable, Codable {
  case twoSided = "two-sided"
  case greater
  case less
}
