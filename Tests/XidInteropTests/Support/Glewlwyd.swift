import Foundation
import Testing
import Xid

/// What the tests do at glewlwyd besides Xid's own requests: the user's part through its login API
/// (what its login.html does), and raw requests to check what the provider thinks of a token.
///
/// Every request goes through a ``URLSessionTransport``, which never follows a redirect: the user's
/// part reads the `Location` glewlwyd answers with. Failures never show a token or a code.
struct Glewlwyd: Sendable {
  let environment: InteropEnvironment
  let transport = URLSessionTransport(timeout: .seconds(20))

  init(_ environment: InteropEnvironment) { self.environment = environment }

  private func url(_ path: String) -> URL { URL(string: environment.baseURL.absoluteString + path)! }

  // MARK: - The user

  /// Signs the user in through the login API (`POST /api/auth/`); returns the session cookie.
  func logIn() async throws -> String {
    let body: JSONValue = ["username": .string(environment.username), "password": .string(environment.password)]
    let response = try await transport.send(
      HTTPRequest(
        method: "POST", url: url("/api/auth/"), headers: ["Content-Type": "application/json"],
        body: Data(body.serializedBytes())))
    guard response.status == 200,
      let cookie = response.headers["Set-Cookie"]?.split(separator: ";").first.map(String.init),
      cookie.hasPrefix("GLEWLWYD2_SESSION_ID=")
    else {
      throw InteropFailure("glewlwyd's login API answered \(response.status) without a session cookie")
    }
    return cookie
  }

  /// The user, signed in with `cookie`, continues the authorization request at `url` (consent was
  /// granted by provision.py): returns the redirect glewlwyd sends the browser to.
  func approve(_ url: URL, cookie: String) async throws -> URL {
    let response = try await transport.send(
      HTTPRequest(url: URL(string: url.absoluteString + "&g_continue")!, headers: ["Cookie": cookie]))
    guard response.status == 302, let location = response.headers["Location"], let callback = URL(string: location)
    else {
      let target = response.headers["Location"].map { " to " + $0.prefix { $0 != "?" } } ?? ""
      throw InteropFailure("glewlwyd answered the authorization request with \(response.status)\(target)")
    }
    return callback
  }

  /// The user, signed in with `cookie`, approves the device authorization of `userCode`.
  func approveDevice(userCode: String, issuer: URL, cookie: String) async throws {
    let code = userCode.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? userCode
    let response = try await transport.send(
      HTTPRequest(
        url: URL(string: "\(issuer.absoluteString)/device/?code=\(code)&g_continue")!, headers: ["Cookie": cookie]))
    guard response.status == 302, response.headers["Location"]?.contains("prompt=deviceComplete") == true else {
      throw InteropFailure("glewlwyd did not complete the device authorization: \(response.status)")
    }
  }

  /// The refresh tokens glewlwyd keeps for the user at the plugin instance of `issuer` (its user API,
  /// `GET /api/{plugin}/token`): one per sign-in and one more per refresh, as they rotate.
  func refreshTokenCount(issuer: URL, clientId: String, cookie: String) async throws -> Int {
    let plugin = issuer.lastPathComponent
    let response = try await transport.send(
      HTTPRequest(url: url("/api/\(plugin)/token?limit=100000"), headers: ["Cookie": cookie]))
    guard response.status == 200, let list = try JSONValue(parsing: Array(response.body)).arrayValue else {
      throw InteropFailure("glewlwyd's refresh token list answered \(response.status)")
    }
    return list.filter { $0["client_id"]?.stringValue == clientId }.count
  }

  // MARK: - Raw protocol requests

  /// The provider's discovery document.
  func metadata(_ issuer: URL) async throws -> [String: JSONValue] {
    let response = try await transport.send(
      HTTPRequest(url: URL(string: issuer.absoluteString + "/.well-known/openid-configuration")!))
    guard response.status == 200, let object = try JSONValue(parsing: Array(response.body)).objectValue else {
      throw InteropFailure("discovery answered \(response.status)")
    }
    return object
  }

  func endpoint(_ name: String, of issuer: URL) async throws -> URL {
    guard let value = try await metadata(issuer)[name]?.stringValue, let url = URL(string: value) else {
      throw InteropFailure("the discovery document has no \(name)")
    }
    return url
  }

