import Foundation
import XidCore

extension TestProvider {
  /// The token endpoint: authenticates the client and dispatches on `grant_type`.
  func serveToken(_ request: HTTPRequest, now: Date) throws -> HTTPResponse {
    let parameters = try FormParameters.form(of: request)
    // A token exchange may name several audiences and resources (RFC 8693 §2.1).
    try parameters.requireNoRepeats(
      except: parameters["grant_type"] == GrantType.tokenExchange ? ["audience", "resource"] : [])
    let client = try authenticateClient(request, parameters)
    let jkt = try verifyDPoPProof(request, endpoint: .token, audience: .authorizationServer, now: now)
    if client.requiresDPoP && jkt == nil {
      throw dpopBindingFailure(
        "the client's tokens must be DPoP-bound: send a DPoP proof", audience: .authorizationServer)
    }
    let body: JSONValue
    switch try parameters.required("grant_type") {
    case GrantType.authorizationCode: body = try exchangeCode(parameters, client: client, jkt: jkt, now: now)
    case GrantType.refreshToken: body = try refresh(parameters, client: client, jkt: jkt, now: now)
    case GrantType.deviceCode: body = try redeemDeviceCode(parameters, client: client, jkt: jkt, now: now)
    case GrantType.tokenExchange: body = try exchangeToken(parameters, client: client, jkt: jkt, now: now)
    default: throw OAuthFailure("unsupported_grant_type", "the grant type is not supported")
    }
    return .json(body, headers: ["Pragma": "no-cache"])
  }

  /// A device secret to send with the tokens of a grant (OpenID Connect Native SSO), and bind the
  /// ID token to with `ds_hash`.
  struct IssuedDeviceSecret {
    /// The secret.
    let value: String
    /// Whether the response carries it as `device_secret` (an exchange binds its ID token to the
    /// secret it was sent, and returns a secret only when it rotates it).
    let isReturned: Bool
  }

  /// Whether a response for `scopes` carries an ID token.
  func issuesIDToken(scopes: [String], refreshing: Bool) -> Bool {
    scopes.contains("openid") && (!refreshing || configuration.issuesIDTokenOnRefresh)
  }

  /// A successful token response for `grantID`, with an access token of `scopes`, a refresh token
  /// as configured, and an ID token when the scopes include `openid`.
  ///
  /// - Parameters:
  ///   - jkt: the thumbprint of the request's DPoP key: the access token is bound to it
  ///     (`token_type: DPoP`), unless ``Misbehavior/bearerTokenForDPoPRequest`` is on.
  ///   - refreshTokenJKT: the key the new refresh token is bound to, if any.
  ///   - deviceSecret: the device secret the ID token is bound to (`ds_hash`), if any.
  ///   - exchangedFrom: for a Native SSO exchange, the client of the family's ID token.
  ///   - resource: the resource the access token is for alone (RFC 8707), its one audience.
  ///
  /// The grant's `authorization_details` (RFC 9396) come back as they were asked for, with
  /// ``Misbehavior/unrequestedAuthorizationDetails`` one more of a type nobody asked for.
  func issueTokens(
    grantID: Int, scopes: [String], now: Date, code: String? = nil, refreshing: Bool = false, jkt: String? = nil,
    refreshTokenJKT: String? = nil, deviceSecret: IssuedDeviceSecret? = nil, exchangedFrom: String? = nil,
    resource: String? = nil
  ) throws -> JSONValue {
    guard let grant = store.grants[grantID] else { throw OAuthFailure.invalidGrant("the grant is unknown") }
    let unbound = jkt != nil && misbehaviors.use(.bearerTokenForDPoPRequest)
    let jkt = unbound ? nil : jkt
    let refreshTokenJKT = unbound ? nil : refreshTokenJKT
    let accessToken = try Randomness.token()
    store.accessTokens[accessToken] = AccessTokenRecord(
      grantID: grantID, scopes: scopes, expiresAt: now + configuration.accessTokenLifetime, jkt: jkt,
      audiences: resource.map { [$0] } ?? [],
      authorizationDetailTypes: grant.authorization.authorizationDetails.compactMap {
        $0["type"]?.stringValue
      })
    var body: [String: JSONValue] = [
      "access_token": .string(accessToken),
      "token_type": jkt == nil ? "Bearer" : "DPoP",
      "expires_in": .int(configuration.accessTokenLifetime.components.seconds),
      "scope": .string(scopes.joined(separator: " ")),
    ]
    var details = grant.authorization.authorizationDetails
    if misbehaviors.use(.unrequestedAuthorizationDetails) {
      details.append(["type": .string(Misbehavior.foreignAuthorizationDetailType), "actions": ["read"]])
    }
    if !details.isEmpty { body["authorization_details"] = .array(details) }
    if configuration.issuesRefreshTokens && (!refreshing || configuration.rotatesRefreshTokens) {
      let refreshToken = try Randomness.token()
      store.refreshTokens[refreshToken] = RefreshTokenRecord(
        grantID: grantID, scopes: grant.authorization.scopes,
        expiresAt: configuration.refreshTokenLifetime.map { now + $0 }, jkt: refreshTokenJKT)
      store.issuedRefreshTokens.append((refreshToken, grantID))
      body["refresh_token"] = .string(refreshToken)
    }
    if issuesIDToken(scopes: scopes, refreshing: refreshing) {
      let idToken = try mintIDToken(
        for: grant.authorization, accessToken: accessToken, code: code, refreshing: refreshing, scopes: scopes,
        now: now, deviceSecret: deviceSecret?.value, exchangedFrom: exchangedFrom)
      store.issuedIDTokens.append(idToken)
      body["id_token"] = .string(idToken)
      if let deviceSecret, deviceSecret.isReturned { body["device_secret"] = .string(deviceSecret.value) }
    }
    return .object(body)
  }
}
