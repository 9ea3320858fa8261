/// Character classes of HTTP's grammar (RFC 9110 §5.6), for every reader of HTTP syntax in Xid: the
/// `WWW-Authenticate` reader here and the loopback server's request parser.
package enum HTTPCharacters {
  /// `tchar`: the characters of a token (a method, a field name, a scheme, a parameter name).
  package static func isToken(_ byte: UInt8) -> Bool {
    switch byte {
    case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "z"),
      UInt8(ascii: "A")...UInt8(ascii: "Z"):
      return true
    default:
      return "!#$%&'*+-.^_`|~".utf8.contains(byte)
    }
  }

  /// `OWS`/`BWS`: a space or a horizontal tab.
  package static func isWhitespace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 }
}
