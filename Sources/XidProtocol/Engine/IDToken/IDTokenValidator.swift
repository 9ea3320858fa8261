import Foundation

/// Validates ID tokens as OpenID Connect Core 1.0 §3.1.3.7 requires after sign-in, and §12.2 after a
/// refresh.
///
/// The signature is verified first, with an algorithm from ``allowedAlgorithms`` (a token's header
/// never widens that set) and the provider's key; only then are the claims read and checked:
///
/// - `iss` equals the issuer exactly; `sub` is present;
/// - `aud` contains the client; with several audiences `azp` is required, and `azp`, when present,
///   is the client;
/// - `exp` is in the future and `iat` is present and not in the future, with ``leeway`` of skew;
/// - `at_hash` and `c_hash`, when present, match the access token and code;
/// - after sign-in, `nonce` equals the request's and, when `max_age` was sent, `auth_time` is present
///   and recent enough;
/// - after a refresh, `iss`, `sub`, `aud` and `azp` equal the original token's, `auth_time` (when both
///   have it) is the original one, and a `nonce` (which should be absent) equals the original one.
///
/// A token whose header declares another JWT type (`typ` ending in `+jwt`, such as `at+jwt` or
/// `logout+jwt`) is refused.
///
/// Claim failures are ``XidError/Code/invalidIDToken``; their reasons never contain the token or the
/// nonce.
public struct IDTokenValidator: Sendable {
  /// Why the ID token was issued, which decides the checks beyond the common ones.
  public enum Purpose: Sendable, Hashable {
    /// Sign-in with an authorization request that sent `nonce` and, possibly, `max_age`.
    case authentication(nonce: String, maxAge: Duration?)
    /// A refresh (OpenID Connect Core 1.0 §12.2): the new token must describe the same
    /// authentication as `original`.
    case refresh(original: IDToken)
    /// A grant that sends no nonce: the device authorization grant (RFC 8628), or a refresh when the
    /// original ID token is not at hand (prefer ``refresh(original:)``, which checks more).
    case withoutNonce
  }

  /// The issuer identifier `iss` must equal.
  public let issuer: String
  /// The client identifier `aud` must contain.
  public let clientId: String
  /// The signature algorithms accepted.
  public let allowedAlgorithms: Set<JWSAlgorithm>
  /// The clock skew allowed for `exp`, `iat`, `nbf` and `auth_time`, in seconds.
  public let leeway: Duration
  /// Whether `exp`, `iat`, `nbf` and `auth_time` are checked against the clock: a session turns it off
  /// only to tell whether a refreshed ID token failed on time alone (a clock skew, which may pass).
  package var checksTimes = true

  /// Creates a validator.
  ///
  /// - Parameters:
  ///   - issuer: the provider's issuer identifier.
  ///   - clientId: this client's identifier.
  ///   - allowedAlgorithms: the accepted algorithms; see ``ProviderMetadata/idTokenSigningAlgorithms()``.
  ///   - leeway: the clock skew allowed, 60 seconds by default.
  public init(issuer: String, clientId: String, allowedAlgorithms: Set<JWSAlgorithm>, leeway: Duration = .seconds(60)) {
    self.issuer = issuer
    self.clientId = clientId
    self.allowedAlgorithms = allowedAlgorithms
    self.leeway = leeway
  }

  /// Verifies an ID token's signature with the provider's keys (fetching them again if the provider
  /// has rotated) and validates its claims.
  ///
  /// - Parameters:
  ///   - token: the compact ID token.
  ///   - purpose: why it was issued.
  ///   - accessToken: the access token issued with it, for `at_hash`.
  ///   - authorizationCode: the code it was issued for, for `c_hash`.
  ///   - keys: the provider's key set cache.
  ///   - now: the current time.
  /// - Throws: ``XidError`` with ``XidError/Code/invalidIDToken`` for a malformed token or a claim
  ///   that fails; ``XidError/Code/algorithmNotAllowed``, ``XidError/Code/invalidSignature``,
  ///   ``XidError/Code/unknownSigningKey`` and the other errors of ``JWKSCache/verify(_:allowedAlgorithms:)``.
  func validate(
    _ token: String, purpose: Purpose, accessToken: String?, authorizationCode: String? = nil, keys: JWKSCache,
    now: Date
  ) async throws -> IDToken {
    let jws = try parse(token)
    try await keys.verify(jws, allowedAlgorithms: allowedAlgorithms)
    return try finish(
      token, jws: jws, purpose: purpose, accessToken: accessToken, authorizationCode: authorizationCode, now: now)
  }

