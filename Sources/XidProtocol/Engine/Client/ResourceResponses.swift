import Foundation

extension HTTPResponse {
  /// The OAuth `error` of a response: its JSON body's `error`, else its `WWW-Authenticate` challenge's.
  var oauthErrorCode: String? {
    ProtocolHTTP.oauthError(inBody: self)?.error
      ?? headers["WWW-Authenticate"].flatMap {
        ProtocolHTTP.challengeParameter("error", in: $0)
      }
  }

  /// Whether the server asks for a proof with its nonce (RFC 9449 §8, §9): `use_dpop_nonce` in the
  /// body (a 400 from a token endpoint) or in the `WWW-Authenticate` challenge (a 401 from a resource
  /// server).
  package var asksForDPoPNonce: Bool {
    (status == 400 || status == 401) && oauthErrorCode == "use_dpop_nonce"
  }

  /// Whether a 401 to a request with a DPoP-bound token asks for a new token: no challenge, a
  /// challenge without an error (the token was not accepted), or `invalid_token`. A nonce request,
  /// `insufficient_scope` or a refused proof does not.
  package var asksForNewDPoPToken: Bool {
    guard status == 401 else { return false }
    guard let challenge = headers["WWW-Authenticate"] else {
      // glewlwyd answers a token it does not accept with an empty 401, and a refused proof with a 401
      // whose body says invalid_dpop_proof.
      return ProtocolHTTP.oauthError(inBody: self)?.error.map { $0 == "invalid_token" } ?? true
    }
    guard let error = ProtocolHTTP.challengeParameter("error", in: challenge) else {
      let scheme = challenge.prefix { $0 != " " && $0 != "," }.lowercased()
      return scheme == "dpop" || scheme == "bearer"
    }
    return error == "invalid_token"
  }
}

extension HTTPRequest {
  /// The request with a DPoP-bound access token and its proof (RFC 9449 §7.1).
  package func authorized(with token: String, dpopProof proof: String) -> HTTPRequest {
    var request = self
    request.headers.replace(with: [("Authorization", "DPoP " + token), ("DPoP", proof)])
    return request
  }
}

extension HTTPRequest {
  package func authorized(with token: String) -> HTTPRequest {
    var request = self
    request.headers["Authorization"] = "Bearer " + token
    return request
  }
}

extension HTTPResponse {
  /// Whether a 401 asks for a new token: its `WWW-Authenticate` says `invalid_token`, or cannot be
  /// read (RFC 6750 §3). An `insufficient_scope` or another scheme's challenge does not.
  package var invalidTokenChallenge: Bool {
    guard let challenge = headers["WWW-Authenticate"] else { return true }
    guard challenge.lowercased().hasPrefix("bearer") else { return false }
    guard let error = ProtocolHTTP.challengeParameter("error", in: challenge) else { return true }
    return error == "invalid_token"
  }
}
