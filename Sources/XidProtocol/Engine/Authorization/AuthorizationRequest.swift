import Foundation

/// An authorization request ready to be opened: the URL for the browser and the values to keep until
/// the redirect arrives.
///
/// Its `description` shows neither the URL's query (which carries `state` and `nonce`) nor the
/// pending secrets.
public struct AuthorizationRequest: Sendable, Hashable, CustomStringConvertible, CustomReflectable {
  /// The URL to open in the browser (`ASWebAuthenticationSession` or the system browser). With pushed
  /// authorization (RFC 9126) it carries only `client_id` and `request_uri`.
  public let url: URL
  /// What the redirect will be checked against; persist it until then.
  public let pending: PendingAuthorization
  /// Whether the request was pushed to the provider (RFC 9126).
  public let isPushed: Bool

  /// Creates a request from its parts.
  public init(url: URL, pending: PendingAuthorization, isPushed: Bool) {
    self.url = url
    self.pending = pending
    self.isPushed = isPushed
  }

  /// `AuthorizationRequest(endpoint: …, pushed: …, pending: …)`; never the state, nonce or verifier.
  public var description: String {
    "AuthorizationRequest(endpoint: \(AuthorizationResponse.endpointDescription(url)), pushed: \(isPushed), pending: \(pending))"
  }

  /// The fields that are not secret, so that `dump` does not show the URL's query.
  public var customMirror: Mirror {
    Mirror(
      self,
      children: ["endpoint": AuthorizationResponse.endpointDescription(url), "isPushed": isPushed, "pending": pending])
  }

  /// Checks `options` before anything is sent, and returns the scopes the request asks for.
  ///
  /// - Throws: ``XidError/Code/invalidConfiguration`` when an additional parameter would replace one
  ///   Xid sets, `max_age` is negative, or the scope asks for `offline_access` without DPoP (see
  ///   ``XidConfiguration/checkScopes(_:)``).
  static func checkedScopes(configuration: XidConfiguration, options: SignInOptions) throws -> [String] {
    let reserved = options.additionalParameters.keys.filter { SignInOptions.reservedParameters.contains($0) }
    if !reserved.isEmpty {
      throw XidError(
        .invalidConfiguration,
        "additional authorization parameters may not set \(reserved.sorted().joined(separator: ", ")); Xid sets these itself or through SignInOptions"
      )
    }
    if let maxAge = options.requestedMaxAge, maxAge < .zero {
      throw XidError(.invalidConfiguration, "max_age must not be negative")
    }
    if let stepUp = options.stepUp, !stepUp.acrValues.isEmpty, options.additionalParameters["claims"] != nil {
      throw XidError(
        .invalidConfiguration,
        "a step-up asks for its acr values in the claims parameter itself; remove \"claims\" from the additional parameters"
      )
    }
    try options.resourceMetadata?.check(for: configuration)
    // A step-up is this app's: the family's session (device_sso) is not asked for again.
    let scopes = configuration.identity.requestedScopes(
      options.scopes ?? options.resourceMetadata?.scopesSupported, includingFamily: options.stepUp == nil)
    try configuration.checkRequestScope(
      scopes.joined(separator: " "), of: "the authorization request",
      from: options.scopes != nil
        ? "SignInOptions.scopes"
        : options.resourceMetadata?.scopesSupported != nil
          ? "the protected resource's scopes_supported" : "XidConfiguration.identity.scopes")
    return scopes
  }

