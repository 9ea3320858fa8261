import Foundation

/// The logout URL of OpenID Connect RP-Initiated Logout 1.0 §2: the provider's `end_session_endpoint`
/// with the parameters that identify the session and where to return.
public enum EndSessionRequest {
  /// Builds the URL to open in the browser to end the user's session at the provider.
  ///
  /// - Parameters:
  ///   - metadata: the provider's metadata.
  ///   - clientId: sent as `client_id`, so the provider knows the client even without a hint.
  ///   - idTokenHint: the ID token of the session, sent as `id_token_hint` (recommended).
  ///   - postLogoutRedirectUri: where to return after logout; it must be registered at the provider.
  ///   - state: a value the provider passes back to `postLogoutRedirectUri`.
  ///   - logoutHint: `logout_hint`, identifying the user to log out.
  ///   - uiLocales: `ui_locales`, preferred languages for the logout pages.
  /// - Throws: ``XidError/Code/unsupportedByProvider`` without an `end_session_endpoint`, and
  ///   ``XidError/Code/invalidConfiguration`` for a post-logout redirect URI that is not allowed.
  public static func url(
    metadata: ProviderMetadata, clientId: String, idTokenHint: String?, postLogoutRedirectUri: URL?,
    state: String? = nil, logoutHint: String? = nil, uiLocales: [String] = []
  ) throws -> URL {
    guard let endpoint = metadata.endSessionEndpoint else {
      throw XidError(.unsupportedByProvider, "the provider advertises no end_session_endpoint")
    }
    var parameters: [(String, String)] = []
    if let idTokenHint { parameters.append(("id_token_hint", idTokenHint)) }
    parameters.append(("client_id", clientId))
    if let postLogoutRedirectUri {
      try ClientIdentity.validateRedirectURI(postLogoutRedirectUri, purpose: "post-logout redirect URI")
      parameters.append(("post_logout_redirect_uri", postLogoutRedirectUri.absoluteString))
    }
    if let state { parameters.append(("state", state)) }
    if let logoutHint { parameters.append(("logout_hint", logoutHint)) }
    if !uiLocales.isEmpty { parameters.append(("ui_locales", uiLocales.joined(separator: " "))) }
    return endpoint.appendingQuery(parameters)
  }
}
