/// Refreshes an account's tokens at its provider: the refresh token grant, with a proof of the
/// tokens' DPoP key when they are bound to one, then the check of a new ID token (OIDC Core 12.2).
/// Whoever shares the account's sign-in takes part through ``companion`` (the app family's own app
/// sends the family's device secret and keeps a rotated one).
struct TokenRefresher: TokenRefreshing {
  let client: OpenIDClient
  let signer: any RequestSigner
  var companion: (any RefreshCompanion)? = nil

  func refresh(_ record: TokenRecord, for resource: ProtectedResource?) async throws -> RefreshedTokens {
    // One call: a refresh opens the sealed refresh token and signs its proof with one prompt.
    try await PresenceScope.run {
      let key = try signer.key(for: record)
      try await signer.ready(key)
      return try await refresh(record, key: key, resource: resource)
    }
  }

  func beforeTheAccountLock<T>(
    for record: TokenRecord?, isolation: isolated (any Actor)?, _ body: () async throws -> T
  ) async throws -> T {
    guard let companion else { return try await body() }
    return try await companion.holdingLock(for: record, isolation: isolation, body)
  }

  func revokeDropped(_ refreshToken: String) async {
    await client.revokeBestEffort(
      refreshToken, hint: .refreshToken, category: "refresh", naming: "a dropped refresh token")
  }

  private func refresh(_ record: TokenRecord, key: PreparedDPoPKey?, resource: ProtectedResource?) async throws
    -> RefreshedTokens
  {
    guard let refreshToken = record.refreshToken else {
      throw XidError(.signInRequired, "the session has no refresh token")
    }
    let tokens: TokenResponse
    do {
      tokens = try await client.refreshTokens(
        refreshToken: refreshToken, scopes: resource?.scopes, deviceSecret: companion?.deviceSecret(for: record),
        dpopKey: key?.key, resource: resource?.parameter)
    } catch let error as XidError where error.isInvalidGrant {
      throw XidError(.refreshRefused, error.reason, httpStatus: error.httpStatus, oauthError: error.oauthError)
    } catch let error as XidError where error.code == .tokenRequestFailed {
      throw XidError(
        error.code, error.reason + "; the session is kept (only an OAuth invalid_grant ends it)",
        httpStatus: error.httpStatus, oauthError: error.oauthError)
    }
    var refreshed = RefreshedTokens(
      accessToken: tokens.accessToken, tokenType: tokens.tokenType.rawValue, expiresIn: tokens.expiresIn?.timeInterval,
      refreshToken: tokens.refreshToken, idToken: nil, scopes: tokens.scope,
      authorizationDetails: tokens.authorizationDetails)
    guard let idToken = tokens.idToken else {
      companion?.keep(tokens.deviceSecret, idToken: nil, for: record)
      return refreshed
    }
    // The provider has spent the old refresh token: whatever the check finds, the new one is kept
    // (the answer may pass later) or revoked (it is foreign), never thrown away.
    switch await RefreshIdentity(record: record).checkOrClassify(
      idToken, accessToken: tokens.accessToken, client: client, logger: client.configuration.parts.logger)
    {
    case .success(let validated?):
      refreshed.idToken = validated.compact
      refreshed.identity = (validated.issuer, validated.subject)
      companion?.keep(tokens.deviceSecret, idToken: validated, for: record)
    case .success(nil):
      companion?.keep(tokens.deviceSecret, idToken: nil, for: record)
    case .failure(.mayPassLater(let error)):
      refreshed.uncheckedIDToken = error
      companion?.keep(tokens.deviceSecret, idToken: nil, for: record)
    case .failure(.foreign(let error)):
      // Not this session's answer: its device secret is nobody's to keep.
      refreshed.foreign = error
    }
    return refreshed
  }
}
