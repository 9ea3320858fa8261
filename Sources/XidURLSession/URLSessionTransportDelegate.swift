import Foundation
import XidCore

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// The session delegate of a ``URLSessionTransport``: refuses every redirect, collects each body
/// within its size limit, and resumes the waiting `send` once.
///
/// On swift-corelibs-foundation it runs on the session's work queue, as libcurl reads
/// (``InlineOperationQueue``): a refused body is dropped part by part as it arrives, never queued.
///
/// A session delegate rather than a per-task one (`data(for:delegate:)`), because
/// swift-corelibs-foundation does not ask a per-task delegate about redirects (it follows them),
/// and `data(for:)` hands over the body only when all of it has arrived.
///
/// Concurrency: `exchanges` is guarded by `lock`, since `URLSession` calls the delegate on its own
/// queue while `send`, its timer and task cancellation reach it from other threads. Continuations are
/// resumed outside the lock, and each exactly once: by whoever removes the exchange from `exchanges`.
final class URLSessionTransportDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {
  /// One request's state, touched only while `lock` is held. A class, so that appending to `body`
  /// never copies it: when it was a struct, the copy that `guard let exchange = exchanges[id]` made
  /// was still alive at the append, so (in the debug builds measured at least) each append copied the
  /// whole body so far: quadratic work, and two bodies in memory at once.
  private final class Exchange {
    let continuation: CheckedContinuation<HTTPResponse, any Error>
    let host: String
    let maxResponseSize: Int
    var body = Data()
    /// The capacity reserved for `body` when the response arrived; 0 before.
    var reserved = 0

    init(continuation: CheckedContinuation<HTTPResponse, any Error>, host: String, maxResponseSize: Int) {
      self.continuation = continuation
      self.host = host
      self.maxResponseSize = maxResponseSize
    }
  }

  private let lock = NSLock()
  private var exchanges: [Int: Exchange] = [:]

  /// Where refused and timed-out tasks are cancelled: never on the thread that fails them, which may
  /// be the session's work queue, where `cancel()` would wait for itself. A queue of its own, so that
  /// no busy shared pool delays a cancellation while a refused answer streams in.
  private static let canceller = DispatchQueue(label: "Xid.URLSessionTransport.cancel")

  /// Starts tracking `task`; its outcome resumes `continuation`.
  func register(
    _ task: URLSessionTask, host: String, maxResponseSize: Int,
    continuation: CheckedContinuation<HTTPResponse, any Error>
  ) {
    lock.withLock {
      exchanges[task.taskIdentifier] = Exchange(
        continuation: continuation, host: host, maxResponseSize: maxResponseSize)
    }
  }

  /// Ends `task` with `error`, unless it has ended already, and cancels it. From now on its body is
  /// dropped as it arrives.
  func fail(_ task: URLSessionTask, with error: XidError) {
    guard let exchange = lock.withLock({ exchanges.removeValue(forKey: task.taskIdentifier) }) else { return }
    Self.canceller.async { task.cancel() }
    exchange.continuation.resume(throwing: error)
  }

  func urlSession(
    _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
    newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
  ) {
    completionHandler(nil)
  }

  func urlSession(
    _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
    completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
  ) {
    let declared = response.expectedContentLength
    // A compressed body arrives decoded: its Content-Length does not say how large it will be.
    let encoded = ((response as? HTTPURLResponse)?.value(forHTTPHeaderField: "Content-Encoding")).map {
      $0.lowercased() != "identity"
    }
    let refusal: XidError? = lock.withLock {
      let id = dataTask.taskIdentifier
      guard let exchange = exchanges[id] else { return nil }
      guard declared <= exchange.maxResponseSize else {
        return .responseTooLarge(host: exchange.host, limit: exchange.maxResponseSize, declared: declared)
      }
      // Room for the whole body at once: growing by doubling would hold the old and the new storage
      // together, three times the limit at worst. Pages of it that are never written cost nothing.
      let expected = declared >= 0 && encoded != true ? Int(declared) : exchange.maxResponseSize
      exchange.body.reserveCapacity(expected)
      exchange.reserved = expected
      return nil
    }
    if let refusal { fail(dataTask, with: refusal) }
    // swift-corelibs-foundation ignores the disposition; `fail` cancels the task.
    completionHandler(refusal == nil ? .allow : .cancel)
  }

  func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
    let refusal: XidError? = lock.withLock {
      let id = dataTask.taskIdentifier
      guard let exchange = exchanges[id] else { return nil }
      guard exchange.body.count + data.count <= exchange.maxResponseSize else {
        return .responseTooLarge(host: exchange.host, limit: exchange.maxResponseSize, declared: nil)
      }
      exchange.body.append(data)
      return nil
    }
    if let refusal { fail(dataTask, with: refusal) }
  }

  func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
    guard let exchange = lock.withLock({ exchanges.removeValue(forKey: task.taskIdentifier) }) else { return }
    if let error {
      exchange.continuation.resume(throwing: XidError.networkFailure(host: exchange.host, error: error))
    } else if let response = task.response as? HTTPURLResponse {
      // A body much smaller than the room reserved for it (a limit's worth when its length was not
      // declared) is copied, so that the caller does not hold that room.
      let body =
        exchange.reserved > 2 * exchange.body.count + 4096 ? exchange.body.withUnsafeBytes { Data($0) } : exchange.body
      exchange.continuation.resume(
        returning: HTTPResponse(status: response.statusCode, headers: HTTPHeaders(response), body: body))
    } else {
      exchange.continuation.resume(throwing: XidError.networkFailure(host: exchange.host, "the response was not HTTP"))
    }
  }
}

extension HTTPHeaders {
  /// The header fields of `response`, sorted by name (`URLSession` does not keep their order).
  init(_ response: HTTPURLResponse) {
    let fields = response.allHeaderFields.compactMap { name, value -> (name: String, value: String)? in
      guard let name = name as? String, let value = value as? String else { return nil }
      return (name, value)
    }
    self.init(fields.sorted { $0.name.lowercased() < $1.name.lowercased() })
  }
}
