import Testing

@testable import FunnelLab

/// The parser against cases in the spirit of JSONTestSuite (github.com/nst/JSONTestSuite):
/// every `y_` category parses to the right value, every `n_` category fails with a line
/// and a column. The cases are written here, not copied from the suite.
@Suite struct JSONParserTests {
  struct Accepted: CustomTestStringConvertible, Sendable {
    var name: String
    var text: String
    var expected: JSONValue.Kind
    var testDescription: String { name }
  }

  struct Rejected: CustomTestStringConvertible, Sendable {
    var name: String
    var text: String
    var line: Int
    var column: Int
    var message: String
    var testDescription: String { name }
  }

  static func number(_ value: Double, _ literal: String) -> JSONValue.Kind { .number(value, literal: literal) }

  static let accepted: [Accepted] = [
    // Arrays.
    Accepted(name: "y_array_empty", text: "[]", expected: .array([])),
    Accepted(name: "y_array_empty_string", text: #"[""]"#, expected: .array([JSONValue(.string(""), line: 1)])),
    Accepted(
      name: "y_array_heterogeneous", text: #"[null, 1, "1", {}]"#,
      expected: .array([
        JSONValue(.null, line: 1), JSONValue(number(1, "1"), line: 1), JSONValue(.string("1"), line: 1),
        JSONValue(.object([]), line: 1),
      ])),
    Accepted(
      name: "y_array_nested_and_newlines", text: "[[\n]\n,\n[1]]",
      expected: .array([JSONValue(.array([]), line: 1), JSONValue(.array([JSONValue(number(1, "1"), line: 4)]), line: 4)])),
    Accepted(name: "y_array_false", text: "[false]", expected: .array([JSONValue(.bool(false), line: 1)])),
    // Numbers.
    Accepted(name: "y_number_zero", text: "0", expected: number(0, "0")),
    Accepted(name: "y_number_negative_zero", text: "-0", expected: number(-0.0, "-0")),
    Accepted(name: "y_number_negative_int", text: "-123", expected: number(-123, "-123")),
    Accepted(name: "y_number_real_fraction_exponent", text: "123.456e78", expected: number(123.456e78, "123.456e78")),
    Accepted(name: "y_number_real_capital_e_pos_exp", text: "1E+2", expected: number(100, "1E+2")),
    Accepted(name: "y_number_real_neg_exp", text: "1e-2", expected: number(0.01, "1e-2")),
    Accepted(name: "y_number_zero_exponent", text: "0e1", expected: number(0, "0e1")),
    Accepted(name: "y_number_after_space", text: " 4", expected: number(4, "4")),
    Accepted(
      name: "y_number_huge_integer_keeps_literal", text: "123456789012345678901234567890",
      expected: number(123_456_789_012_345_678_901_234_567_890.0, "123456789012345678901234567890")),
    Accepted(name: "y_number_huge_exponent_is_infinite", text: "1e400", expected: number(.infinity, "1e400")),
    Accepted(name: "y_number_tiny_exponent_is_zero", text: "1e-400", expected: number(0, "1e-400")),
    // Objects.
    Accepted(name: "y_object_empty", text: "{}", expected: .object([])),
    Accepted(
      name: "y_object_empty_key", text: #"{"":0}"#,
      expected: .object([JSONValue.Member(key: "", value: JSONValue(number(0, "0"), line: 1), line: 1)])),
    Accepted(
      name: "y_object_keys_kept_in_order", text: #"{"b": 1, "a": 2}"#,
      expected: .object([
        JSONValue.Member(key: "b", value: JSONValue(number(1, "1"), line: 1), line: 1),
        JSONValue.Member(key: "a", value: JSONValue(number(2, "2"), line: 1), line: 1),
      ])),
    Accepted(
      name: "y_object_escaped_key", text: #"{"\u0061": null}"#,
      expected: .object([JSONValue.Member(key: "a", value: JSONValue(.null, line: 1), line: 1)])),
    Accepted(
      name: "y_object_same_key_after_unescaping_differs", text: #"{"a": 1, "A": 2}"#,
      expected: .object([
        JSONValue.Member(key: "a", value: JSONValue(number(1, "1"), line: 1), line: 1),
        JSONValue.Member(key: "A", value: JSONValue(number(2, "2"), line: 1), line: 1),
      ])),
    // Strings.
    Accepted(name: "y_string_empty", text: #""""#, expected: .string("")),
    Accepted(
      name: "y_string_simple_escapes", text: #""\"\\\/\b\f\n\r\t""#, expected: .string("\"\\/\u{08}\u{0C}\n\r\t")),
    Accepted(name: "y_string_unicode_escape", text: #""\u00e9\u20AC""#, expected: .string("é€")),
    Accepted(name: "y_string_escaped_null", text: #""\u0000""#, expected: .string("\u{0}")),
    Accepted(name: "y_string_surrogate_pair", text: #""\uD83D\uDE00""#, expected: .string("😀")),
    Accepted(name: "y_string_last_surrogates", text: #""\uDBFF\uDFFF""#, expected: .string("\u{10FFFF}")),
    Accepted(name: "y_string_raw_utf8", text: "\"é😀\u{2028}\"", expected: .string("é😀\u{2028}")),
    Accepted(name: "y_string_del_is_not_a_control", text: "\"\u{7F}\"", expected: .string("\u{7F}")),
    Accepted(name: "y_string_nonchar_escape", text: #""\uFFFF""#, expected: .string("\u{FFFF}")),
    Accepted(name: "y_string_slash_unescaped", text: #""/""#, expected: .string("/")),
    // Structure and whitespace.
    Accepted(name: "y_structure_lonely_true", text: "true", expected: .bool(true)),
    Accepted(name: "y_structure_lonely_null", text: "null", expected: .null),
    Accepted(name: "y_structure_lonely_string", text: #""asd""#, expected: .string("asd")),
    Accepted(name: "y_structure_whitespace_around", text: " \t\r\n[] \t\r\n", expected: .array([])),
    Accepted(name: "y_structure_crlf_lines", text: "[\r\n1\r\n]", expected: .array([JSONValue(number(1, "1"), line: 2)])),
  ]

  @Test(arguments: accepted)
  func parses(_ c: Accepted) throws {
    let value = try JSONParser.parse(c.text)
    // Negative zero and infinity compare by value and sign, not by `==` alone.
    if case .number(let d, let literal) = value.kind, case .number(let e, let expected) = c.expected {
      #expect(literal == expected)
      #expect(d == e && d.sign == e.sign)
    } else {
      #expect(value.kind == c.expected)
    }
  }

  static let rejected: [Rejected] = [
    // Arrays.
    Rejected(name: "n_array_trailing_comma", text: "[1,]", line: 1, column: 4, message: "unexpected character ']'"),
    Rejected(name: "n_array_extra_comma", text: "[1,,2]", line: 1, column: 4, message: "unexpected character ','"),
    Rejected(name: "n_array_unclosed", text: "[1", line: 1, column: 3, message: "unexpected end of the document inside an array"),
    Rejected(name: "n_array_colon_instead_of_comma", text: #"["": 1]"#, line: 1, column: 4, message: "expected ',' or ']'"),
    // Numbers.
    Rejected(name: "n_number_leading_zero", text: "[012]", line: 1, column: 3, message: "expected ',' or ']'"),
    Rejected(name: "n_number_plus", text: "+1", line: 1, column: 1, message: "unexpected character '+'"),
    Rejected(name: "n_number_dot_first", text: "[.5]", line: 1, column: 2, message: "unexpected character '.'"),
    Rejected(name: "n_number_dot_last", text: "[1.]", line: 1, column: 4, message: "invalid number: digits expected after '.'"),
    Rejected(name: "n_number_empty_exponent", text: "[1e]", line: 1, column: 4, message: "invalid number: digits expected in the exponent"),
    Rejected(name: "n_number_minus_alone", text: "[-]", line: 1, column: 3, message: "invalid number"),
    Rejected(name: "n_number_hex", text: "[0x1]", line: 1, column: 3, message: "expected ',' or ']'"),
    Rejected(name: "n_number_nan", text: "[NaN]", line: 1, column: 2, message: "unexpected character 'N'"),
    Rejected(name: "n_number_infinity", text: "[Infinity]", line: 1, column: 2, message: "unexpected character 'I'"),
    Rejected(name: "n_number_minus_infinity", text: "[-Infinity]", line: 1, column: 3, message: "invalid number"),
    // Objects.
    Rejected(name: "n_object_trailing_comma", text: #"{"a": 1,}"#, line: 1, column: 9, message: "expected a key in double quotes"),
    Rejected(name: "n_object_single_quotes", text: "{'a': 1}", line: 1, column: 2, message: "expected a key in double quotes"),
    Rejected(name: "n_object_unquoted_key", text: "{a: 1}", line: 1, column: 2, message: "expected a key in double quotes"),
    Rejected(name: "n_object_missing_colon", text: #"{"a" 1}"#, line: 1, column: 6, message: "expected ':' after key \"a\""),
    Rejected(name: "n_object_missing_value", text: #"{"a":}"#, line: 1, column: 6, message: "unexpected character '}'"),
    Rejected(name: "n_object_unclosed", text: #"{"a": 1"#, line: 1, column: 8, message: "unexpected end of the document inside an object"),
    Rejected(name: "n_object_non_string_key", text: "{1: 1}", line: 1, column: 2, message: "expected a key in double quotes"),
    Rejected(name: "n_object_duplicate_key", text: "{\"a\": 1,\n \"a\": 2}", line: 2, column: 5, message: "duplicate key \"a\""),
    // Strings.
    Rejected(name: "n_string_single_quote", text: "['a']", line: 1, column: 2, message: "unexpected character '''"),
    Rejected(name: "n_string_unescaped_newline", text: "[\"a\nb\"]", line: 1, column: 4, message: "control character in a string"),
    Rejected(name: "n_string_unescaped_tab", text: "[\"\t\"]", line: 1, column: 3, message: "control character in a string"),
    Rejected(name: "n_string_invalid_escape", text: #"["\x41"]"#, line: 1, column: 5, message: "invalid escape '\\x'"),
    Rejected(name: "n_string_escaped_emoji", text: "[\"\\😀\"]", line: 1, column: 5, message: "invalid escape '\\😀'"),
    Rejected(name: "n_string_short_unicode_escape", text: #"["\u12"]"#, line: 1, column: 7, message: "invalid hex digit"),
    Rejected(name: "n_string_lone_high_surrogate", text: #"["\uD800"]"#, line: 1, column: 9, message: "unpaired surrogate"),
    Rejected(name: "n_string_lone_low_surrogate", text: #"["\uDC00"]"#, line: 1, column: 9, message: "invalid \\u escape"),
    Rejected(name: "n_string_high_then_high", text: #"["\uD800\uD800"]"#, line: 1, column: 15, message: "invalid low surrogate"),
    Rejected(name: "n_string_unterminated", text: #"["abc"#, line: 1, column: 6, message: "unterminated string"),
    // Structure.
    Rejected(name: "n_structure_empty", text: "", line: 1, column: 1, message: "unexpected end of the document"),
    Rejected(name: "n_structure_whitespace_only", text: " \n ", line: 2, column: 2, message: "unexpected end of the document"),
    Rejected(name: "n_structure_garbage_after", text: "[] x", line: 1, column: 4, message: "unexpected text after the end"),
    Rejected(name: "n_structure_two_values", text: "1 2", line: 1, column: 3, message: "unexpected text after the end"),
    Rejected(name: "n_structure_line_comment", text: "[1] // no", line: 1, column: 5, message: "unexpected text after the end"),
    Rejected(name: "n_structure_block_comment", text: "[1, /* no */ 2]", line: 1, column: 5, message: "unexpected character '/'"),
    Rejected(name: "n_structure_capitalized_true", text: "[True]", line: 1, column: 2, message: "unexpected character 'T'"),
    Rejected(name: "n_structure_truncated_literal", text: "[tru]", line: 1, column: 5, message: "invalid literal; expected 'true'"),
    Rejected(name: "n_structure_bom", text: "\u{FEFF}{}", line: 1, column: 1, message: "a byte order mark (U+FEFF)"),
    Rejected(name: "n_structure_non_ascii_value", text: "[é]", line: 1, column: 2, message: "unexpected character 'é'"),
    Rejected(name: "n_structure_nbsp_is_not_whitespace", text: "[\u{A0}1]", line: 1, column: 2, message: "unexpected character '\u{A0}'"),
    Rejected(
      name: "n_structure_depth_limit", text: String(repeating: "[", count: 513) + String(repeating: "]", count: 513), line: 1,
      column: 513, message: "nesting deeper than 512 levels"),
  ]

  @Test(arguments: rejected)
  func fails(_ c: Rejected) {
    do {
      let value = try JSONParser.parse(c.text)
      Issue.record("parsed as \(value)")
    } catch {
      #expect(error.line == c.line)
      #expect(error.column == c.column)
      #expect(error.message.hasPrefix(c.message), "\(error.message)")
    }
  }

  /// 512 levels are allowed: the limit refuses the 513th, not less.
  @Test func depthLimitAllowsExactly512Levels() throws {
    let deep = String(repeating: "[", count: 512) + String(repeating: "]", count: 512)
    #expect(throws: Never.self) { try JSONParser.parse(deep) }
  }

  /// Columns count characters (grapheme clusters), not UTF-8 bytes: an `é` (2 bytes) and
  /// a skin-toned emoji (8 bytes, 2 scalars) count one each.
  @Test(arguments: [
    ("{\"é\": 1 x}", 9),
    ("{\"👍🏽\": 1 x}", 9),
    ("{\"e\u{301}\": 1 x}", 9),
    ("[\"é👍🏽\",\n \"👍🏽é\" x]", 7),
  ])
  func columnCountsCharacters(_ text: String, _ column: Int) {
    do {
      _ = try JSONParser.parse(text)
      Issue.record("expected a failure")
    } catch {
      #expect(error.column == column, "\(error)")
    }
  }

  /// The column reaches a spec author through the loader's message.
  @Test func loaderReportsTheColumnInCharacters() {
    let errors = problems("{ \"name\": \"café 👍🏽\" \"seed\": 1 }")
    #expect(
      errors.map(\.description) == [
        "(document) (line 1): not valid JSON: column 20: expected ',' or '}' in an object; fix the syntax at that position"
      ])
  }
}
