import Foundation

/// Which kind of token a revocation request carries (RFC 7009 §2.1 `token_type_hint`).
public enum TokenTypeHint: String, Sendable, Hashable, Codable {
  /// An access token.
  case accessToken = "access_token"
  /// A refresh token; revoking it usually revokes the grant's access tokens too.
  case refreshToken = "refresh_token"
}

/// Requests to the revocation endpoint (RFC 7009).
enum TokenRevocation {
  static let name = "revocation endpoint"

  /// Asks the provider to revoke `token`, authenticating the client as for token requests.
  ///
  /// A 200 answer means the token is revoked or was invalid anyway (RFC 7009 §2.2). With `dpop`, the
  /// request carries a proof of the key a bound token is tied to, for providers that ask for one.
  ///
  /// - Throws: ``XidError/Code/unsupportedByProvider`` without a `revocation_endpoint`,
  ///   ``XidError/Code/revocationFailed`` (with status and OAuth error) on refusal, and as
  ///   ``ProtocolHTTP/send(_:endpoint:)``.
  static func revoke(
    _ token: String, hint: TokenTypeHint?, configuration: XidConfiguration, metadata: ProviderMetadata,
    http: ProtocolHTTP, dpop: DPoPSigner? = nil
  ) async throws {
    guard let endpoint = metadata.revocationEndpoint else {
      throw XidError(.unsupportedByProvider, "the provider advertises no revocation_endpoint")
    }
    var parameters = [("token", token)]
    if let hint { parameters.append(("token_type_hint", hint.rawValue)) }
    _ = try await http.postClientForm(
      parameters, to: endpoint, endpoint: name, configuration: configuration, refusal: .revocationFailed,
      secrets: [token], dpop: dpop)
  }

  /// Revokes each of `tokens` in order, and tells what became of them: ``RevocationOutcome/revoked``
  /// when the provider revoked each, ``RevocationOutcome/notRevocable(_:)`` without a
  /// `revocation_endpoint`, else the first failure (the tokens after it are still tried).
  static func revokeAll(
    _ tokens: [(String, TokenTypeHint)], configuration: XidConfiguration, metadata: ProviderMetadata,
    http: ProtocolHTTP, dpop: DPoPSigner? = nil
  ) async -> RevocationOutcome {
    guard metadata.revocationEndpoint != nil else { return .notRevocable(.noRevocationEndpoint) }
    var outcome = RevocationOutcome.revoked
    for (token, hint) in tokens {
      do {
        try await revoke(token, hint: hint, configuration: configuration, metadata: metadata, http: http, dpop: dpop)
      } catch {
        guard outcome == .revoked else { continue }
        outcome = .failed(error as? XidError ?? XidError(.cancelled, "the revocation was cancelled"))
      }
    }
    return outcome
  }
}
