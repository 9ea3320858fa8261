import Foundation
import XidCore

/// Sign-in for macOS and Linux programs (RFC 8252): the browser shows the provider's page, and a
/// listener on `127.0.0.1` receives the redirect.
///
/// The redirect URI is `http://127.0.0.1:PORT/path`; with port 0 (or none) a free port is chosen at
/// each sign-in, which providers that follow RFC 8252 §7.3 accept. The listener shows the user a
/// short page saying to return to the program, and gives up after ``timeout``.
///
/// The browser is not given the authorization URL. A program's command line is public on the
/// machine (`/proc/PID/cmdline` on Linux, `ps` everywhere), and that URL's `state`, `nonce`,
/// `code_challenge`, `dpop_jkt` or `request_uri` let another user sign in as themselves and have the
/// provider send their answer to this listener, which would then hold their session (login CSRF).
/// The browser is given a start link instead, `http://127.0.0.1:PORT/xid-sign-in/RANDOM` (256
/// random bits, no query), which the listener answers once, with a `303` to the authorization URL
/// (`Cache-Control: no-store`, `Referrer-Policy: no-referrer`); a second request for it gets `410`
/// and ends the sign-in with ``XidError/Code/stateMismatch``, since whoever came first may not have
/// been the user's browser. This works with any browser that takes a URL as its last argument:
/// `xdg-open`, `open` on macOS, Chromium and Firefox (snap confinement included, as nothing is read
/// from a file), `$BROWSER` and `--browser` scripts. In-process ``BrowserLauncher``s get the start
/// link too.
///
/// Requests to the redirect path are judged as they arrive:
///
/// - Before the start link was answered, every request is stray (404): nobody could know the
///   `state` yet.
/// - A `GET` whose query carries the pending `state` once, with a `code` or an `error`, is the
///   answer: the sign-in goes on with it (an `error` answer shows a page saying the sign-in failed).
/// - A `GET` whose non-empty `state` is another one is stray (a tab left over from an earlier
///   sign-in, another program): it gets 404 and is otherwise ignored, so nobody who does not know the
///   `state` can end or steer the sign-in with it.
/// - Anything else ends the sign-in at once, with a typed error and a page telling the browser what
///   went wrong: a `GET` with no query (as when the provider answered in the URL fragment, which
///   browsers do not send on) or with no `state` (``XidError/Code/stateMismatch``); a query with the
///   pending `state` but neither `code` nor `error`, or with any parameter given twice (`state`
///   included); or a `POST` (a `form_post` answer) (``XidError/Code/invalidAuthorizationResponse``).
///
/// Other paths (browsers also ask for `/favicon.ico`) and methods get 404. Connections that send
/// nothing cannot keep the redirect out: at the listener's connection limit, the oldest of them is
/// closed to make room.
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

/// One loopback sign-in: the listener, its start link, and the wait for its one redirect. The start
/// link is answered once; requests to the redirect path are judged as ``LoopbackUserAgent``
/// documents: an answer, stray (ignored), or malformed (the sign-in ends at once).
final class LoopbackSignIn: AuthorizationUserAgentSession {
  let redirectUri: URL
  /// What the browser is given instead of the authorization URL: a link on the listener that
  /// redirects to it, once.
  let startLink: URL
  private let browser: BrowserLauncher
  private let timeout: Duration
  private let server: LoopbackHTTPServer
  private let inbox: LoopbackInbox

  init(redirectUri: URL, browser: BrowserLauncher, timeout: Duration, completionPage: String) throws {
    self.browser = browser
    self.timeout = timeout
    let path = redirectUri.path.isEmpty ? "/" : redirectUri.path
    let startPath = "/xid-sign-in/" + Base64URL.encode(try XidCrypto.randomBytes(count: 32))
    let inbox = LoopbackInbox()
    self.inbox = inbox
    let server = try LoopbackHTTPServer(port: UInt16(redirectUri.port ?? 0)) { request in
      if request.url.path == startPath { return Self.startPage(await inbox.start(method: request.method)) }
      guard request.url.path == path else { return Self.page(404, "Not found\n", type: "text/plain") }
      switch await inbox.receive(request) {
      case .answer(error: nil):
        return Self.page(200, completionPage)
      case .answer(error: let error?):
        return Self.page(
          200,
          LoopbackRedirectCheck.failurePage(
            "The provider did not sign you in: it answered \(error). The program says more."))
      case .stray:
        return Self.page(404, "Not found\n", type: "text/plain")
      case .malformed(let error):
        return Self.page(
          400, LoopbackRedirectCheck.failurePage("The provider's answer could not be used: \(error.reason)."))
      }
    }
    var components = URLComponents(url: redirectUri, resolvingAgainstBaseURL: false)!
    components.port = Int(server.port)
    self.redirectUri = components.url!
    components.path = startPath
    components.query = nil
    components.fragment = nil
    self.startLink = components.url!
    self.server = server
  }

