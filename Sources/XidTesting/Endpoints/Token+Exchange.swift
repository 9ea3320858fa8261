import Foundation
import XidCore

extension TestProvider {
  /// The token exchange grant (RFC 8693): OpenID Connect Native SSO's exchange of the family's ID
  /// token and device secret for a sibling's tokens (subject token type `id_token`), or an access
  /// token of the client's for a downscoped or audience-restricted one, or for an ID token
  /// (subject token type `access_token`).
  ///
  /// Only a client with ``TestClient/allowsTokenExchange`` may exchange (`unauthorized_client`).
  func exchangeToken(_ parameters: FormParameters, client: TestClient, jkt: String?, now: Date) throws -> JSONValue {
    guard client.allowsTokenExchange else {
      throw OAuthFailure("unauthorized_client", "the client may not use the token exchange grant")
    }
    let subjectToken = try parameters.required("subject_token")
    let subjectType = try parameters.required("subject_token_type")
    switch (parameters["actor_token"], parameters["actor_token_type"]) {
    case (_?, nil): throw OAuthFailure.invalidRequest("an actor_token needs its actor_token_type (RFC 8693 §2.1)")
    case (nil, _?): throw OAuthFailure.invalidRequest("an actor_token_type without an actor_token (RFC 8693 §2.1)")
    default: break
    }
    for resource in parameters.values("resource") {
      guard let url = URL(string: resource), url.scheme != nil, url.fragment == nil else {
        throw OAuthFailure("invalid_target", "a resource must be an absolute URI without a fragment (RFC 8707 §2)")
      }
    }
    switch TokenTypeIdentifier(subjectType) {
    case .idToken:
      return try exchangeFamilyIDToken(subjectToken, parameters, client: client, jkt: jkt, now: now)
    case .accessToken:
      return try exchangeAccessToken(subjectToken, parameters, client: client, jkt: jkt, now: now)
    default:
      throw OAuthFailure.invalidRequest("the subject_token_type is not one this provider exchanges")
    }
  }

  // MARK: Native SSO (draft 07 §4)

  /// A sibling's sign-in from the family's ID token (`subject_token`) and device secret
  /// (`actor_token`), with the checks of draft 07 §4.3; see ``NativeSSOSettings``.
  private func exchangeFamilyIDToken(
    _ idToken: String, _ parameters: FormParameters, client: TestClient, jkt: String?, now: Date
  ) throws -> JSONValue {
    let settings = configuration.nativeSSO
    guard settings.isSupported else {
      throw OAuthFailure.invalidRequest("this provider does not exchange ID tokens (Native SSO is off)")
    }
    guard let deviceSecret = parameters["actor_token"], let actorType = parameters["actor_token_type"] else {
      throw OAuthFailure.invalidRequest("Native SSO needs the device secret as the actor_token")
    }
    guard settings.deviceSecretTypes.contains(TokenTypeIdentifier(actorType)) else {
      throw OAuthFailure.invalidRequest("the actor_token_type is not the device secret's token type")
    }
    let audiences = parameters.values("audience")
    guard !audiences.isEmpty else {
      throw OAuthFailure.invalidRequest("the audience parameter is missing: Native SSO requires the issuer")
    }
    guard audiences == [issuerIdentifier] else {
      throw OAuthFailure("invalid_target", "the audience must be this provider's issuer, and only it")
    }
    if let requested = parameters["requested_token_type"], TokenTypeIdentifier(requested) != .accessToken {
      throw OAuthFailure.invalidRequest("a Native SSO exchange issues access tokens only")
    }
    var scopes = ["openid"]
    if parameters["scope"] != nil {
      scopes = parameters.scopes
      guard scopes.contains("openid") else {
        throw OAuthFailure("invalid_scope", "the scope of a Native SSO exchange must include openid")
      }
    }

    // 1. The device secret is still valid, and its session alive.
    guard let secret = store.deviceSecrets[deviceSecret] else {
      throw OAuthFailure.invalidGrant("the device secret is unknown")
    }
    if !store.isValid(deviceSecret: deviceSecret, now: now) && !misbehaviors.use(.acceptsDeviceSecretAfterSignOut) {
      throw OAuthFailure.invalidGrant("the device secret is no longer valid, or its session has ended")
    }
    guard let deviceSession = store.deviceSessions[secret.sessionID] else {
      throw OAuthFailure.invalidGrant("the device secret's session is unknown")
    }
    // 2. The ID token is one this provider signed, whatever its age: the draft expects an expired one
    // (§6.3), and the session's liveness decides instead.
    guard
      let signed = try? SignedJWT(
        verifying: idToken, using: keys.signerKeySet(), allowedAlgorithms: Set(JWSAlgorithm.allCases)),
      let algorithm = JWSAlgorithm(rawValue: signed.jws.header.algorithm)
    else {
      throw OAuthFailure.invalidRequest("the subject_token is not an ID token this provider signed")
    }
    let claims = signed.claims
    guard claims.issuer == issuerIdentifier else {
      throw OAuthFailure.invalidRequest("the subject_token was issued by another issuer")
    }
    // 3. The ID token is bound to the device secret.
    guard let hash = claims.deviceSecretHash, hash == Self.tokenHash(deviceSecret, for: algorithm) else {
      throw OAuthFailure.invalidRequest("the subject_token's ds_hash does not bind the device secret")
    }
    // 4. The ID token's session is the device secret's, for the same user.
    guard claims.sessionID == secret.sessionID, claims.subject == deviceSession.user.subject else {
      throw OAuthFailure.invalidRequest("the subject_token's sid is not the device secret's session")
    }
    // 5. Both clients may share sign-ins.
    guard let familyClient = claims.authorizedParty ?? claims.audience.first,
      configuration.client(familyClient)?.allowsTokenExchange == true
    else {
      throw OAuthFailure("unauthorized_client", "the subject_token's client does not share sign-ins")
    }
    // 6. No scope needs the user's consent.
    if !settings.consentRequiredScopes.isDisjoint(with: scopes) {
      throw OAuthFailure("interaction_required", "a requested scope needs the user's consent: sign in with the browser")
    }

    let grantID = store.newGrant(
      Authorization(
        clientId: client.id, scopes: scopes, user: deviceSession.user, session: deviceSession.session, nonce: nil))
    var bound = IssuedDeviceSecret(value: deviceSecret, isReturned: false)
    if settings.rotatesDeviceSecretOnExchange {
      store.deviceSecrets[deviceSecret]?.retired = true
      bound = IssuedDeviceSecret(
        value: try newDeviceSecret(for: store.grants[grantID]!.authorization, now: now), isReturned: true)
    }
    guard
      case .object(var body) = try issueTokens(
        grantID: grantID, scopes: scopes, now: now, jkt: jkt,
        refreshTokenJKT: bindsRefreshTokens(of: client) ? jkt : nil,
        deviceSecret: bound, exchangedFrom: familyClient)
    else { throw OAuthFailure("server_error", "the tokens could not be issued", status: 500) }
    body["issued_token_type"] = .string(TokenTypeIdentifier.accessToken.rawValue)
    return .object(body)
  }

