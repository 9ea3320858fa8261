/// One challenge of a `WWW-Authenticate` field (RFC 9110 §11.6.1): a scheme such as `Bearer` or
/// `DPoP`, and its parameters or its token68.
///
/// ```swift
/// for challenge in AuthenticationChallenge.challenges(in: response) where challenge.scheme == "bearer" {
///   print(challenge["error"] ?? "no error")
/// }
/// ```
///
/// Parsing follows the field's grammar: several challenges in one field or in several fields,
/// parameter names without regard to case, quoted strings with their escapes. A challenge that names a
/// parameter twice is dropped (the RFC allows each name once, and a reader must not guess which one
/// counts), and a field that breaks the grammar yields the challenges before the break.
public struct AuthenticationChallenge: Sendable, Hashable {
  /// The scheme, in lowercase (schemes are case-insensitive): `"bearer"`, `"dpop"`, `"basic"`.
  public let scheme: String
  /// The parameters in the order sent, names in lowercase, values unquoted.
  public let parameters: [Parameter]
  /// The token68 that stands instead of parameters in some schemes (`Negotiate abc==`), if any.
  public let token68: String?

  /// A challenge parameter.
  public struct Parameter: Sendable, Hashable {
    /// The name, in lowercase.
    public let name: String
    /// The value, with a quoted string's quotes and escapes removed.
    public let value: String
  }

  /// The value of the parameter `name` (matched without regard to case), if the challenge has it.
  public subscript(name: String) -> String? {
    let lowercased = name.lowercased()
    return parameters.first { $0.name == lowercased }?.value
  }

  /// The longest field Xid parses: 8 KiB. A longer one yields no challenge.
  public static let maximumFieldLength = 8 * 1024

  /// The challenges of every `WWW-Authenticate` field of `response`, in order.
  public static func challenges(in response: HTTPResponse) -> [AuthenticationChallenge] {
    response.headers.fields.filter { $0.name.equalsIgnoringASCIICase("WWW-Authenticate") }
      .flatMap { parse($0.value) }
  }

  /// The challenges of one `WWW-Authenticate` field value.
  public static func parse(_ field: String) -> [AuthenticationChallenge] {
    guard field.utf8.count <= maximumFieldLength else { return [] }
    var reader = ChallengeReader(Array(field.utf8))
    return reader.readAll().challenges
  }

  /// The challenges of a field value that follows the grammar from start to end, none dropped; `nil`
  /// for any other (where ``parse(_:)`` keeps what it could read).
  package static func parseWholly(_ field: String) -> [AuthenticationChallenge]? {
    guard field.utf8.count <= maximumFieldLength else { return nil }
    var reader = ChallengeReader(Array(field.utf8))
    let (challenges, complete) = reader.readAll()
    return complete ? challenges : nil
  }
}

/// Reads challenges from a field's bytes, one pass and no backtracking beyond a token.
private struct ChallengeReader {
  private let bytes: [UInt8]
  private var position = 0

  init(_ bytes: [UInt8]) { self.bytes = bytes }

  /// Every challenge that reads; `complete` when the whole field did, with none dropped.
  mutating func readAll() -> (challenges: [AuthenticationChallenge], complete: Bool) {
    var challenges: [AuthenticationChallenge] = []
    var complete = true
    while true {
      skipListSeparators()
      guard position < bytes.count else { break }
      guard let scheme = readToken() else {
        complete = false
        break
      }
      let (parameters, token68, wellFormed) = readChallengeBody()
      let names = parameters.map(\.name)
      if Set(names).count == names.count {
        challenges.append(
          AuthenticationChallenge(scheme: scheme.lowercased(), parameters: parameters, token68: token68))
      } else {
        complete = false
      }
      guard wellFormed else {
        complete = false
        break
      }
    }
    return (challenges, complete)
  }