  /// The authorization request parameters (OpenID Connect Core 1.0 §3.1.2.1) for `options`, with
  /// fresh `state`, `nonce` and PKCE verifier, and the pending authorization that remembers them.
  ///
  /// - Throws: as ``checkedScopes(configuration:options:)``; ``XidError/Code/unsupportedByProvider``
  ///   when the provider lists PKCE methods without `S256`, or authorization detail types without one
  ///   that `options` asks for.
  static func parameters(
    configuration: XidConfiguration, metadata: ProviderMetadata, options: SignInOptions, now: Date,
    dpopKeyThumbprint: String? = nil
  ) throws -> (parameters: [(String, String)], pending: PendingAuthorization) {
    if let methods = metadata.codeChallengeMethodsSupported, !methods.contains("S256") {
      throw XidError(
        .unsupportedByProvider,
        "the provider does not list PKCE method S256 in code_challenge_methods_supported; Xid requires it")
    }
    if let supported = metadata.authorizationDetailsTypesSupported,
      let unsupported = AuthorizationDetail.unrequestedTypes(in: options.authorizationDetails, asked: supported).first
    {
      throw XidError(
        .unsupportedByProvider,
        "the provider does not list the authorization detail type \"\(SafeText.short(unsupported, limit: 64))\" in authorization_details_types_supported (RFC 9396 §10)"
      )
    }
    let scopes = try checkedScopes(configuration: configuration, options: options)
    let redirectUri = options.redirectUri ?? configuration.identity.redirectUri
    try ClientIdentity.validateRedirectURI(redirectUri, purpose: "redirect URI")
    let pkce = try PKCE()
    let state = Base64URL.encode(try XidCrypto.randomBytes(count: 32))
    let nonce = Base64URL.encode(try XidCrypto.randomBytes(count: 32))

    var parameters: [(String, String)] = [
      ("response_type", "code"),
      ("client_id", configuration.identity.clientId),
      ("redirect_uri", redirectUri.absoluteString),
      ("scope", scopes.joined(separator: " ")),
      ("state", state),
      ("nonce", nonce),
      ("code_challenge", pkce.challenge),
      ("code_challenge_method", pkce.method),
    ]
    let prompt = options.requestedPrompt, maxAge = options.requestedMaxAge, acrValues = options.requestedACRValues
    if !prompt.isEmpty { parameters.append(("prompt", prompt.joined(separator: " "))) }
    if let loginHint = options.loginHint { parameters.append(("login_hint", loginHint)) }
    if let maxAge { parameters.append(("max_age", String(maxAge.components.seconds))) }
    if !options.uiLocales.isEmpty { parameters.append(("ui_locales", options.uiLocales.joined(separator: " "))) }
    if !acrValues.isEmpty { parameters.append(("acr_values", acrValues.joined(separator: " "))) }
    let requiredACRValues = options.stepUp.flatMap { $0.acrValues.isEmpty ? nil : $0.acrValues }
    if let requiredACRValues { parameters.append(("claims", Self.essentialACRClaims(requiredACRValues))) }
    if !options.authorizationDetails.isEmpty {
      parameters.append(("authorization_details", AuthorizationDetail.parameter(options.authorizationDetails)))
    }
    for resource in configuration.identity.resources { parameters.append(("resource", resource.parameter)) }
    if let dpopKeyThumbprint { parameters.append(("dpop_jkt", dpopKeyThumbprint)) }
    for name in options.additionalParameters.keys.sorted() {
      parameters.append((name, options.additionalParameters[name]!))
    }
    let pending = PendingAuthorization(
      state: state, nonce: nonce, codeVerifier: pkce.verifier, redirectUri: redirectUri, maxAge: maxAge,
      issuer: configuration.identity.issuerIdentifier, clientId: configuration.identity.clientId, scopes: scopes,
      createdAt: now, dpopKeyThumbprint: dpopKeyThumbprint, requiredACRValues: requiredACRValues,
      requiredSubject: options.stepUp == nil ? nil : options.stepUpSubject,
      authorizationDetailTypes: options.authorizationDetails.isEmpty
        ? nil : AuthorizationDetail.types(of: options.authorizationDetails))
    return (parameters, pending)
  }

  /// The `claims` request parameter (OpenID Connect Core §5.5) that asks for an ID token whose `acr`
  /// is one of `values`, as an essential claim (§5.5.1.1).
  static func essentialACRClaims(_ values: [String]) -> String {
    let acr: JSONValue = .object(["essential": .bool(true), "values": .array(values.map { .string($0) })])
    return JSONValue.object(["id_token": .object(["acr": acr])]).serialized(sortedKeys: true)
  }

  /// How long an `authorization_details` parameter may be before its request is pushed whenever the
  /// provider offers it, even when the app asked for a request in the URL: browsers and servers
  /// refuse URLs of a few kilobytes.
  static let longAuthorizationDetails = 1024

  /// Whether the request for `options` should be pushed: always when the provider requires it;
  /// otherwise, when the provider offers it, when asked (`options`, else the configuration) or when
  /// the request has authorization details, unless the app asked for a request in the URL and they
  /// are shorter than ``longAuthorizationDetails``.
  ///
  /// - Throws: ``XidError/Code/unsupportedByProvider`` when the provider requires pushed requests
  ///   but advertises no endpoint for them.
  static func shouldPush(metadata: ProviderMetadata, options: SignInOptions, configuration: XidConfiguration) throws
    -> Bool
  {
    let requested = options.usePushedAuthorization ?? configuration.policy.prefersPushedAuthorization
    guard !options.authorizationDetails.isEmpty, !requested, metadata.pushedAuthorizationRequestEndpoint != nil
    else { return try shouldPush(metadata: metadata, requested: requested) }
    return options.usePushedAuthorization != false
      || AuthorizationDetail.parameter(options.authorizationDetails).utf8.count > longAuthorizationDetails
  }

  /// Whether a request should be pushed: always when the provider requires it, otherwise when asked
  /// and the provider offers it.
  ///
  /// - Throws: ``XidError/Code/unsupportedByProvider`` when the provider requires pushed requests
  ///   but advertises no endpoint for them.
  static func shouldPush(metadata: ProviderMetadata, requested: Bool) throws -> Bool {
    if metadata.requirePushedAuthorizationRequests {
      guard metadata.pushedAuthorizationRequestEndpoint != nil else {
        throw XidError(
          .unsupportedByProvider,
          "the provider requires pushed authorization requests but advertises no pushed_authorization_request_endpoint")
      }
      return true
    }
    return requested && metadata.pushedAuthorizationRequestEndpoint != nil
  }
}
