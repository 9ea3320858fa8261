import Foundation

// The platform-independent part of `WebAuthenticationSessionUserAgent`: which callback an
// `ASWebAuthenticationSession` waits for, how the ways it ends become `XidError`s, and the sign-in
// and end-session flows around one presentation. The Apple file only adds the presentation itself,
// so everything here is compiled and tested on every platform.

/// The URL that ends an `ASWebAuthenticationSession`: a private-use scheme, or a claimed `https`
/// host and path (iOS 17.4 and macOS 14.4 and later, with the host in the app's associated domains).
package enum WebAuthenticationCallback: Hashable, Sendable {
  /// Any URL of this scheme (lowercased) ends the session.
  case customScheme(String)
  /// An `https` URL with this host and path ends the session.
  case https(host: String, path: String)

  /// The callback of a sign-in whose redirect URI is `redirectUri`.
  ///
  /// - Parameter httpsCallbackAvailable: whether the system matches `https` callbacks
  ///   (`ASWebAuthenticationSession.Callback.https(host:path:)`, iOS 17.4 and macOS 14.4).
  /// - Throws: ``XidError/Code/invalidConfiguration`` for a redirect URI the web authentication
  ///   session cannot receive: a loopback `http` one, or a claimed `https` one on an older system.
  package static func forSignIn(redirectUri: URL, httpsCallbackAvailable: Bool) throws -> Self {
    guard let scheme = redirectUri.scheme?.lowercased(), !scheme.isEmpty else {
      throw XidError(.invalidConfiguration, "the redirect URI has no scheme; use com.example.app:/oauth/callback")
    }
    switch scheme {
    case "http":
      throw XidError(
        .invalidConfiguration,
        "a web authentication session cannot receive an http redirect; use a private-use scheme "
          + "(com.example.app:/oauth/callback), or LoopbackUserAgent for a loopback http://127.0.0.1 redirect URI")
    case "https":
      guard httpsCallbackAvailable else {
        throw XidError(
          .invalidConfiguration,
          "a web authentication session can receive a claimed https redirect only from iOS 17.4 and macOS 14.4 on; "
            + "register a private-use scheme redirect URI (com.example.app:/oauth/callback) for older systems")
      }
      guard let host = redirectUri.host, !host.isEmpty else {
        throw XidError(.invalidConfiguration, "the https redirect URI has no host")
      }
      if let port = redirectUri.port, port != 443 {
        throw XidError(
          .invalidConfiguration,
          "a claimed https redirect URI cannot have a port (\(port)); the web authentication session matches host and path"
        )
      }
      return .https(host: host.lowercased(), path: Self.path(of: redirectUri))
    default:
      return .customScheme(scheme)
    }
  }

  /// The callback of an end-session page: the one of its `post_logout_redirect_uri` parameter, or
  /// `nil` when it has none, or one the session cannot receive; the user then closes the page.
  package static func forEndSession(_ url: URL, httpsCallbackAvailable: Bool) -> Self? {
    guard
      let value = url.queryParameters.first(where: { $0.0 == "post_logout_redirect_uri" })?.1,
      let redirect = URL(string: value)
    else { return nil }
    return try? forSignIn(redirectUri: redirect, httpsCallbackAvailable: httpsCallbackAvailable)
  }

  /// The private-use scheme, for the systems that only match schemes; `nil` for an `https` callback.
  package var scheme: String? {
    if case .customScheme(let scheme) = self { return scheme }
    return nil
  }

  private static func path(of url: URL) -> String {
    let path = URLComponents(url: url, resolvingAgainstBaseURL: false)?.path ?? ""
    return path.isEmpty ? "/" : path
  }
}

