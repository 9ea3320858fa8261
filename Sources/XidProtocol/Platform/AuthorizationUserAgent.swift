import Foundation

/// How the user meets the provider: opens the authorization URL somewhere the user can sign in, and
/// brings back the URL the provider redirected to.
///
/// Xid ships ``LoopbackUserAgent`` (a browser and an RFC 8252 loopback listener, for macOS and Linux
/// programs) and, on iOS, macOS and visionOS, `WebAuthenticationSessionUserAgent` (an
/// `ASWebAuthenticationSession`, for apps). Tests use the test provider's user (`TestProvider.userAgent`
/// in `XidTesting`).
public protocol AuthorizationUserAgent: Sendable {
  /// Gets ready to receive the redirect, before the authorization request is made: a loopback
  /// listener binds its port here, so the request can name the actual redirect URI.
  ///
  /// - Parameter redirectUri: the configured redirect URI.
  func prepare(redirectUri: URL) async throws -> any AuthorizationUserAgentSession

  /// Shows the user a URL that needs no answer, such as the provider's end-session page.
  func open(_ url: URL) async throws
}

/// One sign-in in progress with an ``AuthorizationUserAgent``.
public protocol AuthorizationUserAgentSession: Sendable {
  /// The redirect URI to put in the authorization request.
  var redirectUri: URL { get }

  /// Opens `url` for the user and returns the redirect URL once the provider sent the browser back
  /// with `state`.
  ///
  /// - Throws: ``XidError/Code/userCancelled`` when the user gave up, ``XidError/Code/timedOut``
  ///   when nothing came back in time, ``XidError/Code/presentationFailed`` when the page could not be
  ///   shown.
  func authorize(_ url: URL, state: String) async throws -> URL

  /// Releases what ``AuthorizationUserAgent/prepare(redirectUri:)`` took (a listening port). Called
  /// once the sign-in ends, whatever way.
  func finish() async
}
