import Foundation
import FuzzSupport
import XidCore

/// The token endpoint's answer to a token exchange (RFC 8693 §2.2, and the Native SSO profile's) on
/// arbitrary bytes: parsed as JSON, then read by `TokenExchangeResponse(json:receivedAt:)` at a fixed
/// time.
///
/// Properties checked, besides "no crash, no hang, bounded memory":
/// - a response that reads has a non-empty access token and issued token type, and an issued access
///   token is never `N_A`;
/// - its expiry is at or after receipt;
/// - its description and mirror never hold the issued token, the refresh token, the ID token or the
///   device secret.
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
  fuzzCheck(!response.accessToken.isEmpty, "a token exchange response with an empty issued token")
  fuzzCheck(!response.issuedTokenType.rawValue.isEmpty, "a token exchange response without an issued token type")
  fuzzCheck(
    !(response.issuedTokenType == .accessToken && response.tokenType == .notApplicable),
    "an issued access token with the token_type N_A")
  if let expiresAt = response.expiresAt {
    fuzzCheck(expiresAt >= receivedAt, "an issued token that expires before it was received")
  }
  let shown = response.description + String(describing: Mirror(reflecting: response).children.map(\.value))
  // Only secrets long enough not to occur in the description by chance (a token type, a scope).
  let secrets = [response.accessToken, response.refreshToken, response.idToken, response.deviceSecret]
  for secret in secrets.compactMap({ $0 })
  where secret.count >= 24 && !(response.scope ?? []).contains(where: { $0.contains(secret) })
    && !response.issuedTokenType.rawValue.contains(secret)
  {
    fuzzCheck(!shown.contains(secret), "a token or device secret in the description or mirror of an exchange answer")
  }
  return 0
}
