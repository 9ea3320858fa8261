import XidCore

/// Fresh random values for codes, tokens and identifiers.
enum Randomness {
  /// `bytes` random bytes, base64url: 43 characters for the default 32 bytes.
  static func token(bytes: Int = 32) throws -> String {
    Base64URL.encode(try XidCrypto.randomBytes(count: bytes))
  }

  /// A user code for the device flow (RFC 8628 §6.1): eight consonants as `BCDF-GHJK`, case
  /// insensitive and free of vowels so it spells no words.
  static func userCode() throws -> String {
    let alphabet = Array("BCDFGHJKLMNPQRSTVWXZ")
    var characters: [Character] = []
    while characters.count < 8 {
      // 240 is the largest multiple of 20 below 256: rejecting the rest keeps the choice uniform.
      for byte in try XidCrypto.randomBytes(count: 16) where byte < 240 && characters.count < 8 {
        characters.append(alphabet[Int(byte) % alphabet.count])
      }
    }
    return String(characters[0..<4]) + "-" + String(characters[4..<8])
  }

  /// `code` normalized for comparison: upper case, without separators.
  static func normalizedUserCode(_ code: String) -> String {
    String(code.uppercased().filter { $0.isLetter || $0.isNumber })
  }
}
