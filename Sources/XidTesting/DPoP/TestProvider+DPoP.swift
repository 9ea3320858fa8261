import Foundation
import XidCore

extension TestProvider {
  /// Where a proof is checked: errors take the token endpoint's form (400 with a JSON error) or a
  /// resource's (401 with a `WWW-Authenticate: DPoP` challenge).
  enum DPoPAudience {
    case authorizationServer
    case resource
  }

  /// Verifies the `DPoP` header of a request to `endpoint`, as RFC 9449 §4.3 says, in glewlwyd's
  /// order: signature with the header's key, `typ`, algorithm, `jwk`, `jti`, `htm`, `htu`, `iat`,
  /// `ath`, replay, then the nonce (so `use_dpop_nonce` only answers an otherwise valid proof, and
  /// its `jti` is not remembered).
  ///
  /// - Parameter accessToken: the token the request carries, for a resource (`ath` must be its hash).
  /// - Returns: the thumbprint of the proof's key, or `nil` when the request has no `DPoP` header.
  /// - Throws: ``OAuthFailure`` `invalid_dpop_proof` or `use_dpop_nonce`.
  func verifyDPoPProof(
    _ request: HTTPRequest, endpoint: Endpoint, audience: DPoPAudience, accessToken: String? = nil, now: Date
  ) throws -> String? {
    let headers = request.headers.filter { $0.name.caseInsensitiveCompare("DPoP") == .orderedSame }
    guard let proof = headers.first?.value else { return nil }
    dpopState.receivedProofs.append(proof)
    func refuse(_ description: String) -> OAuthFailure {
      counters.dpopProofsRefused += 1
      return Self.dpopFailure("invalid_dpop_proof", description, audience: audience)
    }
    guard headers.count == 1 else { throw refuse("the request carries more than one DPoP header") }
    let settings = configuration.dpop
    let jws: CompactJWS
    let key: JWSVerificationKey
    do {
      jws = try CompactJWS(parsing: proof)
      guard let jwkValue = jws.header.members["jwk"] else { throw refuse("the proof's header has no jwk") }
      key = try JWSVerificationKey(jwk: JWK(json: jwkValue))
      try jws.verify(with: key, allowedAlgorithms: settings.acceptedAlgorithms)
    } catch let failure as OAuthFailure {
      throw failure
    } catch let error as XidError {
      throw refuse("the proof is not a JWS signed by the key in its header (\(error.code))")
    }
    guard jws.header.type == DPoPProof.type else { throw refuse("the proof's typ is not dpop+jwt") }
    if jws.header.members["jwk"]?.objectValue?.keys.contains(where: { ["x5c", "x5u"].contains($0) }) == true {
      throw refuse("the proof's jwk carries a certificate")
    }
    guard let claims = try? JSONValue(parsing: jws.payload).objectValue else {
      throw refuse("the proof's payload is not a JSON object")
    }
    guard let jti = claims["jti"]?.stringValue, jti.utf8.count >= 16 else {
      throw refuse("the proof's jti is missing or shorter than 16 characters")
    }
    guard claims["htm"]?.stringValue == request.method else { throw refuse("the proof's htm is not the method") }
    guard claims["htu"]?.stringValue == url(for: endpoint).absoluteString else {
      throw refuse("the proof's htu is not the endpoint's URL")
    }
    guard case .int(let iat)? = claims["iat"] else { throw refuse("the proof's iat is not a whole number") }
    let issuedAt = Date(timeIntervalSince1970: TimeInterval(iat))
    guard issuedAt.timeIntervalSince(now) <= settings.futureLeeway.timeInterval else {
      throw refuse("the proof's iat is ahead of the server's clock")
    }
    guard now.timeIntervalSince(issuedAt) <= settings.proofLifetime.timeInterval else {
      throw refuse("the proof's iat is too old")
    }
    if audience == .resource {
      guard let accessToken, claims["ath"]?.stringValue == DPoPProof.accessTokenHash(accessToken) else {
        throw refuse("the proof's ath is not the hash of the access token")
      }
    }
    dpopState.pruneJTIs(now: now)
    if dpopState.seenJTIs[jti] != nil || misbehaviors.use(.replayedDPoPProof) {
      throw refuse("the proof was already used (jti replay)")
    }
    if misbehaviors.use(.demandDPoPNonce) {
      counters.dpopNonceChallenges += 1
      let fresh = try dpopState.rotate(uses: settings.nonceUses)
      _ = dpopState.takeAnnouncement()
      throw Self.nonceChallenge(fresh, audience: audience)
    }
    if settings.requiresNonce {
      let current = try dpopState.nonce ?? dpopState.rotate(uses: settings.nonceUses)
      guard claims["nonce"]?.stringValue == current else {
        counters.dpopNonceChallenges += 1
        _ = dpopState.takeAnnouncement()
        throw Self.nonceChallenge(current, audience: audience)
      }
      dpopState.usesLeft -= 1
      if dpopState.usesLeft <= 0 { _ = try dpopState.rotate(uses: settings.nonceUses) }
    }
    dpopState.seenJTIs[jti] = issuedAt.addingTimeInterval(settings.proofLifetime.timeInterval + 1)
    counters.dpopProofsAccepted += 1
    return key.jwk.thumbprint
  }

