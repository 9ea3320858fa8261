import Foundation
import FuzzSupport
import XidCore

/// The token exchange response (RFC 8693 §2.2.1) on arbitrary bytes: parsed as JSON, then read by
/// `TokenExchangeResponse(json:receivedAt:)` at a fixed time.
///
/// Properties checked, besides "no crash, no hang, bounded memory":
/// - a response that reads has a non-empty access token and issued token type, and an expiry at or
///   after receipt;
/// - an issued access token never has the token type `N_A`;
/// - `N_A` has no access token type, Bearer and DPoP have theirs;
/// - its description and mirror never hold the access token, refresh token, ID token or device
///   secret.
@main
enum FuzzTokenExchangeResponse {
  static func main() { LibFuzzer.run(LLVMFuzzerTestOneInput) }
}

private let receivedAt = Date(timeIntervalSince1970: 1_800_000_000)

@_cdecl("LLVMFuzzerTestOneInput")
public func LLVMFuzzerTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
  guard let members = (try? JSONValue(parsing: LibFuzzer.bytes(data, size)))?.objectValue,
    let response = try? TokenExchangeResponse(json: members, receivedAt: receivedAt)
  else { return 0 }
  fuzzCheck(!response.accessToken.isEmpty, "a token exchange response with an empty access token")
  fuzzCheck(!response.issuedTokenType.rawValue.isEmpty, "a token exchange response with no issued token type")
  if let expiresAt = response.expiresAt {
    fuzzCheck(expiresAt >= receivedAt, "an exchanged token that expires before it was received")
  }
  fuzzCheck(
    !(response.issuedTokenType == .accessToken && response.tokenType == .notApplicable),
    "an issued access token with the token type N_A")
  fuzzCheck(
    (response.tokenType == .notApplicable) == (response.tokenType.accessTokenType == nil),
    "a token type whose access token type does not match it")
  let shown = response.description + String(describing: Mirror(reflecting: response).children.map(\.value))
  // Only secrets long enough not to occur in the description by chance, and not part of the
  // issued token type or a scope, which the description shows.
  let visible = [response.issuedTokenType.rawValue] + (response.scope ?? [])
  for secret in [response.accessToken, response.refreshToken, response.idToken, response.deviceSecret]
    .compactMap({ $0 })
  where secret.count >= 24 && !visible.contains(where: { $0.contains(secret) }) {
    fuzzCheck(!shown.contains(secret), "a token in the description or mirror of a token exchange response")
  }
  return 0
}
