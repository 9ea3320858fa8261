// One POST through URLSession, the session invalidated and its invalidation awaited: at exit,
// LeakSanitizer reports 4 blocks (about 50 bytes) allocated by libcurl itself (malloc, realloc,
// strdup; no other frame). Needs an HTTP server; any answer will do:
//   python3 -m http.server 18731 --bind 127.0.0.1 &
//   ./curl-connection 18731
import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

final class Delegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {
  let done = DispatchSemaphore(value: 0)
  let invalid = DispatchSemaphore(value: 0)
  func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
    done.signal()
  }
  func urlSession(_ session: URLSession, didBecomeInvalidWithError error: (any Error)?) { invalid.signal() }
}

let port = CommandLine.arguments.dropFirst().first ?? "18731"
do {
  let delegate = Delegate()
  let session = URLSession(configuration: .ephemeral, delegate: delegate, delegateQueue: nil)
  var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)/token")!)
  request.httpMethod = "POST"
  request.httpBody = Data("grant_type=refresh_token&refresh_token=x".utf8)
  session.dataTask(with: request).resume()
  delegate.done.wait()
  session.finishTasksAndInvalidate()
  delegate.invalid.wait()
}
Thread.sleep(forTimeInterval: 0.5)
