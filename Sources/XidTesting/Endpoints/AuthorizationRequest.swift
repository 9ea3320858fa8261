import Foundation
import XidCore

/// An authorization request that passed validation: what the user is asked to approve.
struct AuthorizationRequest {
  let client: TestClient
  let redirectUri: String
  let scopes: [String]
  let nonce: String?
  let codeChallenge: String
  let prompt: Set<String>
  let maxAge: TimeInterval?
  /// `dpop_jkt` (RFC 9449 §10): the thumbprint of the key the code is bound to.
  let dpopJKT: String?
  /// The `acr` values asked for, in order: an essential `acr` claim's `values` (OpenID Connect Core
  /// §5.5.1.1), else `acr_values`.
  let acrValues: [String]
  /// Whether the `claims` parameter asks for `acr` as an essential claim.
  let acrIsEssential: Bool

  /// The client and redirect URI of a request. Failures here must not be redirected: the redirect
  /// URI is not trusted yet (RFC 6749 §4.1.2.1).
  static func identify(_ parameters: FormParameters, in configuration: TestProvider.Configuration) throws -> (
    client: TestClient, redirectUri: String
  ) {
    guard let clientId = parameters["client_id"] else {
      throw OAuthFailure.invalidRequest("the client_id parameter is missing")
    }
    guard let client = configuration.client(clientId) else {
      throw OAuthFailure("invalid_client", "the client is not registered")
    }
    guard let redirectUri = parameters["redirect_uri"] else {
      throw OAuthFailure.invalidRequest("the redirect_uri parameter is missing")
    }
    guard client.allowsRedirect(to: redirectUri), URL(string: redirectUri) != nil else {
      throw OAuthFailure.invalidRequest("the redirect_uri is not registered for the client (exact match required)")
    }
    return (client, redirectUri)
  }

  /// Validates the rest of the request of an identified client. Failures here are redirected to the
  /// client with `error`.
  init(_ parameters: FormParameters, client: TestClient, redirectUri: String) throws {
    guard let responseType = parameters["response_type"] else {
      throw OAuthFailure.invalidRequest("the response_type parameter is missing")
    }
    guard responseType == "code" else {
      throw OAuthFailure("unsupported_response_type", "only response_type=code is supported")
    }
    if let mode = parameters["response_mode"], mode != "query" {
      throw OAuthFailure.invalidRequest("only response_mode=query is supported")
    }
    if parameters["request"] != nil {
      throw OAuthFailure("request_not_supported", "request objects are not supported")
    }
    guard let challenge = parameters["code_challenge"] else {
      throw OAuthFailure.invalidRequest("PKCE is required: send code_challenge with code_challenge_method=S256")
    }
    guard parameters["code_challenge_method"] == "S256" else {
      throw OAuthFailure.invalidRequest("code_challenge_method must be S256; plain (the default) is refused")
    }
    guard challenge.utf8.count == 43, (try? Base64URL.decode(challenge))?.count == 32 else {
      throw OAuthFailure.invalidRequest("the code_challenge is not a base64url SHA-256 digest")
    }
    let prompt = Set((parameters["prompt"] ?? "").split(separator: " ").map(String.init))
    if prompt.contains("none") && prompt.count > 1 {
      throw OAuthFailure.invalidRequest("prompt=none cannot be combined with other prompt values")
    }
    var maxAge: TimeInterval?
    if let text = parameters["max_age"] {
      guard let seconds = Int(text), seconds >= 0 else {
        throw OAuthFailure.invalidRequest("max_age must be a non-negative number of seconds")
      }
      maxAge = TimeInterval(seconds)
    }
    self.client = client
    self.redirectUri = redirectUri
    self.scopes = parameters.scopes
    self.nonce = parameters["nonce"]
    self.codeChallenge = challenge
    self.prompt = prompt
    self.maxAge = maxAge
    self.dpopJKT = parameters["dpop_jkt"]
    let acr = try Self.requestedACR(parameters["claims"])
    self.acrValues = acr?.values ?? (parameters["acr_values"] ?? "").split(separator: " ").map(String.init)
    self.acrIsEssential = acr?.essential ?? false
  }

  /// The `acr` member of the `claims` parameter's `id_token` object, if any.
  private static func requestedACR(_ claims: String?) throws -> (values: [String]?, essential: Bool)? {
    guard let claims else { return nil }
    guard let object = try? JSONValue(parsing: claims).objectValue else {
      throw OAuthFailure.invalidRequest("the claims parameter is not a JSON object")
    }
    guard let acr = object["id_token"]?.objectValue?["acr"]?.objectValue else { return nil }
    let values = acr["values"]?.arrayValue?.compactMap(\.stringValue) ?? acr["value"]?.stringValue.map { [$0] }
    return (values, acr["essential"] == .bool(true))
  }
}
