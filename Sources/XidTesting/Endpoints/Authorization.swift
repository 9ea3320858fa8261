import Foundation
import XidCore

extension TestProvider {
  /// The authorization endpoint: validates the request, asks the ``TestUser``, and redirects back
  /// with a code or an error.
  func serveAuthorization(_ request: HTTPRequest, now: Date) throws -> HTTPResponse {
    var parameters = try FormParameters.of(request)
    try parameters.requireNoRepeats(except: ["resource"])
    let pushed = parameters["request_uri"] != nil
    if let requestURI = parameters["request_uri"] {
      parameters = try pushedParameters(requestURI, clientId: parameters["client_id"], now: now)
    }
    let (client, redirectUri) = try AuthorizationRequest.identify(parameters, in: configuration)
    let state = parameters["state"]
    do {
      if configuration.pushedAuthorization == .required && !pushed {
        throw OAuthFailure.invalidRequest("this provider requires pushed authorization requests (RFC 9126)")
      }
      let authorization = try AuthorizationRequest(
        parameters, client: client, redirectUri: redirectUri, configuration: configuration)
      let code = try decide(authorization, now: now)
      return authorizationRedirect(to: redirectUri, [("code", code)], state: state)
    } catch let failure as OAuthFailure {
      return authorizationRedirect(
        to: redirectUri, [("error", failure.error), ("error_description", failure.description)], state: state)
    }
  }

  /// The parameters pushed for `requestURI` (RFC 9126 §4), used up.
  private func pushedParameters(_ requestURI: String, clientId: String?, now: Date) throws -> FormParameters {
    guard let pushed = store.pushedRequests.removeValue(forKey: requestURI) else {
      throw OAuthFailure.invalidRequest("the request_uri is unknown or was already used")
    }
    guard pushed.clientId == clientId else {
      throw OAuthFailure.invalidRequest("the request_uri was pushed by another client")
    }
    guard now < pushed.expiresAt else { throw OAuthFailure.invalidRequest("the request_uri expired") }
    return pushed.parameters
  }

  /// Asks the user; on approval, signs them in if needed and returns a new authorization code.
  private func decide(_ request: AuthorizationRequest, now: Date) throws -> String {
    let injected = misbehaviors.use {
      if case .authorizationError = $0 { return true }
      return false
    }
    if case .authorizationError(let error, let description)? = injected {
      throw OAuthFailure(error, description ?? "the test provider was told to fail this request")
    }
    let silent = request.prompt.contains("none")
    switch user.behavior {
    case .deny: throw OAuthFailure("access_denied", "the user denied the request")
    case .requireLogin where silent: throw OAuthFailure("login_required", "the user must sign in")
    case .requireConsent where silent: throw OAuthFailure("consent_required", "the user must consent")
    case .approve, .requireLogin, .requireConsent: break
    }
    var mustSignIn = session == nil || request.prompt.contains("login") || user.behavior == .requireLogin
    if let maxAge = request.maxAge, let session, now.timeIntervalSince(session.authTime) > maxAge { mustSignIn = true }
    let acr = try authenticationContext(for: request)
    if let acr, session?.acr != acr { mustSignIn = true }
    if mustSignIn && silent { throw OAuthFailure("login_required", "the user is not signed in") }
    let session = try mustSignIn ? signIn(now: now, acr: acr) : session!
    let code = try Randomness.token()
    store.codes[code] = AuthorizationCodeRecord(
      authorization: Authorization(
        clientId: request.client.id, scopes: request.scopes, user: user, session: session, nonce: request.nonce,
        authorizationDetails: request.authorizationDetails, resources: request.resources),
      redirectUri: request.redirectUri, codeChallenge: request.codeChallenge,
      expiresAt: now + configuration.authorizationCodeLifetime, dpopJKT: request.dpopJKT)
    return code
  }

  /// Signs the user in now: a new session with a new `sid`, which satisfies `acr` (by default the
  /// class of the session it replaces, or the weakest the provider has).
  func signIn(now: Date, acr: String? = nil) throws -> UserSession {
    let session = UserSession(
      authTime: now, id: try Randomness.token(bytes: 16),
      acr: acr ?? self.session?.acr ?? configuration.acrValuesSupported.first)
    self.session = session
    return session
  }

  /// The authentication context class a request asks for and the provider has: the first of its
  /// values the provider supports; `nil` when it asks for none (or the provider issues no `acr`).
  private func authenticationContext(for request: AuthorizationRequest) throws -> String? {
    let supported = configuration.acrValuesSupported
    guard !supported.isEmpty, !request.acrValues.isEmpty else { return nil }
    if let acr = request.acrValues.first(where: supported.contains) { return acr }
    if request.acrIsEssential {
      throw OAuthFailure(
        "unmet_authentication_requirements", "the provider cannot satisfy any of the essential acr values asked for")
    }
    return nil
  }

  /// A `302` to the client's redirect URI with `parameters`, `state` and `iss` (RFC 9207), as the
  /// redirect hostile modes allow.
  private func authorizationRedirect(to redirectUri: String, _ parameters: [(String, String)], state: String?)
    -> HTTPResponse
  {
    var query = parameters
    if !misbehaviors.use(.missingState) {
      if misbehaviors.use(.wrongState) {
        query.append(("state", "forged-" + String((state ?? "").reversed())))
      } else if let state {
        query.append(("state", state))
      }
    }
    if !misbehaviors.use(.missingIssuerInRedirect) {
      query.append(("iss", misbehaviors.use(.wrongIssuerInRedirect) ? Misbehavior.foreignIssuer : issuerIdentifier))
    }
    let location = URL(string: redirectUri)!.appendingQuery(query)
    return HTTPResponse(status: 302, headers: ["Location": location.absoluteString, "Cache-Control": "no-store"])
  }
}