  /// Verifies an ID token's signature with a key set at hand and validates its claims.
  ///
  /// ``OpenIDClient`` validates with the provider's keys, which it fetches again when the provider
  /// has rotated them; pass the set of ``OpenIDClient/keys()`` here to validate with the keys it has.
  ///
  /// - Parameters:
  ///   - token: the compact ID token.
  ///   - purpose: why it was issued.
  ///   - accessToken: the access token issued with it, for `at_hash`.
  ///   - authorizationCode: the code it was issued for, for `c_hash`.
  ///   - keySet: the provider's keys.
  ///   - now: the current time.
  /// - Throws: ``XidError`` with ``XidError/Code/invalidIDToken`` for a malformed token or a claim
  ///   that fails; ``XidError/Code/algorithmNotAllowed``, ``XidError/Code/invalidSignature``, and
  ///   ``XidError/Code/noMatchingKey`` when no key of `keySet` fits (or several have the token's `kid`).
  public func validate(
    _ token: String, purpose: Purpose, accessToken: String?, authorizationCode: String? = nil, keySet: JWKSet,
    now: Date
  ) throws -> IDToken {
    let jws = try parse(token)
    try jws.verify(using: keySet, allowedAlgorithms: allowedAlgorithms)
    return try finish(
      token, jws: jws, purpose: purpose, accessToken: accessToken, authorizationCode: authorizationCode, now: now)
  }

  private func parse(_ token: String) throws -> CompactJWS {
    do {
      return try CompactJWS(parsing: token)
    } catch let error as XidError {
      throw XidError(.invalidIDToken, "the ID token is not a valid signed JWT: \(error.reason)")
    }
  }

  /// Refuses JWTs that declare another type (`at+jwt` access tokens, `logout+jwt` logout tokens, …),
  /// so that a token of another kind signed by the same provider cannot pass for an ID token.
  private func checkType(_ header: JWSHeader) throws {
    guard var type = header.type?.lowercased() else { return }
    if type.hasPrefix("application/") { type.removeFirst("application/".count) }
    if type.hasSuffix("+jwt") {
      throw XidError(
        .invalidIDToken, "the token is typed \"\(SafeText.short(type, limit: 40))\", so it is not an ID token")
    }
  }

  private func finish(
    _ token: String, jws: CompactJWS, purpose: Purpose, accessToken: String?, authorizationCode: String?, now: Date
  ) throws -> IDToken {
    try checkType(jws.header)
    // The signature verified, so the header's algorithm is one of the allowed ones.
    let algorithm = try jws.header.algorithm(allowedBy: allowedAlgorithms)
    let claims: JWTClaims
    do {
      claims = try JWTClaims(payload: jws.payload)
    } catch let error as XidError {
      throw XidError(.invalidIDToken, "the ID token's claims are malformed: \(error.reason)")
    }
    try validateClaims(
      claims, algorithm: algorithm, purpose: purpose, accessToken: accessToken, authorizationCode: authorizationCode,
      now: now)
    return IDToken(compact: token, claims: claims, algorithm: algorithm)
  }

