import Foundation
import Testing
import XidTestSupport
import XidTesting

@testable import Xid
@testable import XidDevice
@testable import XidProtocol
@testable import XidSession

/// The platform-independent part of `WebAuthenticationSessionUserAgent`: callback derivation, error
/// mapping and the sign-in and end-session flows, with a stand-in for `ASWebAuthenticationSession`.
struct WebAuthenticationFlowTests {
  private static let sessionErrorDomain = "com.apple.AuthenticationServices.WebAuthenticationSession"

  // MARK: - Callback from the redirect URI

  @Test(arguments: [
    ("com.example.app:/oauth/callback", "com.example.app"),
    ("com.example.app://oauth/callback", "com.example.app"),
    ("Com.Example.App:/callback", "com.example.app"),
    ("myapp:/cb", "myapp"),
  ])
  func aPrivateUseSchemeRedirectIsCaughtByItsScheme(redirect: String, scheme: String) throws {
    for https in [false, true] {
      let callback = try WebAuthenticationCallback.forSignIn(
        redirectUri: URL(string: redirect)!, httpsCallbackAvailable: https)
      #expect(callback == .customScheme(scheme))
      #expect(callback.scheme == scheme)
    }
  }

  @Test func aClaimedHTTPSRedirectIsCaughtByHostAndPathWhereTheSystemCan() throws {
    let callback = try WebAuthenticationCallback.forSignIn(
      redirectUri: URL(string: "https://App.Example.com/oauth/callback?x=1")!, httpsCallbackAvailable: true)
    #expect(callback == .https(host: "app.example.com", path: "/oauth/callback"))
    #expect(callback.scheme == nil)
    let root = try WebAuthenticationCallback.forSignIn(
      redirectUri: URL(string: "https://app.example.com:443")!, httpsCallbackAvailable: true)
    #expect(root == .https(host: "app.example.com", path: "/"))
  }

  @Test func aClaimedHTTPSRedirectBeforeIOS17_4IsAConfigurationError() {
    let error = expectXidError(.invalidConfiguration) {
      try WebAuthenticationCallback.forSignIn(
        redirectUri: URL(string: "https://app.example.com/cb")!, httpsCallbackAvailable: false)
    }
    #expect(error?.reason.contains("17.4") == true)
    #expect(error?.reason.contains("private-use scheme") == true)
  }

  @Test func aLoopbackRedirectPointsToTheLoopbackUserAgent() {
    let error = expectXidError(.invalidConfiguration) {
      try WebAuthenticationCallback.forSignIn(
        redirectUri: URL(string: "http://127.0.0.1:8080/cb")!, httpsCallbackAvailable: true)
    }
    #expect(error?.reason.contains("LoopbackUserAgent") == true)
  }

  @Test func anHTTPSRedirectWithAPortOrNoHostIsRefused() {
    expectXidError(.invalidConfiguration) {
      try WebAuthenticationCallback.forSignIn(
        redirectUri: URL(string: "https://app.example.com:8443/cb")!, httpsCallbackAvailable: true)
    }
    expectXidError(.invalidConfiguration) {
      try WebAuthenticationCallback.forSignIn(redirectUri: URL(string: "https:/cb")!, httpsCallbackAvailable: true)
    }
  }

