import Foundation
import Testing
import XidCore
import XidTesting
import XidURLSession

/// How the client reaches the provider.
enum Wire: String, CaseIterable, Sendable, CustomTestStringConvertible {
  /// ``InMemoryTransport``: requests are handed to the provider, no sockets.
  case inMemory
  /// `URLSessionTransport` to the provider served on `127.0.0.1` by `TestProvider.startLoopback()`.
  case loopback

  var testDescription: String { rawValue }
}

/// The real client (`OpenIDClient`) and the test provider, sharing one clock, with every HTTP exchange
/// between them recorded.
///
/// Create it with ``withStage(_:configure:user:scopes:rewrite:_:)``, which stops the loopback server
/// when the test ends, whether it passed or not.
struct Stage: Sendable {
  /// When every stage's clock starts.
  static let start = Date(timeIntervalSince1970: 1_800_000_000)
  /// The client's scopes besides `openid`.
  static let defaultScopes = ["profile", "email"]

  let provider: TestProvider
  let client: OpenIDClient
  let clock: TestClock
  /// The client's transport; the test browser uses it too, so codes and states are recorded.
  let transport: RecordingTransport
  let browser: TestBrowser

  fileprivate static func make(
    _ wire: Wire, configuration: TestProvider.Configuration, user: TestUser, scopes: [String],
    rewrite: RecordingTransport.Rewrite?
  ) async throws -> Stage {
    let clock = TestClock(now: start)
    let provider: TestProvider
    let base: any HTTPTransport
    switch wire {
    case .inMemory:
      provider = try TestProvider(configuration: configuration, user: user, clock: clock)
      base = provider.transport
    case .loopback:
      provider = try await TestProvider.startLoopback(configuration: configuration, user: user, clock: clock)
      base = URLSessionTransport(timeout: .seconds(20))
    }
    let transport = RecordingTransport(base, rewrite: rewrite)
    let client = try OpenIDClient(
      configuration: XidConfiguration(
        issuer: provider.issuer, clientId: TestClient.example.id,
        redirectUri: URL(string: "com.example.app:/callback")!, scopes: scopes
      ).using(transport: transport, clock: clock))
    return Stage(
      provider: provider, client: client, clock: clock, transport: transport, browser: TestBrowser(transport: transport)
    )
  }

  /// Stops the loopback server, if there is one.
  fileprivate func stop() async { await provider.stopLoopback() }

  /// Starts an authorization request and lets the test browser follow it to the redirect.
  func authorize(_ options: SignInOptions = SignInOptions()) async throws -> (
    callback: URL, pending: PendingAuthorization
  ) {
    let request = try await client.makeAuthorizationRequest(options)
    let callback = try await browser.redirect(from: request.url)
    return (callback, request.pending)
  }

  /// The whole sign-in: authorization request, browser, redirect, code exchange, ID token validation.
  func signIn(_ options: SignInOptions = SignInOptions()) async throws -> AuthenticationResult {
    let (callback, pending) = try await authorize(options)
    return try await client.handleRedirect(url: callback, pending: [pending])
  }

  /// What the provider counted so far.
  var counters: TestProvider.Counters { get async { await provider.counters } }
}

/// Runs `body` with a fresh provider and client talking over `wire`, and stops the provider's loopback
/// server afterwards, also when `body` throws.
func withStage(
  _ wire: Wire, configure: (inout TestProvider.Configuration) -> Void = { _ in }, user: TestUser = .alice,
  scopes: [String] = Stage.defaultScopes, rewrite: RecordingTransport.Rewrite? = nil,
  _ body: (Stage) async throws -> Void
) async throws {
  var configuration = TestProvider.Configuration()
  configure(&configuration)
  let stage = try await Stage.make(wire, configuration: configuration, user: user, scopes: scopes, rewrite: rewrite)
  do {
    try await body(stage)
  } catch {
    await stage.stop()
    throw error
  }
  await stage.stop()
}

/// An ``HTTPTransport`` that records every exchange it carries and can rewrite responses before the
/// client sees them.
final class RecordingTransport: HTTPTransport, @unchecked Sendable {
  /// Changes a response on its way to the client.
  typealias Rewrite = @Sendable (HTTPRequest, HTTPResponse) throws -> HTTPResponse

  private let base: any HTTPTransport
  private let rewrite: Rewrite?
  private let lock = NSLock()
  private var log: [(request: HTTPRequest, response: HTTPResponse)] = []

  init(_ base: any HTTPTransport, rewrite: Rewrite? = nil) {
    self.base = base
    self.rewrite = rewrite
  }

  func send(_ request: HTTPRequest) async throws -> HTTPResponse {
    var response = try await base.send(request)
    if let rewrite { response = try rewrite(request, response) }
    record(request, response)
    return response
  }

  private func record(_ request: HTTPRequest, _ response: HTTPResponse) {
    lock.lock()
    defer { lock.unlock() }
    log.append((request, response))
  }

  /// Every exchange so far, oldest first.
  var exchanges: [(request: HTTPRequest, response: HTTPResponse)] {
    lock.lock()
    defer { lock.unlock() }
    return log
  }

  /// Names of parameters and members whose values are secrets, or single-use values an attacker must
  /// not learn from an error message.
  static let secretNames: Set<String> = [
    "code", "state", "nonce", "code_verifier", "access_token", "refresh_token", "id_token", "device_code",
    "client_secret", "token",
  ]

  /// Every secret that has passed between client and provider: codes, states and nonces in URLs,
  /// verifiers and tokens in forms, tokens in responses and `Authorization` headers; an ID token also
  /// contributes each of its parts.
  var secrets: Set<String> {
    var found: [String] = []
    func take(_ pairs: [(String, String)]) {
      found += pairs.filter { Self.secretNames.contains($0.0) }.map(\.1)
    }
    for (request, response) in exchanges {
      take(request.url.queryParameters)
      take(FormEncoding.decode(String(decoding: request.body, as: UTF8.self)))
      if let authorization = request.headers["Authorization"], let space = authorization.firstIndex(of: " ") {
        found.append(String(authorization[space...].dropFirst()))
      }
      if let location = response.headers["Location"], let url = URL(string: location) {
        take(url.queryParameters)
      }
      if let members = (try? JSONValue(parsing: Array(response.body)))?.objectValue {
        take(members.compactMap { name, value in value.stringValue.map { (name, $0) } })
      }
    }
    for idToken in found where idToken.split(separator: ".").count >= 2 {
      found += idToken.split(separator: ".").map(String.init)
    }
    // Short values ("JWT", an empty part) would match innocently.
    return Set(found.filter { $0.count >= 8 })
  }
}
