import Foundation
import FuzzSupport
import XidJOSE

/// Xid's JSON parser on arbitrary bytes, through its public API.
///
/// Properties checked on every input, besides "no crash, no hang, bounded memory":
/// - A parsed value serializes to JSON that parses back to the same value, and serializing that
///   again gives the same bytes (`serialized(sortedKeys: true)` is a canonical form).
/// - Both of Xid's JSON readers agree: the tree parser (`JSONValue(parsing:)`) and the member
///   visitor that JWT claims are read with (`JWTClaims(payload:)`) accept and reject the same
///   documents, and the claims read by one are the members found by the other.
@main
enum FuzzJSON {
  static func main() { LibFuzzer.run(LLVMFuzzerTestOneInput) }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func LLVMFuzzerTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
  let input = LibFuzzer.bytes(data, size)
  let tree: Result<JSONValue, XidError> = Result { try JSONValue(parsing: input) }.mapError { $0 as! XidError }
  if case .success(let value) = tree { checkRoundTrip(value) }
  checkClaimsReader(input, tree)
  return 0
}

/// Serialization is the inverse of parsing, and canonical with sorted keys.
private func checkRoundTrip(_ value: JSONValue) {
  let text = value.serializedBytes(sortedKeys: true)
  let reparsed: JSONValue
  do {
    reparsed = try JSONValue(parsing: text)
  } catch {
    fuzzCheck(false, "serialized JSON does not parse back: \(error)")
    return
  }
  fuzzCheck(reparsed.isSameJSON(as: value), "serialized JSON parses back to another value")
  fuzzCheck(reparsed.serializedBytes(sortedKeys: true) == text, "sorted serialization is not canonical")
  fuzzCheck(value.serializedBytes().count == text.count, "sorted and unsorted serializations differ in length")
}

/// The claims reader (a visitor over the members of one object) agrees with the tree parser.
private func checkClaimsReader(_ input: UnsafeBufferPointer<UInt8>, _ tree: Result<JSONValue, XidError>) {
  let claims: Result<JWTClaims, XidError> = Result { try JWTClaims(payload: input) }.mapError { $0 as! XidError }
  switch (tree, claims) {
  case (.failure(let error), .success):
    fuzzCheck(false, "the claims reader accepts a document the tree parser rejects (\(error.code))")
  case (.failure(let treeError), .failure(let claimsError)):
    // Both reject, for the same reason, except that the claims reader reads in one pass and may stop
    // at a registered claim of the wrong type before it meets the syntax error further on.
    let expected: Set<XidError.Code> =
      treeError.code == .invalidJSON ? [.invalidJSON, .invalidClaims] : [treeError.code]
    fuzzCheck(
      expected.contains(claimsError.code),
      "the tree parser rejects with \(treeError.code), the claims reader with \(claimsError.code)")
  case (.success(let value), .failure(let error)):
    if case .object = value {
      // An object may only fail as claims for the type of a registered claim.
      fuzzCheck(
        error.code == .invalidClaims,
        "the claims reader rejects an object the tree parser accepts, with \(error.code)")
    } else {
      fuzzCheck(error.code == .invalidJSON, "claims that are not an object fail with \(error.code)")
    }
  case (.success(let value), .success(let claims)):
    guard case .object(let members) = value else {
      fuzzCheck(false, "the claims reader accepts a document that is not an object")
      return
    }
    fuzzCheck(JSONValue.object(claims.raw).isSameJSON(as: value), "claims.raw differs from the parsed object")
    checkRegisteredClaims(claims, members)
  }
}

/// The typed claims are the members of the same names.
private func checkRegisteredClaims(_ claims: JWTClaims, _ members: [String: JSONValue]) {
  let strings: [(String, String?)] = [
    ("iss", claims.issuer), ("sub", claims.subject), ("jti", claims.jwtID), ("nonce", claims.nonce),
    ("azp", claims.authorizedParty), ("at_hash", claims.accessTokenHash), ("c_hash", claims.codeHash),
    ("sid", claims.sessionID),
  ]
  for (name, typed) in strings {
    fuzzCheck(sameScalars(typed, members[name]?.stringValue), "claim \(name) differs from its member")
  }
  let dates: [(String, Date?)] = [
    ("exp", claims.expiresAt), ("nbf", claims.notBefore), ("iat", claims.issuedAt), ("auth_time", claims.authTime),
  ]
  for (name, typed) in dates {
    let member = members[name]?.doubleValue.map { Date(timeIntervalSince1970: $0) }
    fuzzCheck(typed == member, "claim \(name) differs from its member")
  }
  switch members["aud"] {
  case .string(let single)?:
    fuzzCheck(claims.audience.count == 1 && sameScalars(claims.audience[0], single), "aud differs from its member")
  case .array(let many)?:
    fuzzCheck(
      claims.audience.count == many.count
        && zip(claims.audience, many).allSatisfy { sameScalars($0, $1.stringValue) },
      "aud differs from its member")
  default:
    fuzzCheck(claims.audience.isEmpty, "aud without a member")
  }
}

private func sameScalars(_ a: String?, _ b: String?) -> Bool {
  switch (a, b) {
  case (nil, nil): true
  case (let a?, let b?): a.unicodeScalars.elementsEqual(b.unicodeScalars)
  default: false
  }
}