  /// Validates the claims of an ID token whose signature has been verified with `algorithm`.
  ///
  /// - Throws: ``XidError/Code/invalidIDToken`` naming the first rule that fails.
  public func validateClaims(
    _ claims: JWTClaims, algorithm: JWSAlgorithm, purpose: Purpose, accessToken: String?,
    authorizationCode: String? = nil, now: Date
  ) throws {
    func fail(_ reason: String) -> XidError { XidError(.invalidIDToken, "the ID token \(reason)") }

    // iss (3.1.3.7 step 2).
    guard let iss = claims.issuer else { throw fail("has no \"iss\" claim") }
    guard iss == issuer else {
      throw fail("was issued by \"\(SafeText.short(iss))\", not by the provider \"\(SafeText.short(issuer))\"")
    }
    // sub (2).
    guard let subject = claims.subject, !subject.isEmpty else { throw fail("has no \"sub\" claim") }
    // aud and azp (3 to 5).
    guard !claims.audience.isEmpty else { throw fail("has no \"aud\" claim") }
    guard claims.audience.contains(clientId) else {
      throw fail("is meant for another audience; \"aud\" does not contain the client \"\(SafeText.short(clientId))\"")
    }
    if claims.audience.count > 1, claims.authorizedParty == nil {
      throw fail("has several audiences but no \"azp\" claim naming the client")
    }
    if let azp = claims.authorizedParty, azp != clientId {
      throw fail("was issued to another client (\"azp\" is \"\(SafeText.short(azp))\")")
    }
    // exp (9), iat (10), nbf.
    guard let expiresAt = claims.expiresAt else { throw fail("has no \"exp\" claim") }
    guard let issuedAt = claims.issuedAt else { throw fail("has no \"iat\" claim") }
    if checksTimes { try validateTimes(claims, expiresAt: expiresAt, issuedAt: issuedAt, now: now) }
    // at_hash and c_hash (3.1.3.8, 3.3.2.10).
    if let atHash = claims.accessTokenHash, let accessToken {
      guard SafeText.constantTimeEquals(atHash, TokenHash.value(for: accessToken, algorithm: algorithm)) else {
        throw fail("does not belong to the access token (\"at_hash\" does not match)")
      }
    }
    if let cHash = claims.codeHash, let authorizationCode {
      guard SafeText.constantTimeEquals(cHash, TokenHash.value(for: authorizationCode, algorithm: algorithm)) else {
        throw fail("does not belong to the authorization code (\"c_hash\" does not match)")
      }
    }

    switch purpose {
    case .authentication(let nonce, let maxAge):
      // nonce (11).
      guard let tokenNonce = claims.nonce else { throw fail("has no \"nonce\" claim, but the request sent one") }
      guard SafeText.constantTimeEquals(tokenNonce, nonce) else {
        throw fail(
          "has a \"nonce\" that is not the authorization request's; it answers another request or was replayed")
      }
      // auth_time with max_age (13).
      if let maxAge {
        guard let authTime = claims.authTime else {
          throw fail("has no \"auth_time\" claim, which is required because the request sent max_age")
        }
        guard now.timeIntervalSince(authTime) <= maxAge.timeInterval + leeway.timeInterval else {
          throw fail(
            "states an authentication at \(authTime), longer ago than the requested max_age of \(maxAge.components.seconds) s (now \(now))"
          )
        }
      }
    case .refresh(let original):
      // OpenID Connect Core 1.0 §12.2.
      let old = original.claims
      guard iss == old.issuer else { throw fail("from the refresh has another \"iss\" than the original ID token") }
      guard subject == old.subject else {
        throw fail("from the refresh is about another user (\"sub\" differs from the original ID token's)")
      }
      guard Set(claims.audience) == Set(old.audience) else {
        throw fail("from the refresh has another \"aud\" than the original ID token")
      }
      guard claims.authorizedParty == old.authorizedParty else {
        throw fail("from the refresh has another \"azp\" than the original ID token")
      }
      if let authTime = claims.authTime, let originalAuthTime = old.authTime, authTime != originalAuthTime {
        throw fail("from the refresh states another \"auth_time\" than the original authentication's")
      }
      if let tokenNonce = claims.nonce {
        guard let originalNonce = old.nonce, SafeText.constantTimeEquals(tokenNonce, originalNonce) else {
          throw fail("from the refresh has a \"nonce\" that is not the original ID token's")
        }
      }
    case .withoutNonce:
      break
    }
  }

  /// Checks `exp`, `iat`, `nbf` and `auth_time` against `now`, with ``leeway``.
  private func validateTimes(_ claims: JWTClaims, expiresAt: Date, issuedAt: Date, now: Date) throws {
    func fail(_ reason: String) -> XidError { XidError(.invalidIDToken, "the ID token \(reason)") }
    guard now.timeIntervalSince(expiresAt) < leeway.timeInterval else {
      throw fail(
        "expired at \(expiresAt) (now \(now), leeway \(leeway.components.seconds) s); check the device clock if this is unexpected"
      )
    }
    guard issuedAt.timeIntervalSince(now) <= leeway.timeInterval else {
      throw fail(
        "was issued in the future, at \(issuedAt) (now \(now), leeway \(leeway.components.seconds) s); check the device clock"
      )
    }
    if let notBefore = claims.notBefore, notBefore.timeIntervalSince(now) > leeway.timeInterval {
      throw fail("is not valid before \(notBefore) (now \(now), leeway \(leeway.components.seconds) s)")
    }
    if let authTime = claims.authTime, authTime.timeIntervalSince(now) > leeway.timeInterval {
      throw fail("states an authentication in the future (\"auth_time\" \(authTime), now \(now))")
    }
  }
}