  @Test func theEndSessionPageEndsAtItsPostLogoutRedirectURI() {
    func callback(_ url: String, https: Bool = true) -> WebAuthenticationCallback? {
      WebAuthenticationCallback.forEndSession(URL(string: url)!, httpsCallbackAvailable: https)
    }
    let base = "https://op.example.com/logout?id_token_hint=x&post_logout_redirect_uri="
    #expect(callback(base + "com.example.app%3A%2Fsigned-out") == .customScheme("com.example.app"))
    #expect(
      callback(base + "https%3A%2F%2Fapp.example.com%2Fbye") == .https(host: "app.example.com", path: "/bye"))
    // Nothing the session can catch: it ends when the user closes the page.
    #expect(callback(base + "https%3A%2F%2Fapp.example.com%2Fbye", https: false) == nil)
    #expect(callback(base + "http%3A%2F%2F127.0.0.1%2Fbye") == nil)
    #expect(callback("https://op.example.com/logout?id_token_hint=x") == nil)
  }

  // MARK: - Errors

  @Test func theSessionsErrorsBecomeTypedXidErrors() {
    func failure(_ code: Int, domain: String = Self.sessionErrorDomain, byTask: Bool = false)
      -> WebAuthenticationFailure
    {
      WebAuthenticationFailure(domain: domain, code: code, sessionErrorDomain: Self.sessionErrorDomain, byTask: byTask)
    }
    #expect(failure(1) == .canceledLogin(byTask: false))
    #expect(failure(1).error.code == .userCancelled)
    #expect(failure(1, byTask: true).error.code == .cancelled)
    #expect(failure(2) == .presentationContextNotProvided)
    #expect(failure(3) == .presentationContextInvalid)
    #expect(failure(2).error.code == .presentationFailed)
    #expect(failure(3).error.reason.contains("presentationAnchor"))
    #expect(failure(9) == .other(domain: Self.sessionErrorDomain, code: 9))
    #expect(failure(1, domain: NSURLErrorDomain) == .other(domain: NSURLErrorDomain, code: 1))
    #expect(failure(-1009, domain: NSURLErrorDomain).error.code == .presentationFailed)
    #expect(failure(-1009, domain: NSURLErrorDomain).error.reason.contains("-1009"))
    #expect(WebAuthenticationFailure.alreadyPresenting.error.code == .signInInProgress)
    #expect(WebAuthenticationFailure.noWindow.error.code == .presentationFailed)
    #expect(WebAuthenticationFailure.notStarted.error.code == .presentationFailed)
    #expect(WebAuthenticationFailure.noCallbackURL.error.code == .presentationFailed)
  }

  // MARK: - Flows

  @Test func aSignInThroughTheFlowCompletesWithTheProvidersRedirect() async throws {
    let provider = try TestProvider()
    let seen = LockedValue<[WebAuthenticationCallback?]>([])
    let browser = provider.browser
    let flow = WebAuthenticationFlow(httpsCallbackAvailable: false) { url, callback in
      seen.update { $0.append(callback) }
      do { return .success(try await browser.redirect(from: url)) } catch { return .failure(.noCallbackURL) }
    }
    var configuration = SessionHarness.configuration(provider, logger: DiscardingLogger())
    configuration.parts.userAgent = FlowUserAgent(flow: flow)
    let xid = try Xid(configuration: configuration.storing(in: InMemoryTokenStorage()))
    let session = try await xid.signIn()
    #expect(session.subject == TestUser.alice.subject)
    #expect(seen.get() == [.customScheme("com.example.app")])

    try await xid.signOut(callEndSession: true)
    #expect(seen.get().last == .customScheme("com.example.app"))
  }

  @Test func closingTheSignInPageCancelsAndLeavesNoPendingSignIn() async throws {
    let provider = try TestProvider()
    let storage = InMemoryTokenStorage()
    let flow = WebAuthenticationFlow(httpsCallbackAvailable: true) { _, _ in .failure(.canceledLogin(byTask: false)) }
    var configuration = SessionHarness.configuration(provider, logger: DiscardingLogger())
    configuration.parts.userAgent = FlowUserAgent(flow: flow)
    let xid = try Xid(configuration: configuration.storing(in: storage))
    await expectXidError(.userCancelled) { try await xid.signIn() }
    #expect(try storage.keys(withPrefix: "xid.pending.").isEmpty)
    #expect(try await xid.getSession() == nil)
  }

  @Test func theEndSessionPageIsDoneWhenClosedButReportsWhenItCannotBeShown() async throws {
    let url = URL(string: "https://op.example.com/logout")!
    let closed = WebAuthenticationFlow(httpsCallbackAvailable: true) { _, _ in .failure(.canceledLogin(byTask: false)) }
    try await closed.open(url)
    let cancelled = WebAuthenticationFlow(httpsCallbackAvailable: true) { _, _ in .failure(.canceledLogin(byTask: true))
    }
    try await cancelled.open(url)
    let windowless = WebAuthenticationFlow(httpsCallbackAvailable: true) { _, _ in .failure(.noWindow) }
    await expectXidError(.presentationFailed) { try await windowless.open(url) }
  }

  @Test func prepareRefusesARedirectTheSessionCannotReceive() {
    let flow = WebAuthenticationFlow(httpsCallbackAvailable: true) { url, _ in .success(url) }
    expectXidError(.invalidConfiguration) { try flow.prepare(redirectUri: URL(string: "http://127.0.0.1/cb")!) }
  }

  // MARK: - Platform default

  @Test func theDefaultUserAgentHereIsTheLoopbackOne() {
    #if os(Linux)
      #expect(PlatformDefaults.userAgent(redirectUri: URL(string: "http://127.0.0.1/cb")!) is LoopbackUserAgent)
      #expect(PlatformDefaults.userAgent(redirectUri: URL(string: "com.example.app:/cb")!) is LoopbackUserAgent)
    #endif
  }

  // MARK: - What the user can do

  @Test func errorsTellWhatTheUserCanDo() {
    func action(_ code: XidError.Code, status: Int? = nil, oauth: String? = nil) -> XidUserAction {
      XidError(code, "test", httpStatus: status, oauthError: oauth).userAction
    }
    #expect(action(.signInRequired) == .signIn)
    #expect(action(.sessionExpired) == .signIn)
    #expect(action(.userCancelled) == .signIn)
    #expect(action(.storageLocked) == .unlockDevice)
    #expect(action(.networkFailure) == .tryAgainLater)
    #expect(action(.lockTimeout) == .tryAgainLater)
    #expect(action(.discoveryFailed) == .tryAgainLater)
    #expect(action(.tokenRequestFailed, status: 503) == .tryAgainLater)
    #expect(action(.tokenRequestFailed, status: 400, oauth: "temporarily_unavailable") == .tryAgainLater)
    #expect(action(.tokenRequestFailed, status: 400, oauth: "invalid_client") == XidUserAction.none)
    #expect(action(.missingEntitlement) == XidUserAction.none)
    #expect(action(.invalidConfiguration) == XidUserAction.none)
  }
}

/// A user agent over a ``WebAuthenticationFlow``, as `WebAuthenticationSessionUserAgent` is one.
private struct FlowUserAgent: AuthorizationUserAgent {
  let flow: WebAuthenticationFlow
  func prepare(redirectUri: URL) async throws -> any AuthorizationUserAgentSession {
    try flow.prepare(redirectUri: redirectUri)
  }
  func open(_ url: URL) async throws { try await flow.open(url) }
}
