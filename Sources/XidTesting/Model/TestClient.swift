import Foundation
import XidCore

/// A client registered with a ``TestProvider``: its identifier, its optional secret and the exact
/// redirect URIs it may use.
///
/// Redirect URIs are compared as strings, exactly, as OAuth 2.0 Security BCP (RFC 9700 §4.1.3)
/// requires; the one exception is RFC 8252 §7.3: for a registered `http` URI on a loopback IP
/// literal (`127.0.0.1` or `[::1]`) without a port, any port is accepted at request time.
public struct TestClient: Sendable, Hashable {
  /// The `client_id`.
  public var id: String
  /// The client secret of a confidential client (`client_secret_basic` or `client_secret_post`);
  /// `nil` for a public client, which authenticates with its `client_id` alone.
  public var secret: String?
  /// The redirect URIs the client may send to the authorization endpoint.
  public var redirectURIs: [URL]
  /// The URIs the end-session endpoint may send the user back to after logout.
  public var postLogoutRedirectURIs: [URL]
  /// Whether every token request of the client must carry a DPoP proof (its tokens are always
  /// DPoP-bound), as glewlwyd's `dpop_bound_access_tokens` client property does.
  public var requiresDPoP: Bool
  /// Whether the client may use the token exchange grant (RFC 8693) and share sign-ins with the other
  /// clients that may: a member of an app family in OpenID Connect Native SSO, whose ID tokens
  /// siblings may exchange and which may exchange theirs (draft 07 §4.3 lets the provider keep such a
  /// list). Off by default: the provider answers `unauthorized_client`.
  public var allowsTokenExchange: Bool
  /// The public key of a client that authenticates with `private_key_jwt` (RFC 7523): its assertions
  /// must verify with it, name the client as `iss` and `sub` and the issuer as `aud`, be unexpired and
  /// carry a `jti` not seen before. `nil` for a client without one.
  public var assertionKey: JWK? = nil

  /// Registers a client.
  public init(
    id: String, secret: String? = nil, redirectURIs: [URL], postLogoutRedirectURIs: [URL] = [],
    requiresDPoP: Bool = false, allowsTokenExchange: Bool = false
  ) {
    self.id = id
    self.secret = secret
    self.redirectURIs = redirectURIs
    self.postLogoutRedirectURIs = postLogoutRedirectURIs
    self.requiresDPoP = requiresDPoP
    self.allowsTokenExchange = allowsTokenExchange
  }

  /// A public native-app client, `xid-example`, with the redirect URIs `com.example.app:/callback`
  /// and `http://127.0.0.1/callback` (any port) and the post-logout URI `com.example.app:/signed-out`.
  public static let example = TestClient(
    id: "xid-example",
    redirectURIs: [URL(string: "com.example.app:/callback")!, URL(string: "http://127.0.0.1/callback")!],
    postLogoutRedirectURIs: [URL(string: "com.example.app:/signed-out")!])

  /// Whether `uri`, as the client sent it, matches one of its registered redirect URIs.
  func allowsRedirect(to uri: String) -> Bool {
    redirectURIs.contains { Self.matches(registered: $0, requested: uri) }
  }

  /// Whether `uri` matches one of its registered post-logout redirect URIs.
  func allowsPostLogoutRedirect(to uri: String) -> Bool {
    postLogoutRedirectURIs.contains { Self.matches(registered: $0, requested: uri) }
  }

  private static func matches(registered: URL, requested: String) -> Bool {
    if registered.absoluteString == requested { return true }
    // RFC 8252 §7.3: loopback IP redirect URIs registered without a port accept any port.
    guard registered.scheme == "http", registered.port == nil, registered.isLoopback,
      registered.host != "localhost",
      var components = URLComponents(string: requested), components.scheme == "http", components.port != nil
    else { return false }
    components.port = nil
    return components.string == registered.absoluteString
  }
}
