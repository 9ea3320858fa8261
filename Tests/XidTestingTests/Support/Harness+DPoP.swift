import Foundation
import Testing
import XidCore
import XidTesting

// DPoP as a hand-written client does it: proofs made with DPoPProof and sent in the DPoP header.
extension Harness {
  /// A fresh software P-256 key.
  static func dpopKey() throws -> any DPoPKey { try SoftwareDPoPKeyFactory().makeKey().key }

  /// A proof for `endpoint`, issued now by the provider's clock unless `issuedAt` says otherwise.
  func proof(
    _ key: any DPoPKey, _ method: String = "POST", _ endpoint: TestProvider.Endpoint = .token,
    accessToken: String? = nil, nonce: String? = nil, issuedAt: Date? = nil, url: URL? = nil
  ) throws -> String {
    try DPoPProof.make(
      key: key, method: method, url: url ?? provider.url(for: endpoint), accessToken: accessToken, nonce: nonce,
      issuedAt: issuedAt ?? clock.now)
  }

  /// A GET of `endpoint` with a DPoP-bound access token and `proof`.
  func getDPoP(_ endpoint: TestProvider.Endpoint, token: String, proof: String?) async throws -> HTTPResponse {
    var request = HTTPRequest(url: provider.url(for: endpoint))
    request.headers["Authorization"] = "DPoP \(token)"
    if let proof { request.headers["DPoP"] = proof }
    return try await send(request)
  }

  /// An authorization code for a request bound to `jkt` (the `dpop_jkt` parameter), and its verifier.
  func dpopCode(jkt: String?) async throws -> (code: String, verifier: String) {
    let pkce = try PKCE()
    let overrides = jkt.map { ["dpop_jkt": $0] } ?? [:]
    let callback = try await authorize(authorizationParameters(pkce: pkce, overrides: overrides))
    return (try #require(callback["code"]), pkce.verifier)
  }

  /// A code exchange with a proof of `key` (or none).
  func exchange(code: String, verifier: String, proof: String?) async throws -> HTTPResponse {
    try await post(
      .token,
      [
        ("grant_type", "authorization_code"), ("code", code), ("redirect_uri", Self.redirectUri),
        ("code_verifier", verifier), ("client_id", client.id),
      ], headers: proof.map { ["DPoP": $0] } ?? [:])
  }

  /// A refresh with a proof (or none).
  func refresh(_ refreshToken: String, proof: String?) async throws -> HTTPResponse {
    try await post(
      .token, [("grant_type", "refresh_token"), ("refresh_token", refreshToken), ("client_id", client.id)],
      headers: proof.map { ["DPoP": $0] } ?? [:])
  }

  /// A whole DPoP-bound sign-in with `key`: `dpop_jkt` at the authorization endpoint, a proof at the
  /// token endpoint.
  func signInDPoP(_ key: any DPoPKey) async throws -> Tokens {
    let (code, verifier) = try await dpopCode(jkt: key.thumbprint)
    return try Tokens(await exchange(code: code, verifier: verifier, proof: proof(key)))
  }

  /// The `error` of a `WWW-Authenticate` challenge.
  static func challengeError(_ response: HTTPResponse) -> String? {
    guard let challenge = response.headers["WWW-Authenticate"],
      let range = challenge.range(of: "error=\"")
    else { return nil }
    return String(challenge[range.upperBound...].prefix { $0 != "\"" })
  }
}
