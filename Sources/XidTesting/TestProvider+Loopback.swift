import Foundation
import XidCore
import XidLoopback

extension TestProvider {
  /// Starts a provider served over HTTP on `127.0.0.1` at an ephemeral port; its issuer is
  /// `http://127.0.0.1:PORT`.
  ///
  /// Use it when the client under test talks through `URLSession` or runs in another process. A
  /// ``Fault/dropResponse`` closes the connection without an answer, after the provider committed.
  ///
  /// - Throws: ``/Xid/XidError`` with ``/Xid/XidError/Code/loopbackServerFailure`` when no port can be bound.
  public static func startLoopback(
    configuration: Configuration = Configuration(), user: TestUser = .alice, clock: TestClock = TestClock()
  ) async throws -> TestProvider {
    let relay = LoopbackRelay()
    let server = try LoopbackHTTPServer(droppingHandler: { request in
      guard let provider = await relay.provider else {
        return HTTPResponse(status: 503, body: Data("the test provider is not ready".utf8))
      }
      switch await provider.respond(to: request) {
      case .response(let response): return response
      case .dropped: return nil
      }
    })
    let provider = try TestProvider(issuer: server.baseURL, configuration: configuration, user: user, clock: clock)
    await provider.attach(server)
    await relay.set(provider)
    return provider
  }

  /// Stops serving over loopback and frees the port. Idempotent.
  public func stopLoopback() async {
    guard let server = loopbackServer else { return }
    loopbackServer = nil
    server.stop()
    await server.waitUntilStopped()
  }

  private func attach(_ server: LoopbackHTTPServer) { loopbackServer = server }
}

/// Hands requests to the provider once it exists (the server must be bound before the provider,
/// whose issuer names the server's port).
private actor LoopbackRelay {
  private(set) var provider: TestProvider?
  func set(_ provider: TestProvider) { self.provider = provider }
}
