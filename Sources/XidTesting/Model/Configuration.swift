import Foundation
import XidCore

extension TestProvider {
  /// How a ``TestProvider`` behaves when it behaves well: its clients, keys, token lifetimes and
  /// optional features. Every property has a default; change the ones a test cares about.
  ///
  /// ```swift
  /// var configuration = TestProvider.Configuration()
  /// configuration.signingAlgorithm = .rs256
  /// configuration.accessTokenLifetime = 30
  /// let provider = try TestProvider(configuration: configuration)
  /// ```
  public struct Configuration: Sendable, Hashable {
    /// Whether the provider offers pushed authorization requests (RFC 9126).
    public enum PushedAuthorization: Sendable, Hashable {
      /// No PAR endpoint is advertised or served.
      case unsupported
      /// The PAR endpoint is served; plain authorization requests are accepted too. The default.
      case supported
      /// The PAR endpoint is served and the authorization endpoint accepts only `request_uri`
      /// (`require_pushed_authorization_requests: true`).
      case required
    }

    /// The registered clients.
    public var clients: [TestClient] = [.example]
    /// The algorithm of the signing key made at start and at each rotation: ES256 (the default),
    /// RS256, PS256 or EdDSA.
    public var signingAlgorithm: JWSAlgorithm = .es256
    /// Whether a rotated-out key stays in the JWKS (the usual overlap) or disappears from it at once.
    public var keepsPreviousKeysOnRotation = true
    /// How long an access token is valid (sent as `expires_in`, in whole seconds).
    public var accessTokenLifetime: Duration = .seconds(300)
    /// How long an ID token is valid (its `exp` minus its `iat`).
    public var idTokenLifetime: Duration = .seconds(300)
    /// How long a refresh token is valid; `nil` for no expiry.
    public var refreshTokenLifetime: Duration? = nil
    /// How long an authorization code can be redeemed.
    public var authorizationCodeLifetime: Duration = .seconds(60)
    /// How long a pushed authorization request's `request_uri` can be used.
    public var pushedRequestLifetime: Duration = .seconds(60)
    /// How long a device code can be polled before `expired_token`.
    public var deviceCodeLifetime: Duration = .seconds(600)
    /// The minimum time between two device code polls, in whole seconds; a faster poll gets
    /// `slow_down` and adds 5 seconds to the interval (RFC 8628 §3.5).
    public var devicePollingInterval: Duration = .seconds(5)
    /// Whether PAR is offered or required.
    public var pushedAuthorization: PushedAuthorization = .supported
    /// Whether the provider offers token revocation (RFC 7009). When `false`, discovery advertises no
    /// `revocation_endpoint` and its path is not served (HTTP 404), as with providers that have none
    /// (LemonLDAP::NG, for one).
    public var supportsRevocation = true
    /// Whether token responses carry a refresh token.
    public var issuesRefreshTokens = true
    /// Whether each refresh returns a new refresh token and retires the old one (with reuse
    /// detection). When `false`, refresh responses carry no refresh token and the old one stays valid.
    public var rotatesRefreshTokens = true
    /// Whether refresh responses carry a new ID token when the grant has the `openid` scope.
    public var issuesIDTokenOnRefresh = true
    /// Whether ID tokens from the authorization code grant carry `c_hash`.
    public var includesCodeHash = false
    /// Whether ID tokens carry the user's claims released by scope, besides the UserInfo response.
    public var includesScopeClaimsInIDToken = false
    /// How the provider checks DPoP proofs (RFC 9449) and binds tokens to their keys.
    public var dpop = DPoPSettings()
    /// How the provider serves OpenID Connect Native SSO for Mobile Apps (device secrets, and the
    /// exchange of a family's ID token for a sibling app's tokens).
    public var nativeSSO = NativeSSOSettings()
    /// The authentication context classes the provider can satisfy, weakest first (its
    /// `acr_values_supported`); empty for a provider that issues no `acr`. A sign-in gets the first
    /// one unless it asks for another with `acr_values` or an essential `acr` claim (OpenID Connect
    /// Core §5.5.1.1); a class the user's session does not have makes the user sign in again (a
    /// step-up), and an essential one the provider cannot satisfy fails with
    /// `unmet_authentication_requirements`.
    public var acrValuesSupported: [String] = []
    /// The `scopes_supported` of the protected resource's metadata (RFC 9728).
    public var resourceScopesSupported: [String] = ["openid", "profile"]
    /// Whether the protected resource's metadata says it accepts only DPoP-bound access tokens
    /// (`dpop_bound_access_tokens_required`). The resource itself accepts both kinds either way.
    public var resourceRequiresDPoP = false
    /// The `authorization_details` types the provider accepts (RFC 9396, its
    /// `authorization_details_types_supported`): a request with another type fails with
    /// `invalid_authorization_details`. Granted details are returned as asked for.
    public var authorizationDetailTypes: [String] = ["payment_initiation", "account_information"]
    /// The resources the provider issues tokens for (RFC 8707): a `resource` that is not one of them
    /// fails with `invalid_target`. An access token issued for one (a refresh with `resource`) has
    /// it as its only audience, which ``Endpoint/resource`` reports.
    public var resources: [String] = []

    /// The default configuration: the ``TestClient/example`` client, ES256, short lifetimes, PAR
    /// supported, rotating refresh tokens.
    public init() {}

    /// The registered client with `clientId`.
    func client(_ clientId: String) -> TestClient? { clients.first { $0.id == clientId } }
  }
}
