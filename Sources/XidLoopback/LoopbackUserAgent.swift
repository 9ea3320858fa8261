import Foundation
import XidCore

/// Sign-in for macOS and Linux programs (RFC 8252): the browser shows the provider's page, and a
/// listener on `127.0.0.1` receives the redirect.
///
/// The redirect URI is `http://127.0.0.1:PORT/path`; with port 0 (or none) a free port is chosen at
/// each sign-in, which providers that follow RFC 8252 §7.3 accept. The listener accepts exactly the
/// redirect path with the expected `state`, answers anything else with 404 (browsers also ask for
/// `/favicon.ico`), shows the user a short page saying to return to the program, and gives up after
/// ``timeout``.
public struct LoopbackUserAgent: AuthorizationUserAgent {
  /// Opens URLs for the user.
  public var browser: BrowserLauncher
  /// How long the user has to finish signing in.
  public var timeout: Duration
  /// The page the browser shows once the redirect has arrived.
  public var completionPage: String

  #if os(macOS) || os(Linux)
    /// A user agent with the system's browser.
    public init(
      browser: BrowserLauncher = .system(), timeout: Duration = .seconds(300),
      completionPage: String = LoopbackUserAgent.defaultCompletionPage
    ) {
      self.browser = browser
      self.timeout = timeout
      self.completionPage = completionPage
    }
  #else
    /// A user agent with the given browser.
    public init(
      browser: BrowserLauncher, timeout: Duration = .seconds(300),
      completionPage: String = LoopbackUserAgent.defaultCompletionPage
    ) {
      self.browser = browser
      self.timeout = timeout
      self.completionPage = completionPage
    }
  #endif

  /// "Signed in. You can close this window and return to the program."
  public static let defaultCompletionPage = """
    <!doctype html><html><head><meta charset="utf-8"><title>Signed in</title></head>
    <body style="font-family: system-ui, sans-serif; margin: 3em"><h1>Signed in</h1>
    <p>You can close this window and return to the program.</p></body></html>
    """

  public func prepare(redirectUri: URL) async throws -> any AuthorizationUserAgentSession {
    guard redirectUri.scheme == "http", redirectUri.host == "127.0.0.1" else {
      throw XidError(
        .invalidConfiguration,
        "the loopback sign-in needs a redirect URI of the form http://127.0.0.1:PORT/path (RFC 8252 §7.3)")
    }
    return try LoopbackSignIn(
      redirectUri: redirectUri, browser: browser, timeout: timeout, completionPage: completionPage)
  }

  public func open(_ url: URL) async throws { try await browser.open(url) }
}

/// One loopback sign-in: the listener, and the wait for its one redirect.
final class LoopbackSignIn: AuthorizationUserAgentSession {
  let redirectUri: URL
  private let browser: BrowserLauncher
  private let timeout: Duration
  private let server: LoopbackHTTPServer
  private let inbox: LoopbackInbox

  init(redirectUri: URL, browser: BrowserLauncher, timeout: Duration, completionPage: String) throws {
    self.browser = browser
    self.timeout = timeout
    let path = redirectUri.path.isEmpty ? "/" : redirectUri.path
    let inbox = LoopbackInbox()
    self.inbox = inbox
    let page = Data(completionPage.utf8)
    let server = try LoopbackHTTPServer(port: UInt16(redirectUri.port ?? 0)) { request in
      guard request.method == "GET", request.url.path == path,
        await inbox.deliver(request.url)
      else {
        return HTTPResponse(status: 404, headers: ["Content-Type": "text/plain"], body: Data("Not found\n".utf8))
      }
      return HTTPResponse(status: 200, headers: ["Content-Type": "text/html; charset=utf-8"], body: page)
    }
    var components = URLComponents(url: redirectUri, resolvingAgainstBaseURL: false)!
    components.port = Int(server.port)
    self.redirectUri = components.url!
    self.server = server
  }

  func authorize(_ url: URL, state: String) async throws -> URL {
    await inbox.expect(state: state)
    try await browser.open(url)
    let inbox = self.inbox
    return try await withTaskCancellationHandler {
      try await inbox.wait(timeout: timeout)
    } onCancel: {
      Task { await inbox.cancel() }
    }
  }

  func finish() async {
    await inbox.cancel()
    // The browser that brought the redirect must still get the completion page: stop once it is sent.
    server.stopAfterResponses()
    await server.waitUntilStopped()
  }
}

/// Hands the one redirect with the expected `state` from the listener to the waiting sign-in.
private actor LoopbackInbox {
  private var state: String?
  private var received: URL?
  private var failure: XidError?
  private var waiter: CheckedContinuation<URL, any Error>?
  private var timeoutTask: Task<Void, Never>?

  func expect(state: String) { self.state = state }

  /// Accepts `url` when it carries the expected `state` (or is the provider's error response for it)
  /// and nothing was accepted yet.
  func deliver(_ url: URL) -> Bool {
    guard received == nil, let state,
      url.queryParameters.first(where: { $0.0 == "state" })?.1 == state
    else { return false }
    received = url
    waiter?.resume(returning: url)
    waiter = nil
    timeoutTask?.cancel()
    return true
  }

  func wait(timeout: Duration) async throws -> URL {
    if let received { return received }
    if let failure { throw failure }
    return try await withCheckedThrowingContinuation { continuation in
      waiter = continuation
      timeoutTask = Task { [weak self] in
        try? await Task.sleep(for: timeout)
        guard !Task.isCancelled else { return }
        await self?.fail(XidError(.timedOut, "the sign-in was not completed within \(timeout); start it again"))
      }
    }
  }

  /// Ends the wait: the task that waits was cancelled, or the sign-in is over.
  func cancel() {
    fail(XidError(.cancelled, "the sign-in was cancelled before the browser came back"))
  }

  private func fail(_ error: XidError) {
    guard received == nil, failure == nil else { return }
    failure = error
    timeoutTask?.cancel()
    waiter?.resume(throwing: error)
    waiter = nil
  }
}