  /// The provider's signing keys, from its `jwks_uri`.
  func keys(_ issuer: URL) async throws -> JWKSet {
    let response = try await transport.send(HTTPRequest(url: try await endpoint("jwks_uri", of: issuer)))
    guard response.status == 200 else { throw InteropFailure("the JWKS endpoint answered \(response.status)") }
    return try JWKSet(parsing: response.body)
  }

  /// A form POST to the token endpoint, as a public client (`client_id` in the body).
  func tokenRequest(_ issuer: URL, clientId: String, _ parameters: [(String, String)]) async throws -> HTTPResponse {
    let endpoint = try await endpoint("token_endpoint", of: issuer)
    return try await transport.send(.form(endpoint, parameters + [("client_id", clientId)]))
  }

  /// Sends `refreshToken` to the token endpoint by hand.
  func refresh(_ refreshToken: String, issuer: URL, clientId: String) async throws -> HTTPResponse {
    try await tokenRequest(
      issuer, clientId: clientId, [("grant_type", "refresh_token"), ("refresh_token", refreshToken)])
  }

  /// glewlwyd's own way for a public client to revoke a refresh token (`grant_type=delete_token`).
  func deleteToken(_ refreshToken: String, issuer: URL, clientId: String) async throws -> HTTPResponse {
    try await tokenRequest(
      issuer, clientId: clientId, [("grant_type", "delete_token"), ("refresh_token", refreshToken)])
  }
}

/// The user at glewlwyd, where a browser would be: signs in through the login API and brings back the
/// redirect. The same seam as ``LoopbackUserAgent``; ``open(_:)`` fetches the page once, like a
/// browser's first request, and keeps what glewlwyd answered.
struct GlewlwydUser: AuthorizationUserAgent {
  struct OpenedPage: Sendable {
    /// The URL Xid opened; it may carry an ID token, so tests look at its parts, never print it.
    let url: URL
    let status: Int
    let location: String?
  }

  let glewlwyd: Glewlwyd
  private let pages = Locked<[OpenedPage]>([])

  init(_ glewlwyd: Glewlwyd) { self.glewlwyd = glewlwyd }

  /// What ``open(_:)`` was asked to show, in order.
  var opened: [OpenedPage] { pages.value }

  func prepare(redirectUri: URL) async throws -> any AuthorizationUserAgentSession {
    SignIn(redirectUri: redirectUri, glewlwyd: glewlwyd)
  }

  func open(_ url: URL) async throws {
    let response = try await glewlwyd.transport.send(HTTPRequest(url: url))
    pages.update { $0.append(OpenedPage(url: url, status: response.status, location: response.headers["Location"])) }
  }

  private struct SignIn: AuthorizationUserAgentSession {
    let redirectUri: URL
    let glewlwyd: Glewlwyd

    func authorize(_ url: URL, state: String) async throws -> URL {
      try await glewlwyd.approve(url, cookie: try await glewlwyd.logIn())
    }

    func finish() async {}
  }
}

/// A value behind a lock.
final class Locked<Value: Sendable>: @unchecked Sendable {
  private let lock = NSLock()
  private var stored: Value

  init(_ value: Value) { stored = value }

  var value: Value { lock.withLock { stored } }

  func update<R>(_ body: (inout Value) -> R) -> R { lock.withLock { body(&stored) } }
}

/// Records every log message, so tests can check what Xid said and that no token reached a log line.
final class RecordingLogger: XidLogger, Sendable {
  private let lines = Locked<[String]>([])

  func log(_ level: XidLogLevel, category: String, _ message: String) {
    lines.update { $0.append("[\(category)] \(level): \(message)") }
  }

  var messages: [String] { lines.value }
}

extension URL {
  /// The first value of the query parameter `name`.
  func queryValue(_ name: String) -> String? {
    URLComponents(url: self, resolvingAgainstBaseURL: false)?.queryItems?.first { $0.name == name }?.value
  }

  /// This URL with the query parameter `name` set to `value` (`nil` removes it).
  func settingQueryValue(_ name: String, to value: String?) -> URL {
    var components = URLComponents(url: self, resolvingAgainstBaseURL: false)!
    var items = (components.queryItems ?? []).filter { $0.name != name }
    if let value { items.append(URLQueryItem(name: name, value: value)) }
    components.queryItems = items
    return components.url!
  }
}
