import Foundation
import XidCore
import XidLoopback

/// Runs `body` against a loopback server answering with `handler`, and stops the server afterwards.
public func withServer<T>(
  limits: LoopbackHTTPServer.Limits = .init(),
  handler: @escaping @Sendable (HTTPRequest) async -> HTTPResponse = { _ in HTTPResponse(status: 200) },
  _ body: (LoopbackHTTPServer) async throws -> T
) async throws -> T {
  let server = try LoopbackHTTPServer(limits: limits, handler: handler)
  defer { server.stop() }
  return try await body(server)
}

/// A request as raw HTTP/1.1 text, with `Host: 127.0.0.1:port` first and `extraHeaders` after it.
public func rawRequest(
  port: UInt16, method: String = "GET", target: String = "/", headers extraHeaders: [String] = [], body: String = ""
) -> String {
  var text = "\(method) \(target) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n"
  for header in extraHeaders { text += header + "\r\n" }
  if !body.isEmpty { text += "Content-Length: \(body.utf8.count)\r\n" }
  return text + "\r\n" + body
}
