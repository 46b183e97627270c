import FunnelLab

extension HTMLDocument {
  /// The width of `text` on one line in ems of the page's table font, regular or bold (a
  /// header cell): the sum of its characters' advance widths in Arial, whose metrics Liberation
  /// Sans shares (the font Chromium picks for the stylesheet's `Arial` on Linux; Helvetica,
  /// Segoe UI and Roboto are within a few per cent of it).
  ///
  /// Printable ASCII is measured per character (``arialWidths``), and so are a few symbols the
  /// reports use (``symbolWidths``); ``Tone`` marks and U+200B, which the page does not show,
  /// count nothing; a control character counts as the escape the page shows for it
  /// (`\u{1B}`); anything else counts a whole em, as wide as a CJK character or `—`.
  ///
  /// - Complexity: O(*n*) in the text's Unicode scalars.
  static func textWidth(_ text: String, bold: Bool) -> Double { Double(thousandths(text, bold: bold)) / 1000 }

  /// ``textWidth(_:bold:)`` in thousandths of an em.
  private static func thousandths(_ text: String, bold: Bool) -> Int {
    var sum = 0
    for c in text.unicodeScalars where !Tone.isMark(Character(c)) {
      if c == "\n" || c == "\t" {
        sum += arialWidths[0].regular  // white space, shown as a space
      } else if c.isEscapedInMessages {
        sum += thousandths(UntrustedText.shown(c), bold: bold)
      } else if (0x20..<0x7F).contains(c.value) {
        let width = arialWidths[Int(c.value) - 0x20]
        sum += bold ? width.bold : width.regular
      } else {
        sum += symbolWidths[c] ?? 1000
      }
    }
    return sum
  }

  /// The widest word of `text` in ems, regular: the narrowest a cell that may break into
  /// lines (``table(_:_:right:wrap:caption:)``'s `wrap`) can be. Words end at spaces and at
  /// U+200B (a line may break there); a browser may also break after a hyphen, so this is at
  /// least the true width.
  static func widestWord(_ text: String) -> Double {
    text.split { $0 == " " || $0 == "\u{200B}" }.map { textWidth(String($0), bold: false) }.max() ?? 0
  }

  /// Advance widths of Arial (Liberation Sans), regular and bold, of U+0020 (space) to U+007E
  /// (`~`) in thousandths of an em rounded up; digits are tabular (0.557 em) in both weights.
  static let arialWidths: [(regular: Int, bold: Int)] = [
    (278, 278), (278, 334), (355, 475), (557, 557), (557, 557), (890, 890), (667, 723), (191, 238),  // space ! " # $ % & '
    (334, 334), (334, 334), (390, 390), (584, 584), (278, 278), (334, 334), (278, 278), (278, 278),  // ( ) * + , - . /
    (557, 557), (557, 557), (557, 557), (557, 557), (557, 557), (557, 557), (557, 557), (557, 557),  // 0 1 2 3 4 5 6 7
    (557, 557), (557, 557), (278, 334), (278, 334), (584, 584), (584, 584), (584, 584), (557, 611),  // 8 9 : ; < = > ?
    (1016, 976), (667, 723), (667, 723), (723, 723), (723, 723), (667, 667), (611, 611), (778, 778),  // @ A B C D E F G
    (723, 723), (278, 278), (500, 557), (667, 723), (557, 611), (834, 834), (723, 723), (778, 778),  // H I J K L M N O
    (667, 667), (778, 778), (723, 723), (667, 667), (611, 611), (723, 723), (667, 667), (944, 944),  // P Q R S T U V W
    (667, 667), (667, 667), (611, 611), (278, 334), (278, 278), (278, 334), (470, 584), (557, 557),  // X Y Z [ \ ] ^ _
    (334, 334), (557, 557), (557, 611), (500, 557), (557, 611), (557, 557), (278, 334), (557, 611),  // ` a b c d e f g
    (557, 611), (223, 278), (223, 278), (500, 557), (223, 278), (834, 890), (557, 611), (557, 611),  // h i j k l m n o
    (557, 611), (557, 611), (334, 390), (500, 557), (278, 334), (557, 611), (500, 557), (723, 778),  // p q r s t u v w
    (500, 557), (500, 557), (500, 500), (334, 390), (260, 280), (334, 390), (584, 584),  // x y z { | } ~
  ]

  /// Thousandths of an em of the symbols reports put in tables (the wider of the two weights);
  /// U+200B, a place where a line may break, is invisible.
  static let symbolWidths: [Unicode.Scalar: Int] = [
    "\u{200B}": 0, "·": 278, "²": 334, "±": 549, "≥": 549, "≤": 549, "≈": 549, "–": 557, "€": 557, "£": 557, "µ": 577,
    "−": 584, "×": 584, "α": 615, "β": 611, "σ": 685, "Δ": 719, "—": 1000, "…": 1000, "→": 1000, "←": 1000,
  ]
}
