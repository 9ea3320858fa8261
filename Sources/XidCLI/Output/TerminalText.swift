/// Text made safe for a terminal: what a provider controls (`sub`, `name` and other claims, the user
/// code, verification addresses, error descriptions) could otherwise carry escape sequences that
/// retitle the window, clear the screen, move the cursor, or reorder what the user reads.
///
/// ``Console`` passes everything it writes through ``escaped(_:)``, so no command can forget it.
enum TerminalText {
  /// `text` with every character a terminal could act on written as its JSON escape (`\u001B`): C0
  /// controls other than newline and tab (a carriage return only ending a CRLF line stays), DEL, the
  /// C1 controls U+0080–U+009F (some terminals read U+009B as CSI), the bidirectional controls
  /// (U+061C, U+200E, U+200F, U+202A–U+202E, U+2066–U+2069) and the line and paragraph separators.
  ///
  /// In JSON output those characters can only stand inside strings, so the result is still JSON
  /// that parses to the same values.
  static func escaped(_ text: String) -> String {
    guard text.unicodeScalars.contains(where: needsEscape) || text.unicodeScalars.contains("\r") else { return text }
    var result = String.UnicodeScalarView()
    let scalars = Array(text.unicodeScalars)
    for (index, scalar) in scalars.enumerated() {
      let endsCRLF = scalar == "\r" && index + 1 < scalars.count && scalars[index + 1] == "\n"
      if scalar == "\r" ? !endsCRLF : needsEscape(scalar) {
        result.append(contentsOf: escape(scalar).unicodeScalars)
      } else {
        result.append(scalar)
      }
    }
    return String(result)
  }

  /// `text` for a place that is one line (a table cell, a status line): as ``escaped(_:)``, and
  /// newlines and tabs escaped too, so a claim cannot start a line of its own.
  static func field(_ text: String) -> String {
    var result = ""
    for scalar in text.unicodeScalars {
      if scalar == "\n" || scalar == "\t" || scalar == "\r" {
        result += escape(scalar)
      } else {
        result.unicodeScalars.append(scalar)
      }
    }
    return escaped(result)
  }

  /// Whether a terminal could act on `scalar` (a carriage return is judged with its neighbour).
  private static func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
    switch scalar.value {
    case 0x0A, 0x09, 0x0D: false
    case 0x00...0x1F, 0x7F...0x9F: true
    case 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069, 0x2028, 0x2029: true
    default: false
    }
  }

  /// `\uXXXX`, as JSON writes the character.
  private static func escape(_ scalar: Unicode.Scalar) -> String {
    let hex = String(scalar.value, radix: 16, uppercase: true)
    return "\\u" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
  }
}
