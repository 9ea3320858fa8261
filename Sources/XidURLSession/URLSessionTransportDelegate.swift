import Foundation
import XidCore

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// The session delegate of a ``URLSessionTransport``: refuses every redirect, collects each body
/// within its size limit, and resumes the waiting `send` once.
///
/// A session delegate rather than a per-task one (`data(for:delegate:)`), because
/// swift-corelibs-foundation does not ask a per-task delegate about redirects (it follows them),
/// and `data(for:)` hands over the body only when all of it has arrived.
///
/// Concurrency: `exchanges` is guarded by `lock`, since `URLSession` calls the delegate on its own
/// queue while `send`, its timer and task cancellation reach it from other threads. Continuations are
/// resumed outside the lock, and each exactly once: by whoever removes the exchange from `exchanges`.
final class URLSessionTransportDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {
  private struct Exchange {
    let continuation: CheckedContinuation<HTTPResponse, any Error>
    let host: String
    let maxResponseSize: Int
    var body = Data()
  }

  private let lock = NSLock()
  private var exchanges: [Int: Exchange] = [:]

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

  /// Ends `task` with `error`, unless it has ended already, and cancels it.
  func fail(_ task: URLSessionTask, with error: XidError) {
    guard let exchange = lock.withLock({ exchanges.removeValue(forKey: task.taskIdentifier) }) else { return }
    task.cancel()
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
    let refusal: XidError? = lock.withLock {
      guard let exchange = exchanges[dataTask.taskIdentifier], declared > exchange.maxResponseSize else { return nil }
      return .responseTooLarge(host: exchange.host, limit: exchange.maxResponseSize, declared: declared)
    }
    if let refusal { fail(dataTask, with: refusal) }
    // swift-corelibs-foundation ignores the disposition; `fail` has cancelled the task already.
    completionHandler(refusal == nil ? .allow : .cancel)
  }

  func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
    let refusal: XidError? = lock.withLock {
      let id = dataTask.taskIdentifier
      guard let exchange = exchanges[id] else { return nil }
      guard exchange.body.count + data.count <= exchange.maxResponseSize else {
        return .responseTooLarge(host: exchange.host, limit: exchange.maxResponseSize, declared: nil)
      }
      exchanges[id]?.body.append(data)
      return nil
    }
    if let refusal { fail(dataTask, with: refusal) }
  }

  func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
    guard let exchange = lock.withLock({ exchanges.removeValue(forKey: task.taskIdentifier) }) else { return }
    if let error {
      exchange.continuation.resume(throwing: XidError.networkFailure(host: exchange.host, error: error))
    } else if let response = task.response as? HTTPURLResponse {
      exchange.continuation.resume(
        returning: HTTPResponse(status: response.statusCode, headers: HTTPHeaders(response), body: exchange.body))
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
