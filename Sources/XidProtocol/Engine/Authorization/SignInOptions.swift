import Foundation

/// How one sign-in should go: the optional parameters of its authorization request (OpenID Connect
/// Core 1.0 §3.1.2.1), and the user agent that shows the provider's page.
///
/// ```swift
/// var options = SignInOptions()
/// options.prompt = ["login"]
/// options.maxAge = .seconds(300)
/// try await Xid.shared.signIn(options: options)
/// ```
public struct SignInOptions: Sendable {
  /// Scopes to request instead of the configuration's; `openid` is added in any case.
  public var scopes: [String]?
  /// `prompt`: for example `["login"]`, `["consent"]`, `["select_account"]` or `["none"]`.
  public var prompt: [String]
  /// `login_hint`: the user's identifier, when the app knows it.
  public var loginHint: String?
  /// `max_age`: the longest time since the user last authenticated at the provider, sent in whole
  /// seconds. The ID token's `auth_time` is then required and checked.
  public var maxAge: Duration?
  /// `ui_locales`: preferred languages for the provider's pages, as BCP 47 tags.
  public var uiLocales: [String]
  /// `acr_values`: requested authentication context classes, in order of preference.
  public var acrValues: [String]
  /// Other parameters, sent as given. They cannot replace the parameters Xid sets (`client_id`,
  /// `redirect_uri`, `response_type`, `scope`, `state`, `nonce`, PKCE, …) or the typed options above.
  public var additionalParameters: [String: String]
  /// A redirect URI for this request instead of the configuration's: for example a loopback URI with
  /// the port the app's listener got (RFC 8252 §7.3). User agents set it themselves.
  public var redirectUri: URL?
  /// Whether to push the request (RFC 9126) if the provider offers it; `nil` follows the
  /// configuration. Requests are pushed whenever the provider requires it.
  public var usePushedAuthorization: Bool?
  /// The user agent for this sign-in instead of the configuration's.
  public var userAgent: (any AuthorizationUserAgent)?
  /// A step-up of the signed-in user (RFC 9470): what a resource server asked for in a
  /// ``XidError/Code/stepUpRequired`` error. It replaces ``acrValues`` and ``maxAge``: its
  /// `acr_values` are sent and asked for as an essential `acr` claim (OpenID Connect Core §5.5.1.1),
  /// and the new ID token's `acr` must be one of them; a `max_age` of zero (or a requirement with
  /// neither) also sends `prompt=login`. The new ID token must be about the session's user.
  public var stepUp: StepUpRequirement?
  /// The metadata of the protected resource the sign-in is for (RFC 9728): its
  /// `scopes_supported` are requested when ``scopes`` is `nil`, and the request is refused before it
  /// is sent when the resource does not accept this configuration's tokens
  /// (``ProtectedResourceMetadata/check(for:)``).
  public var resourceMetadata: ProtectedResourceMetadata?
  /// `authorization_details` (RFC 9396): what exactly the sign-in asks the user to authorize, such as
  /// one payment. Sent in the authorization request, pushed (RFC 9126) whenever the provider offers
  /// it unless ``usePushedAuthorization`` is `false` and they are short. The granted details come
  /// back with the tokens and stay with the session (``XidSession/authorizationDetails``); details
  /// of a type not asked for are refused.
  public var authorizationDetails: [AuthorizationDetail] = []
  /// The `sub` the ID token of a step-up must have: the session's, set by the session when it starts
  /// the step-up.
  package var stepUpSubject: String?

  /// Creates options; every parameter is optional.
  public init(
    scopes: [String]? = nil, prompt: [String] = [], loginHint: String? = nil, maxAge: Duration? = nil,
    uiLocales: [String] = [], acrValues: [String] = [], additionalParameters: [String: String] = [:],
    redirectUri: URL? = nil, usePushedAuthorization: Bool? = nil, userAgent: (any AuthorizationUserAgent)? = nil
  ) {
    self.scopes = scopes
    self.prompt = prompt
    self.loginHint = loginHint
    self.maxAge = maxAge
    self.uiLocales = uiLocales
    self.acrValues = acrValues
    self.additionalParameters = additionalParameters
    self.redirectUri = redirectUri
    self.usePushedAuthorization = usePushedAuthorization
    self.userAgent = userAgent
  }

  /// Parameters that ``additionalParameters`` may not set: the security parameters Xid controls, the
  /// ones that would change the response's shape, and the typed options.
  public static let reservedParameters: Set<String> = [
    "response_type", "client_id", "redirect_uri", "scope", "state", "nonce", "code_challenge",
    "code_challenge_method", "request", "request_uri", "response_mode", "client_secret", "code_verifier",
    "client_assertion", "client_assertion_type", "prompt", "login_hint", "max_age", "ui_locales", "acr_values",
    "dpop_jkt", "authorization_details", "resource",
  ]
}

extension SignInOptions {
  /// Options for a step-up of the signed-in user (see ``stepUp``), as a resource server asked for it.
  ///
  /// ```swift
  /// catch let error as XidError where error.code == .stepUpRequired {
  ///   try await Xid.shared.signIn(options: SignInOptions(stepUp: error.stepUp!))
  /// }
  /// ```
  public init(stepUp: StepUpRequirement, userAgent: (any AuthorizationUserAgent)? = nil) {
    self.init(userAgent: userAgent)
    self.stepUp = stepUp
  }

  /// Options for a sign-in to use the protected resource `metadata` describes (see
  /// ``resourceMetadata``).
  public init(resourceMetadata metadata: ProtectedResourceMetadata, userAgent: (any AuthorizationUserAgent)? = nil) {
    self.init(userAgent: userAgent)
    self.resourceMetadata = metadata
  }

  /// The `acr_values` to send: a step-up's, else ``acrValues``.
  var requestedACRValues: [String] { stepUp?.acrValues ?? acrValues }

  /// The `max_age` to send: a step-up's (zero when it asks for neither an `acr` nor an age), else
  /// ``maxAge``.
  var requestedMaxAge: Duration? {
    guard let stepUp else { return maxAge }
    return stepUp.maxAge ?? (stepUp.acrValues.isEmpty ? .zero : nil)
  }

  /// The `prompt` values to send: a step-up that asks for an authentication now adds `login`.
  var requestedPrompt: [String] {
    guard stepUp != nil, requestedMaxAge == .zero, !prompt.contains("login") else { return prompt }
    return prompt + ["login"]
  }
}
