import Foundation

/// Helpers that keep server-supplied text and secrets out of error reasons and descriptions.
package enum SafeText {
  /// Server text (an `error_description`, a content type) made fit for an error reason: every
  /// occurrence of a secret replaced by `[redacted]`, control and formatting characters (bidi
  /// overrides included) replaced by spaces, whitespace collapsed, and at most `limit` characters.
  package static func sanitize(_ text: String, limit: Int = 200, redacting secrets: [String] = []) -> String {
    var text = text
    for secret in secrets where secret.count >= 4 {
      text = text.replacingOccurrences(of: secret, with: "[redacted]")
    }
    var output = ""
    var lastWasSpace = true
    var count = 0
    for scalar in text.unicodeScalars {
      let category = scalar.properties.generalCategory
      let isSpace =
        scalar.properties.isWhitespace || category == .control || category == .format
        || category == .lineSeparator || category == .paragraphSeparator || category == .surrogate
        || category == .unassigned || category == .privateUse
      if isSpace {
        if !lastWasSpace {
          output.unicodeScalars.append(" ")
          count += 1
        }
        lastWasSpace = true
      } else {
        output.unicodeScalars.append(scalar)
        count += 1
        lastWasSpace = false
      }
      if count >= limit {
        output += "…"
        break
      }
    }
    while output.hasSuffix(" ") { output.removeLast() }
    return output
  }

  /// An OAuth `error` code as sent when it uses only the characters RFC 6749 §5.2 allows (and at most
  /// 64 of them); otherwise a sanitized, shortened copy.
  package static func errorCode(_ code: String) -> String {
    let allowed = code.unicodeScalars.allSatisfy { scalar in
      (0x20...0x7E).contains(scalar.value) && scalar != "\"" && scalar != "\\"
    }
    if allowed && !code.isEmpty && code.count <= 64 { return code }
    let cleaned = sanitize(code, limit: 64)
    return cleaned.isEmpty ? "(unreadable error code)" : cleaned
  }

  /// Compares two secrets in time that depends on their lengths only.
  package static func constantTimeEquals(_ lhs: String, _ rhs: String) -> Bool {
    let a = Array(lhs.utf8)
    let b = Array(rhs.utf8)
    guard a.count == b.count else { return false }
    var difference: UInt8 = 0
    for index in a.indices { difference |= a[index] ^ b[index] }
    return difference == 0
  }

  /// A string shortened to `limit` characters for an error reason (for values that are not secret,
  /// such as issuers and client identifiers, but come from a server).
  package static func short(_ text: String, limit: Int = 100) -> String {
    sanitize(text, limit: limit)
  }
}
