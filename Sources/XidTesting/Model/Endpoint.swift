extension TestProvider {
  /// The endpoints a ``TestProvider`` serves, each at a fixed path below its issuer.
  public enum Endpoint: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// `GET /.well-known/openid-configuration`: OpenID Connect Discovery.
    case discovery
    /// `GET /jwks`: the public signing keys.
    case jwks
    /// `GET /authorize`: the authorization endpoint, where the ``TestUser`` decides.
    case authorization
    /// `POST /par`: pushed authorization requests (RFC 9126).
    case pushedAuthorization
    /// `POST /token`: the authorization code, refresh token and device code grants.
    case token
    /// `GET /userinfo` (or `POST`): the user's claims, for a Bearer access token.
    case userInfo
    /// `POST /revoke`: token revocation (RFC 7009).
    case revocation
    /// `GET /logout` (or `POST`): RP-initiated logout.
    case endSession
    /// `POST /device_authorization`: the device authorization grant (RFC 8628).
    case deviceAuthorization
    /// `GET /device`: the verification page a device user visits with the `user_code`.
    case deviceVerification
    /// `GET /resource`: a protected resource that requires a valid Bearer access token.
    case resource
    /// `GET /.well-known/oauth-protected-resource/resource`: the metadata of ``resource`` (RFC 9728),
    /// at the path RFC 9728 §3.1 builds from its identifier (for an issuer without a path).
    case resourceMetadata

    /// The path below the issuer, starting with `/`.
    public var path: String {
      switch self {
      case .discovery: "/.well-known/openid-configuration"
      case .jwks: "/jwks"
      case .authorization: "/authorize"
      case .pushedAuthorization: "/par"
      case .token: "/token"
      case .userInfo: "/userinfo"
      case .revocation: "/revoke"
      case .endSession: "/logout"
      case .deviceAuthorization: "/device_authorization"
      case .deviceVerification: "/device"
      case .resource: "/resource"
      case .resourceMetadata: "/.well-known/oauth-protected-resource/resource"
      }
    }

    /// The HTTP methods the endpoint accepts.
    var methods: Set<String> {
      switch self {
      case .discovery, .jwks, .deviceVerification, .resource, .resourceMetadata: ["GET"]
      case .authorization, .userInfo, .endSession: ["GET", "POST"]
      case .pushedAuthorization, .token, .revocation, .deviceAuthorization: ["POST"]
      }
    }

    /// The endpoint's name, for example `token`.
    public var description: String { rawValue }
  }
}
