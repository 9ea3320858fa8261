import Foundation
import XidCore

extension TestProvider {
  /// The pushed authorization request endpoint (RFC 9126): validates an authorization request as
  /// the authorization endpoint would and returns a single-use `request_uri` for it.
  func servePushedAuthorization(_ request: HTTPRequest, now: Date) throws -> HTTPResponse {
    let parameters = try FormParameters.form(of: request)
    try parameters.requireNoRepeats(except: ["resource"])
    let client = try authenticateClient(request, parameters)
    guard parameters["request_uri"] == nil else {
      throw OAuthFailure.invalidRequest("a pushed authorization request cannot itself contain request_uri")
    }
    // RFC 9449 §10.1: a proof binds the code like dpop_jkt, and both must name the same key.
    var binding: [(String, String)] = []
    if let jkt = try verifyDPoPProof(request, endpoint: .pushedAuthorization, audience: .authorizationServer, now: now)
    {
      if let named = parameters["dpop_jkt"], named != jkt {
        throw dpopBindingFailure("the proof's key is not the dpop_jkt of the request", audience: .authorizationServer)
      }
      if parameters["dpop_jkt"] == nil { binding = [("dpop_jkt", jkt)] }
    }
    // What the authorization endpoint will see: the request as pushed, naming the authenticated
    // client, without its credentials.
    let stored = FormParameters(
      parameters.pairs.filter { $0.0 != "client_id" && $0.0 != "client_secret" } + [("client_id", client.id)]
        + binding)
    let (_, redirectUri) = try AuthorizationRequest.identify(stored, in: configuration)
    _ = try AuthorizationRequest(stored, client: client, redirectUri: redirectUri, configuration: configuration)
    let requestURI = "urn:ietf:params:oauth:request_uri:" + (try Randomness.token())
    store.pushedRequests[requestURI] = PushedRequest(
      clientId: client.id, parameters: stored, expiresAt: now + configuration.pushedRequestLifetime)
    return .json(
      ["request_uri": .string(requestURI), "expires_in": .int(configuration.pushedRequestLifetime.components.seconds)],
      status: 201)
  }
}
