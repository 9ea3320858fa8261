import Foundation
import FuzzSupport
import XidCore

/// The token endpoint's response on arbitrary bytes: parsed as JSON, then read by
/// `TokenResponse(json:receivedAt:)` at a fixed time.
///
/// Properties checked, besides "no crash, no hang, bounded memory":
/// - a response that reads has a non-empty access token, and an expiry at or after receipt;
/// - its description and mirror never hold the access, refresh or ID token.
@main
enum FuzzTokenResponse {
  static func main() { LibFuzzer.run(LLVMFuzzerTestOneInput) }
}

private let receivedAt = Date(timeIntervalSince1970: 1_800_000_000)

@_cdecl("LLVMFuzzerTestOneInput")
public func LLVMFuzzerTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
  guard let members = (try? JSONValue(parsing: LibFuzzer.bytes(data, size)))?.objectValue,
    let response = try? TokenResponse(json: members, receivedAt: receivedAt)
  else { return 0 }
  fuzzCheck(!response.accessToken.isEmpty, "a token response with an empty access token")
  if let expiresAt = response.expiresAt {
    fuzzCheck(expiresAt >= receivedAt, "a token that expires before it was received")
  }
  let shown = response.description + String(describing: Mirror(reflecting: response).children.map(\.value))
  // Only tokens long enough not to occur in the description by chance ("Bearer", a scope).
  for token in [response.accessToken, response.refreshToken, response.idToken].compactMap({ $0 })
  where token.count >= 24 && !(response.scope ?? []).contains(where: { $0.contains(token) }) {
    fuzzCheck(!shown.contains(token), "a token in the description or mirror of a token response")
  }
  return 0
}
