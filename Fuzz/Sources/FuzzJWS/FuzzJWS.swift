import Foundation
import FuzzSupport
import XidJOSE

/// Compact JWS parsing, JWT claims decoding and signature verification on arbitrary tokens.
///
/// Every input is a token (its bytes as UTF-8, invalid sequences repaired as any `String` would
/// be). It is parsed, verified with the fixed keys of ``FixedKeys`` (as a set and one key at a
/// time), verified and decoded as a `SignedJWT`, and its payload is read as claims whether or not
/// the signature verifies. Properties checked, besides "no crash, no hang, bounded memory":
/// - Verification with the set and with the key it returned agree; the key fits the header's `kid`.
/// - A `SignedJWT` succeeds exactly when the set verifies and the payload reads as claims, and then
///   its claims are those of the payload.
/// - Descriptions never contain the payload or the signature.
@main
enum FuzzJWS {
  static func main() { LibFuzzer.run(LLVMFuzzerTestOneInput) }
}

/// Every algorithm Xid supports: the key decides which can verify.
private let allAlgorithms = Set(JWSAlgorithm.allCases)
/// A fixed "now" for time validation, in the range of the corpus's tokens.
private let now = Date(timeIntervalSince1970: 1_800_000_000)

@_cdecl("LLVMFuzzerTestOneInput")
public func LLVMFuzzerTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
  let token = String(decoding: LibFuzzer.bytes(data, size), as: UTF8.self)
  let keySet = FixedKeys.keySet
  let signed = Result { try SignedJWT(verifying: token, using: keySet, allowedAlgorithms: allAlgorithms) }
  guard let jws = try? CompactJWS(parsing: token) else {
    fuzzCheck((try? signed.get()) == nil, "a SignedJWT from a token that does not parse")
    return 0
  }
  _ = jws.header.members
  let description = jws.description
  fuzzCheck(description.utf8.count < 200, "the description of a JWS is not short")

  let verifiedBy = try? jws.verify(using: keySet, allowedAlgorithms: allAlgorithms)
  if let verifiedBy {
    if let keyID = jws.header.keyID { fuzzCheck(verifiedBy.keyID == keyID, "verified by a key of another kid") }
    let algorithm = try? jws.verify(with: verifiedBy, allowedAlgorithms: allAlgorithms)
    fuzzCheck(algorithm != nil, "the key that verified in the set does not verify alone")
  }
  // Each key alone, also those the set would not pick: the fit checks of verify(with:).
  for key in keySet.keys where key !== verifiedBy {
    _ = try? jws.verify(with: key, allowedAlgorithms: allAlgorithms)
  }

  let claims = try? JWTClaims(payload: jws.payload)
  if let claims {
    _ = claims.raw
    _ = try? claims.validateTimes(now: now, leeway: .seconds(60))
    _ = try? claims.validateTimes(now: now, leeway: .zero, requireExpiration: false, requireIssuedAt: true)
  }
  switch signed {
  case .success(let jwt):
    fuzzCheck(verifiedBy != nil && claims != nil, "a SignedJWT from a token that does not verify or read")
    fuzzCheck(jwt.claims == claims, "a SignedJWT's claims differ from its payload's")
  case .failure:
    fuzzCheck(verifiedBy == nil || claims == nil, "no SignedJWT from a token that verifies and reads")
  }
  return 0
}

extension JWSVerificationKey {
  /// The same prepared key (keys are compared by their JWK).
  fileprivate static func !== (a: JWSVerificationKey, b: JWSVerificationKey?) -> Bool { a.jwk != b?.jwk }
}