  /// The parameters (or token68) after a scheme, up to the next challenge or the end; `wellFormed` is
  /// `false` when the field breaks the grammar there.
  private mutating func readChallengeBody() -> ([AuthenticationChallenge.Parameter], String?, wellFormed: Bool) {
    guard position < bytes.count else { return ([], nil, true) }
    // A scheme alone ends at a comma; one with parameters is followed by a space.
    guard HTTPCharacters.isWhitespace(bytes[position]) else { return ([], nil, bytes[position] == UInt8(ascii: ",")) }
    skipWhitespace()
    if let token68 = readToken68() { return ([], token68, atListEnd()) }
    var parameters: [AuthenticationChallenge.Parameter] = []
    while let parameter = readParameter() {
      parameters.append(parameter)
      skipWhitespace()
      guard position < bytes.count else { return (parameters, nil, true) }
      guard bytes[position] == UInt8(ascii: ",") else { return (parameters, nil, false) }
      // After the commas: another parameter of this challenge, or the next challenge's scheme.
      skipListSeparators()
      guard startsParameter() else { return (parameters, nil, true) }
    }
    return (parameters, nil, atListEnd())
  }

  /// A token68 followed by the end of the challenge, or `nil` (and nothing consumed).
  private mutating func readToken68() -> String? {
    let start = position
    var index = position
    while index < bytes.count, isToken68Character(bytes[index]) { index += 1 }
    guard index > start else { return nil }
    while index < bytes.count, bytes[index] == UInt8(ascii: "=") { index += 1 }
    var end = index
    while end < bytes.count, HTTPCharacters.isWhitespace(bytes[end]) { end += 1 }
    // `name=value` is a parameter, not a token68 with padding.
    guard end == bytes.count || bytes[end] == UInt8(ascii: ",") else { return nil }
    position = index
    return String(decoding: bytes[start..<index], as: UTF8.self)
  }

  /// Whether `name BWS "="` starts here (so that what follows a comma is a parameter).
  private func startsParameter() -> Bool {
    var index = position
    while index < bytes.count, HTTPCharacters.isToken(bytes[index]) { index += 1 }
    guard index > position else { return false }
    while index < bytes.count, HTTPCharacters.isWhitespace(bytes[index]) { index += 1 }
    return index < bytes.count && bytes[index] == UInt8(ascii: "=")
  }

  private mutating func readParameter() -> AuthenticationChallenge.Parameter? {
    guard startsParameter(), let name = readToken() else { return nil }
    skipWhitespace()
    position += 1  // "="
    skipWhitespace()
    guard position < bytes.count else { return nil }
    let value = bytes[position] == UInt8(ascii: "\"") ? readQuotedString() : readToken()
    return value.map { AuthenticationChallenge.Parameter(name: name.lowercased(), value: $0) }
  }

  private mutating func readToken() -> String? {
    let start = position
    while position < bytes.count, HTTPCharacters.isToken(bytes[position]) { position += 1 }
    return position > start ? String(decoding: bytes[start..<position], as: UTF8.self) : nil
  }

  /// A quoted string (RFC 9110 §5.6.4) without its quotes and escapes; `nil` when it is unterminated
  /// or holds a control character.
  private mutating func readQuotedString() -> String? {
    var index = position + 1
    var value: [UInt8] = []
    while index < bytes.count {
      var byte = bytes[index]
      if byte == UInt8(ascii: "\"") {
        position = index + 1
        return String(decoding: value, as: UTF8.self)
      }
      if byte == UInt8(ascii: "\\") {
        index += 1
        guard index < bytes.count else { return nil }
        byte = bytes[index]
      }
      guard byte >= 0x20 || byte == 0x09, byte != 0x7F else { return nil }
      value.append(byte)
      index += 1
    }
    return nil
  }

  /// Whether only whitespace is left before a comma or the end.
  private mutating func atListEnd() -> Bool {
    skipWhitespace()
    return position == bytes.count || bytes[position] == UInt8(ascii: ",")
  }

  private mutating func skipWhitespace() {
    while position < bytes.count, HTTPCharacters.isWhitespace(bytes[position]) { position += 1 }
  }

  private mutating func skipListSeparators() {
    while position < bytes.count, HTTPCharacters.isWhitespace(bytes[position]) || bytes[position] == UInt8(ascii: ",") {
      position += 1
    }
  }

  /// The characters of a token68 before its `=` padding (RFC 9110 §11.2).
  private func isToken68Character(_ byte: UInt8) -> Bool {
    switch byte {
    case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
      UInt8(ascii: "0")...UInt8(ascii: "9"):
      return true
    default:
      return "-._~+/".utf8.contains(byte)
    }
  }
}
