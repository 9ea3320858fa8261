import Foundation
import XidCore

/// A small HTTP/1.1 server on `127.0.0.1`: the test OpenID provider serves from it, and desktop
/// sign-in listens on it for the authorization response (RFC 8252 §7.3).
///
/// It binds the IPv4 loopback address only, answers one request per connection (`Connection: close`),
/// and refuses what it does not need: request heads over ``Limits/maxHeadBytes`` or with more than
/// ``Limits/maxHeaderFields`` fields (431), bodies over ``Limits/maxBodyBytes`` (413),
/// `Transfer-Encoding` (411), a `Host` other than `127.0.0.1` or `localhost` at its port (421, which
/// keeps out web pages using DNS rebinding), and anything malformed (400). A client that does not
/// send its request within ``Limits/readTimeout`` gets 408 and is disconnected.
///
/// Sockets are non-blocking and served by Dispatch sources on one serial queue; the handler runs in a
/// `Task`, so a slow handler holds up no other connection.
///
/// ```swift
/// let server = try LoopbackHTTPServer { request in
///   HTTPResponse(status: 200, body: Data("hello".utf8))
/// }
/// defer { server.stop() }
/// let response = try await URLSessionTransport().send(HTTPRequest(url: server.baseURL))
/// ```
public final class LoopbackHTTPServer: Sendable {
  /// The bounds the server holds every connection to.
  public struct Limits: Sendable, Hashable {
    /// The largest request line and header fields, up to and including the empty line, in bytes.
    public var maxHeadBytes: Int
    /// The most header fields a request may have.
    public var maxHeaderFields: Int
    /// The largest body, as announced by `Content-Length`, in bytes.
    public var maxBodyBytes: Int
    /// How long a client has, from connecting, to send its whole request.
    public var readTimeout: Duration
    /// How long a client has to take the whole response.
    public var writeTimeout: Duration
    /// The most connections open at once. At the limit, a new connection takes the place of the
    /// oldest one that has not sent its whole request yet (which is closed unanswered), or else of
    /// the oldest one already answered that is draining the rest of its input; when every
    /// connection is answering a request, the new one is closed as soon as accepted.
    public var maxConnections: Int

    /// Creates limits; the defaults suit both the test provider and the redirect listener.
    ///
    /// - Precondition: every limit is positive (the body limit may be 0).
    public init(
      maxHeadBytes: Int = 16 * 1024, maxHeaderFields: Int = 64, maxBodyBytes: Int = 1024 * 1024,
      readTimeout: Duration = .seconds(10), writeTimeout: Duration = .seconds(10), maxConnections: Int = 64
    ) {
      precondition(maxHeadBytes > 0 && maxHeaderFields > 0 && maxBodyBytes >= 0 && maxConnections > 0)
      precondition(readTimeout > .zero && writeTimeout > .zero)
      self.maxHeadBytes = maxHeadBytes
      self.maxHeaderFields = maxHeaderFields
      self.maxBodyBytes = maxBodyBytes
      self.readTimeout = readTimeout
      self.writeTimeout = writeTimeout
      self.maxConnections = maxConnections
    }
  }

  /// The port the server listens on: the one asked for, or the one the system chose for port 0.
  public var port: UInt16 { core.port }

  /// `http://127.0.0.1:PORT`, the URL of the server's root.
  public let baseURL: URL

  private let core: LoopbackServerCore

  /// Binds `127.0.0.1:port` and starts serving.
  ///
  /// - Parameters:
  ///   - port: the port to bind; 0 (the default) lets the system choose a free one.
  ///   - limits: the bounds every connection is held to.
  ///   - handler: answers each request. The request's URL is absolute (`http://127.0.0.1:PORT/path?query`).
  ///     It runs in a `Task`, which is cancelled if the server stops first.
  /// - Throws: ``XidError`` with ``XidError/Code/loopbackServerFailure`` when the port cannot be bound,
  ///   for example because another process holds it.
  public convenience init(
    port: UInt16 = 0, limits: Limits = .init(), handler: @escaping @Sendable (HTTPRequest) async -> HTTPResponse
  ) throws {
    try self.init(port: port, limits: limits, droppingHandler: { await handler($0) })
  }

  /// Binds `127.0.0.1:port` and starts serving with a handler that may drop a request: when it returns
  /// `nil`, the connection is closed without a response.
  public init(
    port: UInt16 = 0, limits: Limits = .init(),
    droppingHandler handler: @escaping @Sendable (HTTPRequest) async -> HTTPResponse?
  ) throws {
    core = try LoopbackServerCore(port: port, limits: limits, handler: handler)
    baseURL = URL(string: "http://127.0.0.1:\(core.port)")!
  }

  /// Stops the server: no new connection is accepted from now on, and the listener and every open
  /// connection are closed moments later (handlers still running are cancelled and their responses
  /// dropped). Idempotent, callable from any thread, never blocks. Also done on `deinit`.
  ///
  /// To reuse the port at once, `await` ``waitUntilStopped()`` after this.
  public func stop() { core.stop() }

  /// Stops the server like ``stop()``, except that responses being prepared or written are still
  /// sent (a handler still running has ``Limits/writeTimeout`` to answer): a redirect listener that
  /// stops as soon as its handler accepted the redirect still shows the browser its page.
  public func stopAfterResponses() { core.stopAfterResponses() }

  /// Returns once ``stop()`` or ``stopAfterResponses()`` has closed the listener and every
  /// connection, so the port is free.
  ///
  /// Waits until someone calls ``stop()`` or ``stopAfterResponses()``.
  public func waitUntilStopped() async { await core.waitUntilStopped() }

  deinit { core.stop() }
}