  // MARK: Access tokens

  /// An access token of the client's for a narrower one (`scope`), one for other services
  /// (`audience`, `resource`), or an ID token (`requested_token_type` `id_token`, issued with
  /// `token_type` `N_A`). A DPoP-bound subject token needs a proof of its key.
  private func exchangeAccessToken(
    _ subjectToken: String, _ parameters: FormParameters, client: TestClient, jkt: String?, now: Date
  ) throws -> JSONValue {
    guard case .success(let (record, grant)) = store.validate(accessToken: subjectToken, now: now) else {
      throw OAuthFailure.invalidRequest("the subject_token is not a valid access token")
    }
    guard grant.authorization.clientId == client.id else {
      throw OAuthFailure.invalidRequest("the subject_token was issued to another client")
    }
    guard parameters["actor_token"] == nil else {
      throw OAuthFailure.invalidRequest("this provider exchanges access tokens without an actor")
    }
    if let bound = record.jkt, bound != jkt {
      throw dpopBindingFailure(
        "the subject_token is DPoP-bound: send a proof of its key", audience: .authorizationServer)
    }
    var scopes = record.scopes
    if parameters["scope"] != nil {
      scopes = parameters.scopes
      guard Set(scopes).isSubset(of: record.scopes) else {
        throw OAuthFailure("invalid_scope", "the requested scope exceeds the subject token's")
      }
    }
    switch TokenTypeIdentifier(parameters["requested_token_type"] ?? TokenTypeIdentifier.accessToken.rawValue) {
    case .accessToken:
      let unbound = jkt != nil && misbehaviors.use(.bearerTokenForDPoPRequest)
      let jkt = unbound ? nil : jkt
      let accessToken = try Randomness.token()
      store.accessTokens[accessToken] = AccessTokenRecord(
        grantID: grant.id, scopes: scopes, expiresAt: now + configuration.accessTokenLifetime, jkt: jkt,
        audiences: parameters.values("audience") + parameters.values("resource"))
      return [
        "access_token": .string(accessToken),
        "issued_token_type": .string(TokenTypeIdentifier.accessToken.rawValue),
        "token_type": jkt == nil ? "Bearer" : "DPoP",
        "expires_in": .int(configuration.accessTokenLifetime.components.seconds),
        "scope": .string(scopes.joined(separator: " ")),
      ]
    case .idToken:
      guard grant.authorization.includesOpenID else {
        throw OAuthFailure("invalid_scope", "an ID token needs a grant with the openid scope")
      }
      let idToken = try mintIDToken(
        for: grant.authorization, accessToken: nil, code: nil, refreshing: true, scopes: scopes, now: now)
      store.issuedIDTokens.append(idToken)
      return [
        "access_token": .string(idToken),
        "issued_token_type": .string(TokenTypeIdentifier.idToken.rawValue),
        "token_type": "N_A",
        "expires_in": .int(configuration.idTokenLifetime.components.seconds),
      ]
    default:
      throw OAuthFailure.invalidRequest("the requested_token_type is not one this provider issues")
    }
  }
}
