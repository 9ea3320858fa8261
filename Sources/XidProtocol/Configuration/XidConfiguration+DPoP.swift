extension XidConfiguration {
  /// Checks scopes about to be requested: `offline_access` is accepted exactly when ``usesDPoP`` is
  /// on, since a long-lived session is only safe when a stolen token is useless without this device's
  /// key. Each element is split at whitespace, so `"openid offline_access"` is checked too.
  ///
  /// ``validate()`` calls it on the identity's scopes. ``OpenIDClient`` checks the final `scope`
  /// of every request it sends the same way (authorization, pushed, device authorization and refresh
  /// requests), before the request, whatever the scopes came from.
  ///
  /// - Throws: ``XidError/Code/invalidConfiguration`` for `offline_access` without DPoP.
  public func checkScopes(_ scopes: [String]) throws {
    try checkRequestScope(
      scopes.joined(separator: " "), of: "XidConfiguration.identity.scopes", from: "XidConfiguration.identity.scopes")
  }

  /// Checks the `scope` parameter a request is about to send, exactly as it will be sent, split at
  /// whitespace: `offline_access` only with ``usesDPoP`` on.
  ///
  /// - Parameters:
  ///   - scope: the parameter's value.
  ///   - request: what asks for it, for the message ("the authorization request").
  ///   - source: where its scopes came from, for the message: what to change.
  /// - Throws: ``XidError/Code/invalidConfiguration`` for `offline_access` without DPoP.
  package func checkRequestScope(_ scope: String, of request: String, from source: String) throws {
    guard !usesDPoP, scope.split(whereSeparator: \.isWhitespace).contains("offline_access") else { return }
    throw XidError(
      .invalidConfiguration,
      "\(request) asks for the scope offline_access, which needs DPoP-bound tokens: turn on XidConfiguration.usesDPoP (and make sure your API servers accept Authorization: DPoP), or remove offline_access from \(source); a refresh token the provider issues anyway is used"
    )
  }
}
