import Foundation
import FuzzSupport
import XidCore

/// The authorization response on arbitrary bytes: the redirect URL a browser or another app hands
/// back, read by `AuthorizationResponse(callbackURL:pending:requireIssuer:)` against two fixed
/// pending requests (a custom scheme and a loopback redirect URI), and by
/// `PendingAuthorization.matching(callbackURL:in:)`.
///
/// Properties checked, besides "no crash, no hang, bounded memory":
/// - a response that reads belongs to one of the pending requests, has a non-empty code, and, when
///   the issuer is required, the request's issuer;
/// - its description never holds the code.
@main
enum FuzzAuthorizationResponse {
  static func main() { LibFuzzer.run(LLVMFuzzerTestOneInput) }
}

private let pending: [PendingAuthorization] = [
  PendingAuthorization(
    state: "state-1", nonce: "nonce-1", codeVerifier: String(repeating: "v", count: 43),
    redirectUri: URL(string: "com.example.app:/callback")!, maxAge: nil, issuer: "https://op.xid.test",
    clientId: "xid-example", scopes: ["openid"], createdAt: Date(timeIntervalSince1970: 1_800_000_000)),
  PendingAuthorization(
    state: "state-2", nonce: "nonce-2", codeVerifier: String(repeating: "w", count: 43),
    redirectUri: URL(string: "http://127.0.0.1:8080/callback")!, maxAge: nil, issuer: "https://op.xid.test",
    clientId: "xid-example", scopes: ["openid"], createdAt: Date(timeIntervalSince1970: 1_800_000_000)),
]

@_cdecl("LLVMFuzzerTestOneInput")
public func LLVMFuzzerTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
  let text = String(decoding: LibFuzzer.bytes(data, size), as: UTF8.self)
  guard let url = URL(string: text) else { return 0 }
  let matched = PendingAuthorization.matching(callbackURL: url, in: pending)
  if let matched { fuzzCheck(pending.contains(matched), "a match that is not a pending request") }
  for requireIssuer in [false, true] {
    guard let response = try? AuthorizationResponse(callbackURL: url, pending: pending, requireIssuer: requireIssuer)
    else { continue }
    fuzzCheck(pending.contains(response.pending), "a response to no pending request")
    fuzzCheck(!response.code.isEmpty, "a response with an empty code")
    if requireIssuer { fuzzCheck(response.issuer == response.pending.issuer, "a response from another issuer") }
    if response.code.count >= 16 {
      fuzzCheck(!response.description.contains(response.code), "the code in a response's description")
    }
  }
  return 0
}