  /// `invalid_dpop_proof` for a request whose proof is of another key than its binding, or that lacks
  /// a proof it needs.
  func dpopBindingFailure(_ description: String, audience: DPoPAudience) -> OAuthFailure {
    counters.dpopProofsRefused += 1
    return Self.dpopFailure("invalid_dpop_proof", description, audience: audience)
  }

  /// A DPoP error in the audience's form.
  static func dpopFailure(_ error: String, _ description: String, audience: DPoPAudience, headers: HTTPHeaders = [:])
    -> OAuthFailure
  {
    switch audience {
    case .authorizationServer:
      return OAuthFailure(error, description, status: 400, headers: headers)
    case .resource:
      var headers = headers
      headers["WWW-Authenticate"] = "DPoP error=\"\(error)\", error_description=\"\(description)\", algs=\"ES256\""
      return OAuthFailure(error, description, status: 401, headers: headers)
    }
  }

  /// `use_dpop_nonce` with the nonce to use.
  static func nonceChallenge(_ nonce: String, audience: DPoPAudience) -> OAuthFailure {
    let description =
      audience == .resource
      ? "Resource server requires nonce in DPoP proof" : "Authorization server requires nonce in DPoP proof"
    return dpopFailure("use_dpop_nonce", description, audience: audience, headers: ["DPoP-Nonce": nonce])
  }

  // MARK: - Access tokens at resources

  /// The access token of a request to UserInfo or the protected resource, checked: a Bearer token
  /// must not be DPoP-bound, and a DPoP-bound one must come as `Authorization: DPoP` with a proof of
  /// its key.
  func authorizeResourceRequest(_ request: HTTPRequest, endpoint: Endpoint, now: Date) throws -> (
    AccessTokenRecord, Grant
  ) {
    guard let header = request.headers["Authorization"] else {
      throw OAuthFailure(
        "invalid_request", "the request has no access token", status: 401,
        headers: ["WWW-Authenticate": "Bearer"])
    }
    let parts = header.split(separator: " ", maxSplits: 1)
    guard parts.count == 2 else { throw TokenStore.invalidToken("the Authorization header has no token") }
    let token = String(parts[1]).trimmingCharacters(in: .whitespaces)
    switch parts[0].lowercased() {
    case "bearer":
      let (record, grant) = try store.validate(accessToken: token, now: now).get()
      if record.jkt != nil {
        throw TokenStore.invalidToken("the access token is DPoP-bound; send it as Authorization: DPoP with a proof")
      }
      return (record, grant)
    case "dpop":
      let (record, grant) = try store.validate(accessToken: token, now: now).get()
      guard let jkt = record.jkt else {
        throw Self.dpopFailure("invalid_token", "the access token is not DPoP-bound", audience: .resource)
      }
      guard
        let proved = try verifyDPoPProof(request, endpoint: endpoint, audience: .resource, accessToken: token, now: now)
      else {
        throw dpopBindingFailure("a DPoP-bound token needs a DPoP proof", audience: .resource)
      }
      guard proved == jkt else {
        throw dpopBindingFailure("the proof is of another key than the token's", audience: .resource)
      }
      return (record, grant)
    default:
      throw TokenStore.invalidToken("the Authorization header is neither a Bearer nor a DPoP token")
    }
  }
}

extension TestProvider {
  /// Makes a new DPoP nonce current: the next proof with the old one is answered `use_dpop_nonce`
  /// when ``DPoPSettings/requiresNonce`` is on. The new nonce is not announced until then.
  ///
  /// - Returns: the new nonce.
  /// - Throws: ``/Xid/XidError`` with ``/Xid/XidError/Code/cryptoFailure`` when no random bytes are
  ///   available.
  @discardableResult
  public func rotateDPoPNonce() throws -> String {
    let fresh = try dpopState.rotate(uses: configuration.dpop.nonceUses)
    _ = dpopState.takeAnnouncement()
    return fresh
  }

  /// The current DPoP nonce, once the provider issued one.
  public var dpopNonce: String? { dpopState.nonce }

  /// Every DPoP proof the provider received, oldest first (compact JWS), for tests that inspect
  /// what a client sent.
  public var receivedDPoPProofs: [String] { dpopState.receivedProofs }
}
