/// The alternative hypothesis of a test.
///
/// `.twoSided` tests `θ ≠ θ₀`; `.greater` tests `θ > θ₀`; `.less` tests `θ < θ₀`,
/// where θ is the treatment's parameter and θ₀ the control's (or the null value).
public enum Alternative: String, Sendable, Hashable, CaseIterable, Codable {
  /// `θ ≠ θ₀`: an effect in either direction; the raw value `two-sided` is what specs and reports write.
  case twoSided = "two-sided"
  /// `θ > θ₀`: only an increase of the treatment's parameter counts.
  case greater
  /// `θ < θ₀`: only a decrease of the treatment's parameter counts.
  case less
}
