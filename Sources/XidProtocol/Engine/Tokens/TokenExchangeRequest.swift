import Foundation

/// An OAuth 2.0 token exchange request (RFC 8693 §2.1): a token the client holds (the subject token,
/// and optionally an actor token) for another one, such as a downscoped or audience-restricted access
/// token for a backend, or a sibling app's tokens in OpenID Connect Native SSO.
///
/// Send it with ``OpenIDClient/exchange(_:dpopKey:)``. Its `description` and mirror show the token
/// types, audiences, resources and scopes, never the subject or actor token.
///
/// ```swift
/// // A token for the payments API only, with a narrower scope.
/// let request = TokenExchangeRequest(
///   subjectToken: accessToken, subjectTokenType: .accessToken,
///   resources: [URL(string: "https://payments.example.com")!], scopes: ["payments:read"])
/// let result = try await client.exchange(request)
/// ```
public struct TokenExchangeRequest: Sendable, Hashable, CustomStringConvertible, CustomReflectable {
  /// `urn:ietf:params:oauth:grant-type:token-exchange`, the grant type of every exchange.
  public static let grantType = "urn:ietf:params:oauth:grant-type:token-exchange"

  /// `subject_token`: the token that represents the party on whose behalf the new token is asked
  /// for (for Native SSO, the family's ID token). Secret.
  public var subjectToken: String
  /// `subject_token_type`: what ``subjectToken`` is.
  public var subjectTokenType: TokenTypeIdentifier
  /// `actor_token`: a token that represents the party that acts (for Native SSO, the device
  /// secret), or `nil`. Secret.
  public var actorToken: String?
  /// `actor_token_type`: what ``actorToken`` is; required with an actor token, and only then.
  public var actorTokenType: TokenTypeIdentifier?
  /// `requested_token_type`: the kind of token wanted, or `nil` to let the provider choose.
  public var requestedTokenType: TokenTypeIdentifier?
  /// `audience`: the logical names of the services where the new token will be used, one
  /// parameter each (RFC 8693 allows several). Native SSO requires the issuer here.
  public var audiences: [String]
  /// `resource`: the URIs of the resource servers where the new token will be used (RFC 8707), one
  /// parameter each: absolute URIs without a fragment.
  public var resources: [URL]
  /// `scope`: the scopes wanted, or `nil` to send none (the provider's default).
  public var scopes: [String]?

  /// Creates a request.
  ///
  /// - Parameters:
  ///   - subjectToken: the subject token.
  ///   - subjectTokenType: its type.
  ///   - actorToken: the actor token, if any.
  ///   - actorTokenType: its type; required with `actorToken`.
  ///   - requestedTokenType: the type of token wanted; the provider chooses when `nil`.
  ///   - audiences: where the new token will be used, by name.
  ///   - resources: where the new token will be used, by URI (RFC 8707).
  ///   - scopes: the scopes wanted; none are sent when `nil` or empty.
  public init(
    subjectToken: String, subjectTokenType: TokenTypeIdentifier, actorToken: String? = nil,
    actorTokenType: TokenTypeIdentifier? = nil, requestedTokenType: TokenTypeIdentifier? = nil,
    audiences: [String] = [], resources: [URL] = [], scopes: [String]? = nil
  ) {
    self.subjectToken = subjectToken
    self.subjectTokenType = subjectTokenType
    self.actorToken = actorToken
    self.actorTokenType = actorTokenType
    self.requestedTokenType = requestedTokenType
    self.audiences = audiences
    self.resources = resources
    self.scopes = scopes
  }

  /// The exchange of OpenID Connect Native SSO for Mobile Apps 1.0 (draft 07 §4): a sibling app
  /// signs in with the family's ID token and device secret, without a browser.
  ///
  /// The ID token may have expired: the provider checks that its session is still alive instead.
  ///
  /// - Parameters:
  ///   - idToken: the family's ID token (compact), the one issued with `deviceSecret`.
  ///   - deviceSecret: the family's device secret.
  ///   - issuer: the provider's issuer identifier, which the draft requires as the `audience`.
  ///   - scopes: the sibling's scopes; `openid` is added, as the draft requires. `nil` sends none.
  ///   - deviceSecretType: the device secret's token type: ``TokenTypeIdentifier/deviceSecret``, or
  ///     ``TokenTypeIdentifier/legacyDeviceSecret`` for a provider of the older drafts (Okta).
  public static func nativeSSO(
    idToken: String, deviceSecret: String, issuer: String, scopes: [String]? = nil,
    deviceSecretType: TokenTypeIdentifier = .deviceSecret
  ) -> TokenExchangeRequest {
    TokenExchangeRequest(
      subjectToken: idToken, subjectTokenType: .idToken, actorToken: deviceSecret, actorTokenType: deviceSecretType,
      audiences: [issuer], scopes: scopes.map(ClientIdentity.withOpenID))
  }

