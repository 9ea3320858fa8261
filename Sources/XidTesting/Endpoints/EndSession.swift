import Foundation
import XidCore

extension TestProvider {
  /// The end-session endpoint (OpenID Connect RP-Initiated Logout): records the call, ends the
  /// user's session (and the device session of the hint's `sid`, Native SSO's) and redirects to a
  /// registered `post_logout_redirect_uri` with `state`.
  func serveEndSession(_ request: HTTPRequest) throws -> HTTPResponse {
    let parameters = try FormParameters.of(request)
    try parameters.requireNoRepeats()
    let hint = parameters["id_token_hint"]
    // An expired hint is fine; it must only be an ID token this provider signed.
    var claims: JWTClaims?
    if let hint {
      let signers = try keys.signerKeySet()
      claims = try? SignedJWT(verifying: hint, using: signers, allowedAlgorithms: Set(JWSAlgorithm.allCases)).claims
    }
    endSessionCalls.append(
      EndSessionCall(
        idTokenHint: hint, hintedSubject: claims?.subject, clientId: parameters["client_id"],
        postLogoutRedirectUri: parameters["post_logout_redirect_uri"], state: parameters["state"],
        logoutHint: parameters["logout_hint"]))
    if hint != nil && claims == nil {
      throw OAuthFailure.invalidRequest("the id_token_hint is not an ID token this provider issued")
    }
    let hintedClient = claims?.audience.first
    if let clientId = parameters["client_id"], let hintedClient, clientId != hintedClient {
      throw OAuthFailure.invalidRequest("the client_id differs from the id_token_hint's audience")
    }
    session = nil
    if let sessionID = claims?.sessionID { endDeviceSession(id: sessionID) }
    guard let uri = parameters["post_logout_redirect_uri"] else { return .json(["result": "signed out"]) }
    guard let clientId = parameters["client_id"] ?? hintedClient, let client = configuration.client(clientId),
      client.allowsPostLogoutRedirect(to: uri), let target = URL(string: uri)
    else {
      throw OAuthFailure.invalidRequest("the post_logout_redirect_uri is not registered for the client")
    }
    let location = target.appendingQuery(parameters["state"].map { [("state", $0)] } ?? [])
    return HTTPResponse(status: 302, headers: ["Location": location.absoluteString, "Cache-Control": "no-store"])
  }
}