/// How a web authentication session ended without a callback URL.
package enum WebAuthenticationFailure: Error, Hashable, Sendable {
  /// The user closed the page or declined the system's "wants to use … to sign in" prompt
  /// (`ASWebAuthenticationSessionError.canceledLogin`), or, with `byTask`, the waiting task was
  /// cancelled and Xid cancelled the session.
  case canceledLogin(byTask: Bool)
  /// The session had no presentation context (`.presentationContextNotProvided`).
  case presentationContextNotProvided
  /// The window given is not in a foreground scene (`.presentationContextInvalid`).
  case presentationContextInvalid
  /// No window to present from was found.
  case noWindow
  /// `ASWebAuthenticationSession.start()` returned `false`.
  case notStarted
  /// Another web authentication session of Xid is on screen.
  case alreadyPresenting
  /// The session ended with neither a URL nor an error.
  case noCallbackURL
  /// Any other error, by domain and code only: its text is not kept, so that no URL can reach a log.
  case other(domain: String, code: Int)

  /// The failure for an error the session's completion handler received.
  ///
  /// - Parameters:
  ///   - domain: the error's domain, and `code` its code.
  ///   - sessionErrorDomain: `ASWebAuthenticationSessionErrorDomain`.
  ///   - byTask: whether Xid cancelled the session because its task was cancelled.
  package init(domain: String, code: Int, sessionErrorDomain: String, byTask: Bool) {
    guard domain == sessionErrorDomain else {
      self = .other(domain: domain, code: code)
      return
    }
    switch code {
    case 1: self = .canceledLogin(byTask: byTask)  // ASWebAuthenticationSessionError.canceledLogin
    case 2: self = .presentationContextNotProvided
    case 3: self = .presentationContextInvalid
    default: self = .other(domain: domain, code: code)
    }
  }

  /// The error a sign-in throws for this failure.
  package var error: XidError {
    switch self {
    case .canceledLogin(byTask: false):
      XidError(.userCancelled, "the user closed the sign-in page or declined to continue")
    case .canceledLogin(byTask: true):
      XidError(.cancelled, "the sign-in was cancelled: its task was cancelled, so Xid closed the sign-in page")
    case .presentationContextNotProvided, .presentationContextInvalid, .noWindow:
      XidError(
        .presentationFailed,
        "no window in a foreground scene to show the sign-in page from; sign in while the app is in the foreground, "
          + "or give WebAuthenticationSessionUserAgent a presentationAnchor")
    case .notStarted:
      XidError(
        .presentationFailed,
        "the system refused to start the web authentication session; the app may not be in the foreground")
    case .alreadyPresenting:
      XidError(.signInInProgress, "a web authentication session is already on screen; only one runs at a time")
    case .noCallbackURL:
      XidError(.presentationFailed, "the web authentication session ended with neither a redirect nor an error")
    case .other(let domain, let code):
      XidError(.presentationFailed, "the web authentication session failed: error \(code) in \(domain)")
    }
  }
}

/// Shows `url` in one web authentication session that ends at `callback` (or only when closed, when
/// `nil`), and reports how it ended. The Apple user agent presents an `ASWebAuthenticationSession`;
/// tests pass a stand-in.
package typealias WebAuthenticationPresenter =
  @Sendable (_ url: URL, _ callback: WebAuthenticationCallback?) async -> Result<URL, WebAuthenticationFailure>

/// Sign-in and end-session over a ``WebAuthenticationPresenter``.
package struct WebAuthenticationFlow: Sendable {
  /// Whether the system matches claimed `https` callbacks.
  package var httpsCallbackAvailable: Bool
  /// Shows one page.
  package var present: WebAuthenticationPresenter

  /// A flow that shows pages with `present`.
  package init(httpsCallbackAvailable: Bool, present: @escaping WebAuthenticationPresenter) {
    self.httpsCallbackAvailable = httpsCallbackAvailable
    self.present = present
  }

  /// A sign-in waiting for the redirect to `redirectUri`.
  ///
  /// - Throws: ``XidError/Code/invalidConfiguration`` when the session cannot receive that redirect.
  package func prepare(redirectUri: URL) throws -> WebAuthenticationSignIn {
    let callback = try WebAuthenticationCallback.forSignIn(
      redirectUri: redirectUri, httpsCallbackAvailable: httpsCallbackAvailable)
    return WebAuthenticationSignIn(redirectUri: redirectUri, callback: callback, present: present)
  }

  /// Shows an end-session page until the provider redirects to the post-logout redirect URI or the
  /// user closes it; either way it is done.
  ///
  /// - Throws: ``XidError/Code/presentationFailed`` when the page could not be shown,
  ///   ``XidError/Code/signInInProgress`` while another session is on screen.
  package func open(_ url: URL) async throws {
    let callback = WebAuthenticationCallback.forEndSession(url, httpsCallbackAvailable: httpsCallbackAvailable)
    switch await present(url, callback) {
    case .success, .failure(.canceledLogin): return
    case .failure(let failure): throw failure.error
    }
  }
}

/// One sign-in in a web authentication session.
package struct WebAuthenticationSignIn: AuthorizationUserAgentSession {
  package let redirectUri: URL
  package let callback: WebAuthenticationCallback
  package let present: WebAuthenticationPresenter

  package func authorize(_ url: URL, state: String) async throws -> URL {
    switch await present(url, callback) {
    case .success(let redirect): return redirect
    case .failure(let failure): throw failure.error
    }
  }

  package func finish() async {}
}
