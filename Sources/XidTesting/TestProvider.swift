import Foundation
import XidCore
import XidLoopback

/// An OpenID provider that runs inside the test process, for Xid's own tests and for the tests of
/// apps built on Xid: discovery, JWKS, the authorization endpoint with a programmable user, pushed
/// authorization requests, the token endpoint (authorization code with PKCE, rotating refresh
/// tokens, device code, token exchange with OpenID Connect Native SSO), UserInfo, revocation, end
/// session, device authorization and a protected resource, plus hostile modes and fault injection to test what a client does when things go wrong.
///
/// ## Starting a provider
///
/// A provider needs no network: ``InMemoryTransport`` hands requests straight to it. Give the
/// transport to the code under test wherever it takes an `HTTPTransport`.
///
/// ```swift
/// import XidTesting
///
/// let provider = try TestProvider()              // issuer https://op.xid.test, client "xid-example"
/// let transport = provider.transport             // an InMemoryTransport
/// let discovery = provider.url(for: .discovery)  // https://op.xid.test/.well-known/openid-configuration
/// ```
///
/// The issuer, the registered clients, the signing algorithm, token lifetimes and optional features
/// are set with ``Configuration``; time is a ``TestClock`` the test moves; the user at the login page
/// is a ``TestUser``.
///
/// ```swift
/// var configuration = TestProvider.Configuration()
/// configuration.signingAlgorithm = .rs256
/// configuration.accessTokenLifetime = 60
/// configuration.clients = [TestClient(id: "app", redirectURIs: [URL(string: "app:/cb")!])]
/// let clock = TestClock()
/// let provider = try TestProvider(configuration: configuration, clock: clock)
/// ```
///
/// ## Playing the browser
///
/// The authorization endpoint asks the ``TestUser``, who approves by default. ``TestBrowser`` does
/// what a user agent does with an authorization URL and returns where the provider redirects it:
///
/// ```swift
/// let callback = try await provider.browser.redirect(from: authorizationURL)
/// // com.example.app:/callback?code=…&state=…&iss=https%3A%2F%2Fop.xid.test
/// ```
///
/// Set what the user does with ``setUser(_:)`` or ``setUserBehavior(_:)``: deny
/// (`access_denied`), or require login or consent (`login_required` and `consent_required` for
/// `prompt=none`). The device flow's user visits ``Endpoint/deviceVerification`` with the browser,
/// or the test decides directly with ``completeDeviceAuthorization(userCode:approved:)``.
///
/// ## What the provider enforces
///
/// - Clients are identified by `client_id` and redirect URIs must match exactly (RFC 9700).
/// - PKCE with `S256` is mandatory; `plain` is refused.
/// - Authorization codes are single use; a second exchange also revokes the tokens the first one
///   produced.
/// - Every refresh returns a new refresh token and retires the old one; presenting a retired one
///   revokes the whole grant (all its access and refresh tokens) and fails with `invalid_grant`.
/// - The device code grant answers `authorization_pending`, `slow_down` (a poll sooner than the
///   interval, which then grows by 5 seconds), `access_denied` and `expired_token`.
/// - ID tokens are signed with the current key and name its `kid`, and carry `iss`, `sub`, `aud`,
///   `azp`, `exp`, `iat`, `auth_time`, `sid`, `nonce` (when sent), `at_hash`, and `ds_hash` when
///   issued with a device secret.
/// - A sign-in with the `device_sso` scope gets a device secret, which another client of the family
///   (``TestClient/allowsTokenExchange``) exchanges with the family's ID token for its own tokens
///   (RFC 8693, Native SSO draft 07 §4); see ``NativeSSOSettings``. Access tokens can be exchanged
///   for narrower ones, or for an ID token.
/// - Authorization responses carry `iss` (RFC 9207).
///
/// ## Making it misbehave
///
/// ``misbehave(_:_:)`` turns on a hostile mode (a ``Misbehavior``) for the next response it applies
/// to, or for all of them; these are the OpenID Foundation's relying-party conformance cases: wrong
/// `iss`, `aud` or `nonce`, missing `sub` or `iat`, no `kid`, `alg: none`, a bad signature, a bad
/// `at_hash`, an expired or future ID token, a wrong or missing `state` or `iss` in the redirect, and
/// more. ``rotateSigningKey(to:keepingPrevious:)`` rotates keys on demand.
///
/// ```swift
/// try await provider.misbehave(.wrongNonce, .once)
/// ```
///
/// ``injectFault(_:at:times:)`` makes the next responses of an endpoint fail at the transport
/// level: a given status and body, a delay, or ``Fault/dropResponse``, where the provider commits
/// the request (a refresh token is rotated) and the response is lost.
///
/// ## Observing it
///
/// ``counters`` tells how many requests each endpoint received, ``endSessionCalls`` what logout
/// requests the client sent; ``signingKeyID`` and ``publishedKeyIDs`` describe the keys.
///
/// ## Serving over loopback
///
/// ``startLoopback(configuration:user:clock:)`` serves the provider on `http://127.0.0.1:PORT`
/// (an ephemeral port), for clients in other processes or behind `URLSession`; a dropped response
/// then closes the connection unanswered. Stop it with ``stopLoopback()``. Any other server can
/// forward requests to ``handle(_:)`` or ``respond(to:)``: the provider routes by path below its
/// issuer and never looks at the host.
public actor TestProvider {
  /// The issuer of a provider created without one: `https://op.xid.test`.
  public static let defaultIssuer = URL(string: "https://op.xid.test")!

  /// The issuer identifier, exactly as it appears in `iss` and in discovery (without a trailing
  /// slash). Endpoints live below it.
  public nonisolated let issuer: URL
  /// The clock the provider reads for every expiry and polling interval.
  public nonisolated let clock: TestClock
  /// The current configuration; change it with ``updateConfiguration(_:)``.
  public internal(set) var configuration: Configuration
  /// The user at the login page; change it with ``setUser(_:)``.
  public internal(set) var user: TestUser
  /// How many requests each endpoint has received.
  public internal(set) var counters = Counters()
  /// The end-session requests received, oldest first.
  public internal(set) var endSessionCalls: [EndSessionCall] = []

  /// The issuer as text, the value of every `iss`.
  nonisolated let issuerIdentifier: String
  var keys: KeyRing
  var store = TokenStore()
  /// The user's sign-in, if they have one; an authorization without one signs the user in.
  var session: UserSession?
  var misbehaviors = MisbehaviorBook()
  var faults: [Endpoint: [Fault]] = [:]
  /// The loopback server serving this provider, when it was started with ``startLoopback(configuration:user:clock:)``.
  var loopbackServer: LoopbackHTTPServer?
  /// The DPoP nonce, the proofs' `jti`s seen, and the proofs received.
  var dpopState = DPoPServerState()

  /// Creates a provider with a fresh signing key.
  ///
  /// - Parameters:
  ///   - issuer: the issuer identifier: `https`, or `http` on a loopback host, with no query or
  ///     fragment. A trailing slash is removed.
  ///   - configuration: clients, keys, lifetimes and features.
  ///   - user: the user at the login page.
  ///   - clock: the time the provider lives in.
  /// - Throws: ``/Xid/XidError`` with ``/Xid/XidError/Code/insecureURL`` for an issuer that is neither `https`
  ///   nor loopback `http`, or ``/Xid/XidError/Code/cryptoFailure`` when no key could be generated.
  public init(
    issuer: URL = TestProvider.defaultIssuer, configuration: Configuration = Configuration(),
    user: TestUser = .alice, clock: TestClock = TestClock()
  ) throws {
    try issuer.requireSecure(for: "test provider's issuer")
    precondition(
      issuer.query == nil && issuer.fragment == nil, "an issuer has no query or fragment (OpenID Connect Discovery §3)")
    precondition(
      Set(configuration.clients.map(\.id)).count == configuration.clients.count, "client IDs must be unique")
    var identifier = issuer.absoluteString
    while identifier.hasSuffix("/") { identifier.removeLast() }
    self.issuerIdentifier = identifier
    self.issuer = URL(string: identifier)!
    self.clock = clock
    self.configuration = configuration
    self.user = user
    self.keys = try KeyRing(algorithm: configuration.signingAlgorithm)
  }

  /// The URL of `endpoint`: the issuer followed by the endpoint's path.
  /// (``Endpoint/resourceMetadata`` is below the host instead, at the path RFC 9728 §3.1 builds from
  /// ``Endpoint/resource``'s URL.)
  public nonisolated func url(for endpoint: Endpoint) -> URL {
    if endpoint == .resourceMetadata, let url = try? ProtectedResourceMetadata.metadataURL(for: url(for: .resource)) {
      return url
    }
    return URL(string: issuerIdentifier + endpoint.path)!
  }

  /// A transport that hands requests to this provider directly, with no network.
  public nonisolated var transport: InMemoryTransport { InMemoryTransport(provider: self) }

  /// A user agent that opens URLs on this provider through ``transport``.
  public nonisolated var browser: TestBrowser { TestBrowser(transport: transport) }
}
