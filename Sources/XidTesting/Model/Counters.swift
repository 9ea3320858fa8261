import XidCore

extension TestProvider {
  /// How many requests each endpoint has received since the provider started (or since
  /// ``TestProvider/resetCounters()``).
  ///
  /// A request counts when it reaches the provider, including one answered by an injected
  /// ``Fault/respond(status:headers:body:)`` or whose response is dropped; a request refused with
  /// ``Fault/failConnection`` never arrived and does not count.
  public struct Counters: Sendable, Hashable {
    /// Discovery document fetches.
    public internal(set) var discoveryFetches = 0
    /// JWKS fetches.
    public internal(set) var jwksFetches = 0
    /// Authorization endpoint requests.
    public internal(set) var authorizationRequests = 0
    /// Pushed authorization requests.
    public internal(set) var pushedAuthorizationRequests = 0
    /// Token endpoint requests, of every grant type.
    public internal(set) var tokenRequests = 0
    /// Token requests with `grant_type=authorization_code`.
    public internal(set) var codeExchanges = 0
    /// Token requests with `grant_type=refresh_token`.
    public internal(set) var refreshes = 0
    /// Token requests with the device code grant type.
    public internal(set) var deviceCodePolls = 0
    /// Token requests with the token exchange grant type (RFC 8693), Native SSO's included.
    public internal(set) var tokenExchanges = 0
    /// UserInfo requests.
    public internal(set) var userInfoRequests = 0
    /// Revocation requests.
    public internal(set) var revocations = 0
    /// End-session (logout) requests.
    public internal(set) var endSessionRequests = 0
    /// Device authorization requests.
    public internal(set) var deviceAuthorizations = 0
    /// Device verification page visits.
    public internal(set) var deviceVerifications = 0
    /// Protected resource requests.
    public internal(set) var resourceRequests = 0
    /// Requests answered (or not) by an injected ``Fault``, except ``Fault/failConnection``, which
    /// never arrive.
    public internal(set) var faultsApplied = 0
    /// Requests an injected ``Fault`` made fail: answered in the provider's place, lost, timed out,
    /// stalled, cut short or padded. A ``Fault/delay(_:)`` is not counted: the request is handled as
    /// usual, only later.
    public internal(set) var requestsFailedByFault = 0
    /// DPoP proofs the provider accepted.
    public internal(set) var dpopProofsAccepted = 0
    /// Answers that asked for a DPoP nonce (`use_dpop_nonce`).
    public internal(set) var dpopNonceChallenges = 0
    /// DPoP proofs refused (`invalid_dpop_proof`), and requests refused for lacking one.
    public internal(set) var dpopProofsRefused = 0

    /// Fetches of the protected resource's metadata (RFC 9728).
    public internal(set) var resourceMetadataFetches = 0

    init() {}

    /// Counts one request to `endpoint`; `grantType` is the token request's `grant_type`.
    mutating func count(_ endpoint: Endpoint, grantType: String?) {
      switch endpoint {
      case .discovery: discoveryFetches += 1
      case .jwks: jwksFetches += 1
      case .authorization: authorizationRequests += 1
      case .pushedAuthorization: pushedAuthorizationRequests += 1
      case .token:
        tokenRequests += 1
        switch grantType {
        case GrantType.authorizationCode: codeExchanges += 1
        case GrantType.refreshToken: refreshes += 1
        case GrantType.deviceCode: deviceCodePolls += 1
        case GrantType.tokenExchange: tokenExchanges += 1
        default: break
        }
      case .userInfo: userInfoRequests += 1
      case .revocation: revocations += 1
      case .endSession: endSessionRequests += 1
      case .deviceAuthorization: deviceAuthorizations += 1
      case .deviceVerification: deviceVerifications += 1
      case .resource: resourceRequests += 1
      case .resourceMetadata: resourceMetadataFetches += 1
      }
    }
  }
}

/// The `grant_type` values the token endpoint serves.
enum GrantType {
  static let authorizationCode = "authorization_code"
  static let refreshToken = "refresh_token"
  static let deviceCode = "urn:ietf:params:oauth:grant-type:device_code"
  static let tokenExchange = TokenExchangeRequest.grantType
}