  /// The answer to a request for the start link: once, the redirect to the authorization URL.
  private static func startPage(_ answer: LoopbackInbox.StartLinkAnswer) -> HTTPResponse {
    switch answer {
    case .redirect(let url):
      return HTTPResponse(
        status: 303,
        headers: [
          "Location": url.absoluteString, "Cache-Control": "no-store", "Referrer-Policy": "no-referrer",
          "Content-Type": "text/html; charset=utf-8",
        ],
        body: Data(
          """
          <!doctype html><html><head><meta charset="utf-8"><title>Signing in</title></head>
          <body style="font-family: system-ui, sans-serif; margin: 3em"><p>Opening the sign-in page…</p></body></html>
          """.utf8))
    case .used:
      return page(
        410,
        LoopbackRedirectCheck.failurePage(
          "This sign-in link was already opened, so the sign-in was stopped: it works once. Start the sign-in again from the program."
        ))
    case .methodNotAllowed:
      var response = page(405, "Method not allowed\n", type: "text/plain")
      response.headers["Allow"] = "GET"
      return response
    case .notYet:
      return page(404, "Not found\n", type: "text/plain")
    }
  }

  private static func page(_ status: Int, _ text: String, type: String = "text/html; charset=utf-8") -> HTTPResponse {
    HTTPResponse(status: status, headers: ["Content-Type": type, "Cache-Control": "no-store"], body: Data(text.utf8))
  }

  func authorize(_ url: URL, state: String) async throws -> URL {
    await inbox.expect(state: state, authorizationURL: url)
    try await browser.open(startLink)
    let inbox = self.inbox
    return try await withTaskCancellationHandler {
      try await inbox.wait(timeout: timeout)
    } onCancel: {
      Task { await inbox.cancel() }
    }
  }

  func finish() async {
    await inbox.cancel()
    // The browser that brought the redirect must still get its page: stop once it is sent.
    server.stopAfterResponses()
    await server.waitUntilStopped()
  }
}

/// Hands the authorization URL to the first request for the start link, and the one answer for the
/// expected `state` from the listener to the waiting sign-in, or ends the wait with the error a
/// malformed answer (or a second request for the start link) makes.
private actor LoopbackInbox {
  /// What a request for the start link gets.
  enum StartLinkAnswer {
    /// The first `GET`: the redirect to the authorization URL.
    case redirect(URL)
    /// Every request after the first, and any once the sign-in is over.
    case used
    /// Not a `GET` (a `HEAD` would show the `Location` too): refused, and nothing changes.
    case methodNotAllowed
    /// The sign-in has not started yet.
    case notYet
  }

  private var state: String?
  private var authorizationURL: URL?
  /// Whether the start link was answered: until then nobody knows the `state`.
  private var startLinkUsed = false
  private var received: URL?
  private var failure: XidError?
  private var waiter: CheckedContinuation<URL, any Error>?
  private var timeoutTask: Task<Void, Never>?

  func expect(state: String, authorizationURL: URL) {
    self.state = state
    self.authorizationURL = authorizationURL
  }

  /// Answers a request for the start link: the authorization URL the first time; a second request
  /// ends the sign-in, since the first may not have been the user's browser (the link is on the
  /// browser's command line, which every user of the machine can read).
  func start(method: String) -> StartLinkAnswer {
    guard method == "GET" else { return .methodNotAllowed }
    guard let authorizationURL else { return .notYet }
    guard !startLinkUsed, received == nil, failure == nil else {
      fail(
        XidError(
          .stateMismatch,
          "the sign-in's start link was opened twice: it is on the browser's command line, so a program or another user of this machine may have opened it before or after the browser; the sign-in was stopped so that nobody else's sign-in can end in this program. Start it again"
        ))
      return .used
    }
    startLinkUsed = true
    return .redirect(authorizationURL)
  }

  /// Judges a request to the redirect path (see ``LoopbackRedirectCheck``): takes the answer, or
  /// ends the sign-in on a malformed one. Before the start link was answered and once the sign-in is
  /// over, every request is stray.
  func receive(_ request: HTTPRequest) -> LoopbackRedirectCheck {
    guard startLinkUsed, received == nil, failure == nil, let state else { return .stray }
    let check = LoopbackRedirectCheck.judge(method: request.method, url: request.url, state: state)
    switch check {
    case .answer:
      received = request.url
      waiter?.resume(returning: request.url)
      waiter = nil
      timeoutTask?.cancel()
    case .stray:
      break
    case .malformed(let error):
      fail(error)
    }
    return check
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
