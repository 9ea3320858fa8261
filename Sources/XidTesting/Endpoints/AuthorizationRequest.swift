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
  /// `authorization_details` (RFC 9396): what the user is asked to authorize, granted as asked.
  let authorizationDetails: [JSONValue]
  /// `resource` (RFC 8707), each value once: the resources the grant's tokens may be for.
  let resources: [String]

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
  init(
    _ parameters: FormParameters, client: TestClient, redirectUri: String,
    configuration: TestProvider.Configuration
  ) throws {
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
    self.authorizationDetails = try Self.authorizationDetails(
      parameters["authorization_details"], types: configuration.authorizationDetailTypes)
    self.resources = try Self.resources(parameters.values("resource"), known: configuration.resources)
  }

  /// The elements of an `authorization_details` parameter, each of a type the provider knows
  /// (RFC 9396 §5: `invalid_authorization_details` otherwise).
  static func authorizationDetails(_ text: String?, types: [String]) throws -> [JSONValue] {
    guard let text else { return [] }
    guard let items = try? JSONValue(parsing: text).arrayValue else {
      throw OAuthFailure("invalid_authorization_details", "authorization_details is not a JSON array")
    }
    for item in items {
      guard let type = item.objectValue?["type"]?.stringValue else {
        throw OAuthFailure("invalid_authorization_details", "an authorization detail has no string type")
      }
      guard types.contains(type) else {
        throw OAuthFailure("invalid_authorization_details", "the authorization detail type is unknown here")
      }
    }
    return items
  }

  /// The `resource` values of a request, each an absolute URI without fragment the provider knows
  /// (RFC 8707 §2: `invalid_target` otherwise).
  static func resources(_ values: [String], known: [String]) throws -> [String] {
    var seen = Set<String>()
    for value in values {
      guard let url = URL(string: value), url.scheme != nil, url.fragment == nil else {
        throw OAuthFailure("invalid_target", "a resource is not an absolute URI without a fragment")
      }
      guard known.contains(value) else { throw OAuthFailure("invalid_target", "the resource is unknown here") }
    }
    return values.filter { seen.insert($0).inserted }
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
