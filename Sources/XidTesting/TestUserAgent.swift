import Foundation
import XidCore

/// The test provider's user, as an ``/Xid/AuthorizationUserAgent``: `Xid.signIn()` then completes without
/// a browser, the way ``TestProvider/user`` decides (approve, deny, …).
///
/// ```swift
/// let provider = try TestProvider()
/// let xid = try Xid(configuration: XidConfiguration(
///   identity: ClientIdentity(
///     issuer: provider.issuer, clientId: TestClient.example.id, redirectUri: TestClient.example.redirectURIs[0]),
///   parts: SessionParts(
///     transport: provider.transport, storage: InMemoryTokenStorage(), clock: provider.clock,
///     userAgent: provider.userAgent)))
/// let session = try await xid.signIn()
/// ```
public struct TestUserAgent: AuthorizationUserAgent {
  /// The browser that follows the provider's redirects.
  public let browser: TestBrowser

  /// A user agent that signs in with `browser`.
  public init(browser: TestBrowser) { self.browser = browser }

  public func prepare(redirectUri: URL) async throws -> any AuthorizationUserAgentSession {
    Session(redirectUri: redirectUri, browser: browser)
  }

  public func open(_ url: URL) async throws { _ = try await browser.load(url) }

  struct Session: AuthorizationUserAgentSession {
    let redirectUri: URL
    let browser: TestBrowser

    func authorize(_ url: URL, state: String) async throws -> URL { try await browser.redirect(from: url) }

    func finish() async {}
  }
}

extension TestProvider {
  /// The provider's user as a user agent for `Xid.signIn()`.
  public nonisolated var userAgent: TestUserAgent { TestUserAgent(browser: browser) }
}
