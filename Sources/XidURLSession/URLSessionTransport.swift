import Foundation
import XidCore

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// The ``HTTPTransport`` Xid uses by default: `URLSession`, set up for OAuth endpoints.
///
/// - It sends only to URLs that pass `URL.requireSecure(for:)` (https, or http to a
///   loopback host), checked before anything goes out.
/// - It never follows a redirect: OAuth endpoints must not redirect, and a `3xx` comes back as the
///   response, for the caller to refuse.
/// - It bounds each request: ``timeout`` for the whole exchange, and ``maxResponseSize`` for the body,
///   refused from `Content-Length` before the body is read, and checked again as the body arrives.
///   A refused answer is dropped as it arrives and its request cancelled at once, so it takes no more
///   memory than the limit. On Linux, swift-corelibs-foundation carries out the cancellation on the
///   queue that reads the answer, so a provider that streams faster than it is read (one on the same
///   machine) still gets a few MiB more read before the connection closes (discarded as they arrive);
///   over a network, where an answer arrives slower than it is read, the connection closes near the
///   limit.
/// - It keeps no state between requests: an ephemeral session without cookies, cache or credential
///   storage.
///
/// Failures are ``XidError``s: ``XidError/Code/networkFailure`` when no response arrived (the reason
/// names the host and what failed, never the path or query, which may carry codes),
/// ``XidError/Code/responseTooLarge`` and ``XidError/Code/insecureURL``.
///
/// A transport holds one `URLSession`, so connections are reused between its requests; keep one for
/// as long as you talk to a provider.
public struct URLSessionTransport: HTTPTransport {
  /// The longest a request may take, from sending it to the last byte of the response.
  public let timeout: Duration
  /// The largest response body accepted, in bytes.
  public let maxResponseSize: Int

  private let session: URLSessionTransportSession

  /// Creates a transport with its own ephemeral `URLSession`.
  ///
  /// - Parameters:
  ///   - timeout: the longest a request may take; 30 seconds by default.
  ///   - maxResponseSize: the largest response body accepted; 1 MiB by default, which is ample for
  ///     discovery documents, key sets and token responses.
  /// - Precondition: both are positive.
  public init(timeout: Duration = .seconds(30), maxResponseSize: Int = 1024 * 1024) {
    precondition(timeout > .zero, "the timeout must be positive")
    precondition(maxResponseSize > 0, "the response size limit must be positive")
    self.timeout = timeout
    self.maxResponseSize = maxResponseSize
    session = URLSessionTransportSession(timeout: timeout)
  }

  /// Sends `request` and returns the response, whatever its status; a redirect is returned, not followed.
  ///
  /// - Throws: ``XidError`` with ``XidError/Code/insecureURL`` (nothing was sent),
  ///   ``XidError/Code/networkFailure`` (no response, including a timeout or cancellation of the
  ///   calling task) or ``XidError/Code/responseTooLarge``.
  public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
    try request.url.requireSecure(for: "request URL")
    return try await session.send(request, timeout: timeout, maxResponseSize: maxResponseSize)
  }
}

/// The `URLSession` of a ``URLSessionTransport`` and the delegate that drives its tasks. The session is
/// made on the first request (a program that only reads a stored token never pays for one) and
/// invalidated when the last copy of the transport goes away (a session keeps its delegate alive
/// until it is invalidated).
final class URLSessionTransportSession: @unchecked Sendable {
  // `made` is only touched while `lock` is held; URLSession itself is thread-safe.
  private let lock = NSLock()
  private var made: URLSession?
  private let timeout: Duration
  private let delegate = URLSessionTransportDelegate()

  init(timeout: Duration) { self.timeout = timeout }

  private var urlSession: URLSession {
    lock.withLock {
      if let made { return made }
      let session = Self.makeSession(timeout: timeout, delegate: delegate)
      made = session
      return session
    }
  }

