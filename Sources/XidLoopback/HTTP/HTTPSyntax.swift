import XidCore

/// The bytes and character classes of HTTP/1.1 syntax (RFC 9110 §5.6); tokens and whitespace are
/// `HTTPCharacters`, shared with the core.
enum HTTPSyntax {
  static let tab: UInt8 = 0x09
  static let lf: UInt8 = 0x0A
  static let cr: UInt8 = 0x0D
  static let space: UInt8 = 0x20
  static let dot: UInt8 = 0x2E
  static let slash: UInt8 = 0x2F
  static let colon: UInt8 = 0x3A

  /// `DIGIT`.
  static func isDigit(_ byte: UInt8) -> Bool { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) }

  /// The value of a `DIGIT`, or `nil`.
  static func digitValue(_ byte: UInt8) -> Int? { isDigit(byte) ? Int(byte - UInt8(ascii: "0")) : nil }
}