  /// Checks what RFC 8693 and RFC 8707 require of the request itself.
  ///
  /// - Throws: ``XidError/Code/invalidConfiguration`` naming what to change: an empty subject token
  ///   or type, an actor token without its type (or a type without a token), an empty audience or
  ///   scope, or a resource that is not an absolute URI or has a fragment.
  public func validate() throws {
    func invalid(_ reason: String) -> XidError {
      XidError(.invalidConfiguration, "the token exchange request \(reason)")
    }
    guard !subjectToken.isEmpty else { throw invalid("has an empty subject token") }
    guard !subjectTokenType.rawValue.isEmpty else { throw invalid("has an empty subject token type") }
    switch (actorToken, actorTokenType) {
    case (nil, nil): break
    case (let token?, let type?):
      guard !token.isEmpty else { throw invalid("has an empty actor token") }
      guard !type.rawValue.isEmpty else { throw invalid("has an empty actor token type") }
    case (_?, nil): throw invalid("has an actor token without its actorTokenType (RFC 8693 §2.1 requires it)")
    case (nil, _?): throw invalid("has an actorTokenType without an actor token (RFC 8693 §2.1 forbids it)")
    }
    if requestedTokenType?.rawValue.isEmpty == true { throw invalid("has an empty requested token type") }
    if audiences.contains(where: \.isEmpty) { throw invalid("has an empty audience") }
    for resource in resources {
      guard resource.scheme != nil, resource.fragment == nil else {
        throw invalid(
          "has the resource \"\(SafeText.short(resource.absoluteString))\", which is not an absolute URI without a fragment (RFC 8707 §2)"
        )
      }
    }
    if let scopes, scopes.contains(where: { $0.isEmpty || $0.contains(" ") }) {
      throw invalid("has an empty scope or one with a space")
    }
  }

  /// The form parameters of the request, without client authentication.
  var parameters: [(String, String)] {
    var parameters = [
      ("grant_type", Self.grantType), ("subject_token", subjectToken),
      ("subject_token_type", subjectTokenType.rawValue),
    ]
    if let actorToken, let actorTokenType {
      parameters += [("actor_token", actorToken), ("actor_token_type", actorTokenType.rawValue)]
    }
    if let requestedTokenType { parameters.append(("requested_token_type", requestedTokenType.rawValue)) }
    parameters += audiences.map { ("audience", $0) }
    parameters += resources.map { ("resource", $0.absoluteString) }
    if let scopes, !scopes.isEmpty { parameters.append(("scope", scopes.joined(separator: " "))) }
    return parameters
  }

  /// The values that must never appear in an error reason.
  var secrets: [String] { [subjectToken] + (actorToken.map { [$0] } ?? []) }

  /// `TokenExchangeRequest(subjectTokenType: …, actorTokenType: …, …)`; never a token.
  public var description: String {
    var parts = ["subjectTokenType: \(subjectTokenType)", "actorTokenType: \(actorTokenType?.rawValue ?? "none")"]
    if let requestedTokenType { parts.append("requestedTokenType: \(requestedTokenType)") }
    if !audiences.isEmpty { parts.append("audiences: \(audiences.joined(separator: ", "))") }
    if !resources.isEmpty { parts.append("resources: \(resources.map(\.absoluteString).joined(separator: ", "))") }
    parts.append("scopes: \(scopes?.joined(separator: " ") ?? "default")")
    return "TokenExchangeRequest(\(parts.joined(separator: ", ")))"
  }

  /// The fields that are not secret, so that `dump` does not show the tokens.
  public var customMirror: Mirror {
    Mirror(
      self,
      children: [
        "subjectTokenType": subjectTokenType, "hasActorToken": actorToken != nil,
        "actorTokenType": actorTokenType as Any, "requestedTokenType": requestedTokenType as Any,
        "audiences": audiences, "resources": resources, "scopes": scopes as Any,
      ])
  }
}