  private static func makeSession(timeout: Duration, delegate: URLSessionTransportDelegate) -> URLSession {
    let configuration = URLSessionConfiguration.ephemeral
    configuration.httpCookieStorage = nil
    configuration.httpCookieAcceptPolicy = .never
    configuration.httpShouldSetCookies = false
    configuration.urlCache = nil
    configuration.requestCachePolicy = .reloadIgnoringLocalAndRemoteCacheData
    configuration.urlCredentialStorage = nil
    configuration.timeoutIntervalForRequest = timeout.timeInterval
    configuration.timeoutIntervalForResource = timeout.timeInterval
    #if canImport(FoundationNetworking)
      // swift-corelibs-foundation: the delegate runs where the response is read (see InlineOperationQueue).
      return URLSession(configuration: configuration, delegate: delegate, delegateQueue: InlineOperationQueue())
    #else
      return URLSession(configuration: configuration, delegate: delegate, delegateQueue: nil)
    #endif
  }

  deinit { made?.finishTasksAndInvalidate() }

  func send(_ request: HTTPRequest, timeout: Duration, maxResponseSize: Int) async throws -> HTTPResponse {
    let host = request.url.hostForErrors
    guard !Task.isCancelled else { throw XidError.networkFailure(host: host, "the request was cancelled") }
    var urlRequest = URLRequest(
      url: request.url, cachePolicy: .reloadIgnoringLocalAndRemoteCacheData, timeoutInterval: timeout.timeInterval)
    urlRequest.httpMethod = request.method
    urlRequest.httpShouldHandleCookies = false
    for field in request.headers {
      urlRequest.addValue(field.value, forHTTPHeaderField: field.name)
    }
    urlRequest.httpBody = request.body.isEmpty ? nil : request.body
    let task = urlSession.dataTask(with: urlRequest)
    return try await withTaskCancellationHandler {
      try await withCheckedThrowingContinuation { continuation in
        delegate.register(task, host: host, maxResponseSize: maxResponseSize, continuation: continuation)
        task.resume()
        if Task.isCancelled { delegate.fail(task, with: .networkFailure(host: host, "the request was cancelled")) }
        // URLSession's own timeouts count idle time on some platforms; this bounds the whole exchange.
        // The timer holds the task weakly: a finished task (its request, body and curl handle) is freed
        // when the session lets go of it, not `timeout` later.
        DispatchQueue.global().asyncAfter(deadline: .now() + timeout.dispatchInterval) { [delegate, weak task] in
          guard let task else { return }
          delegate.fail(
            task, with: .networkFailure(host: host, "no complete response within \(timeout.timeInterval) s"))
        }
      }
    } onCancel: {
      delegate.fail(task, with: .networkFailure(host: host, "the request was cancelled"))
    }
  }
}

extension URL {
  /// The host and port, for error messages: never the path or query, which may carry codes or tokens.
  var hostForErrors: String {
    let name = host ?? "(no host)"
    return port.map { "\(name):\($0)" } ?? name
  }
}

#if canImport(FoundationNetworking)
  /// The delegate queue of a ``URLSessionTransport`` on swift-corelibs-foundation: it runs each
  /// operation at once, on the thread that adds it, instead of queueing it.
  ///
  /// That thread is the session's work queue, inside libcurl's callbacks: the delegate sees each part
  /// of a body as libcurl reads it, and drops it there once the answer is refused. With a queue of its
  /// own, the delegate fell behind a fast provider: libcurl read on at full speed while thousands of
  /// parts (16 KiB each) waited for the delegate, all in memory, so a refused 64 MiB answer could be
  /// read to its end and raise the process's peak memory by tens of MiB. The delegate only takes a lock
  /// and appends; it never waits, and it never calls back into URLSession from there (a task's
  /// `cancel()` would wait for the very queue it runs on).
  final class InlineOperationQueue: OperationQueue, @unchecked Sendable {
    override func addOperation(_ block: @escaping @Sendable () -> Void) { block() }

    override func addOperation(_ operation: Operation) { operation.start() }

    override func addOperations(_ operations: [Operation], waitUntilFinished wait: Bool) {
      for operation in operations { operation.start() }
    }
  }
#endif
