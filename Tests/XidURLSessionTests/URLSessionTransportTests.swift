import Foundation
import Testing
import XidCore
import XidLoopback
import XidTestSupport

@testable import XidURLSession

struct URLSessionTransportTests {
  @Test func getsStatusHeadersAndBody() async throws {
    try await withServer(handler: { request in
      HTTPResponse(status: 200, headers: ["X-Path": request.url.path], body: Data("hello".utf8))
    }) { server in
      let response = try await URLSessionTransport().send(HTTPRequest(url: server.baseURL.appending(path: "/doc")))
      #expect(response.status == 200)
      #expect(response.headers["x-path"] == "/doc")
      #expect(response.body == Data("hello".utf8))
    }
  }

  @Test func postsAFormBody() async throws {
    let seen = Recorder<HTTPRequest>()
    try await withServer(handler: { request in
      await seen.record(request)
      return .json(["ok": true])
    }) { server in
      let parameters = [("grant_type", "authorization_code"), ("code", "a b&c=d")]
      let response = try await URLSessionTransport().send(.form(server.baseURL.appending(path: "/token"), parameters))
      #expect(response.status == 200)
      #expect(response.headers["Content-Type"] == "application/json")
      let request = try #require(await seen.values.first)
      #expect(request.method == "POST")
      #expect(request.headers["Content-Type"] == "application/x-www-form-urlencoded")
      #expect(request.headers["Accept"] == "application/json")
      let decoded = FormEncoding.decode(String(decoding: request.body, as: UTF8.self))
      #expect(decoded.map { "\($0)=\($1)" } == ["grant_type=authorization_code", "code=a b&c=d"])
    }
  }

  @Test func sendsRequestHeadersAndReturnsResponseHeaders() async throws {
    try await withServer(handler: { request in
      HTTPResponse(
        status: 200,
        headers: ["X-Echo": request.headers["Authorization"] ?? "none", "Cache-Control": "no-store"])
    }) { server in
      let request = HTTPRequest(url: server.baseURL, headers: ["Authorization": "DPoP abc.def"])
      let response = try await URLSessionTransport().send(request)
      #expect(response.headers["X-Echo"] == "DPoP abc.def")
      #expect(response.headers["cache-control"] == "no-store")
    }
  }

  @Test func returnsARedirectWithoutFollowingIt() async throws {
    let paths = Recorder<String>()
    try await withServer(handler: { request in
      await paths.record(request.url.path)
      return request.url.path == "/start"
        ? HTTPResponse(status: 302, headers: ["Location": "/elsewhere"], body: Data("moved".utf8))
        : HTTPResponse(status: 200)
    }) { server in
      let response = try await URLSessionTransport().send(HTTPRequest(url: server.baseURL.appending(path: "/start")))
      #expect(response.status == 302)
      #expect(response.headers["Location"] == "/elsewhere")
      #expect(response.body == Data("moved".utf8))
      #expect(await paths.values == ["/start"])
    }
  }

  @Test func refusesAResponseOverTheSizeLimitFromItsContentLength() async throws {
    try await withServer(handler: { _ in HTTPResponse(status: 200, body: Data(count: 5000)) }) { server in
      let transport = URLSessionTransport(maxResponseSize: 1000)
      let error = await expectXidError(.responseTooLarge) {
        try await transport.send(HTTPRequest(url: server.baseURL.appending(path: "/keys")))
      }
      #expect(error?.reason.contains("127.0.0.1:\(server.port)") == true)
      #expect(error?.reason.contains("5000") == true)
      // The limit is exact: a body of exactly the limit is accepted.
      let atLimit = URLSessionTransport(maxResponseSize: 5000)
      let response = try await atLimit.send(HTTPRequest(url: server.baseURL))
      #expect(response.body.count == 5000)
    }
  }

  @Test func refusesABodyThatGrowsOverTheLimitWhileArriving() async throws {
    // 100,000 bytes of "a", gzip-compressed to 133 bytes: Content-Length is small, the body is not.
    let gzip = Data(
      base64Encoded:
        "H4sIAAAAAAACA+3BMQEAAADCoKzrX8IaHkABAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"
        + "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAArwaH+uIboIYBAA==")!
    try await withServer(handler: { _ in HTTPResponse(status: 200, headers: ["Content-Encoding": "gzip"], body: gzip) })
    { server in
      let unbounded = try await URLSessionTransport().send(HTTPRequest(url: server.baseURL))
      #expect(unbounded.body == Data(repeating: UInt8(ascii: "a"), count: 100_000))
      let error = await expectXidError(.responseTooLarge) {
        try await URLSessionTransport(maxResponseSize: 10_000).send(HTTPRequest(url: server.baseURL))
      }
      #expect(error?.reason.contains("while arriving") == true)
    }
  }

  /// A provider that streams 64 MiB where the limit is 4 MiB, with or without `Content-Length`, in a
  /// process of its own (XidTransportWorker): the answer is refused, the server sees the connection
  /// closed before it wrote everything, and the process's peak resident size stays within twice the
  /// limit above what it held after a first small request. What the server saw counts, not how long
  /// anything took.
  ///
  /// Not in this process: while swift-corelibs-foundation reads a stream that fast, its work queue,
  /// shared by every URLSession of the process, answers nothing else, and this process runs every
  /// other test of the package.
  @Test(arguments: [false, true])
  func aRefusedOversizedAnswerIsNotReadToItsEndNorHeldInMemory(declaresLength: Bool) async throws {
    let bodySize = 64 << 20
    let limit = 4 << 20
    let run = try await runProcess(
      builtExecutable(named: "XidTransportWorker"), ["\(bodySize)", "\(limit)", declaresLength ? "1" : "0"])
    try #require(run.status == 0, "\(run.standardError)")
    let report = try JSONValue(parsing: Array(run.standardOutput.utf8))
    #expect(report["error"] == "responseTooLarge")
    #expect(
      report["closedByClient"] == .bool(true), "the transport read a refused answer to its end: \(run.standardOutput)")
    #expect((report["bodyBytesWritten"]?.int64Value ?? .max) < Int64(bodySize))
    let base = try #require(report["baseBytes"]?.int64Value)
    let peak = try #require(report["peakBytes"]?.int64Value)
    try #require(base > 0, "no /proc/self/status here")
    #expect(peak - base <= 2 * Int64(limit), "peak \(peak) bytes, base \(base), limit \(limit)")
  }

  @Test func timesOutWithANetworkFailureNamingTheHostButNotTheQuery() async throws {
    try await withServer(handler: { _ in
      try? await Task.sleep(for: .seconds(600))
      return HTTPResponse(status: 200)
    }) { server in
      let clock = ContinuousClock()
      let start = clock.now
      let transport = URLSessionTransport(timeout: .milliseconds(300))
      let url = try #require(URL(string: "\(server.baseURL.absoluteString)/token?code=SECRET-CODE"))
      let error = await expectXidError(.networkFailure) { try await transport.send(HTTPRequest(url: url)) }
      // Far below the handler's 10 minutes (and the transport's 30-second timeout), even on a busy machine.
      #expect(clock.now - start < .seconds(25))
      #expect(error?.reason.contains("127.0.0.1:\(server.port)") == true)
      #expect(error?.reason.contains("SECRET") == false)
      #expect(error?.reason.contains("/token") == false)
    }
  }

  @Test func reportsARefusedConnectionAsANetworkFailure() async throws {
    let refusing = try RefusingPort()
    let url = try #require(URL(string: "http://127.0.0.1:\(refusing.port)/token?code=SECRET-CODE"))
    let error = await expectXidError(.networkFailure) { try await URLSessionTransport().send(HTTPRequest(url: url)) }
    #expect(error?.reason == "the request to 127.0.0.1:\(refusing.port) failed: the connection was refused")
    withExtendedLifetime(refusing) {}
  }

  @Test func cancellingTheCallingTaskEndsTheRequest() async throws {
    try await withServer(handler: { _ in
      try? await Task.sleep(for: .seconds(600))
      return HTTPResponse(status: 200)
    }) { server in
      let url = server.baseURL
      let clock = ContinuousClock()
      let start = clock.now
      let task = Task { try await URLSessionTransport().send(HTTPRequest(url: url)) }
      try await Task.sleep(for: .milliseconds(100))
      task.cancel()
      let error = await expectXidError(.networkFailure) { try await task.value }
      #expect(error?.reason.contains("cancelled") == true)
      // Far below the handler's 10 minutes (and the transport's 30-second timeout), even on a busy machine.
      #expect(clock.now - start < .seconds(25))
    }
  }

  @Test(arguments: ["http://example.com/token", "http://10.0.0.1/token", "ftp://127.0.0.1/x", "https:///x"])
  func refusesAnInsecureURLBeforeSendingAnything(url: String) async throws {
    let transport = URLSessionTransport(timeout: .milliseconds(100))
    await expectXidError(.insecureURL) { try await transport.send(HTTPRequest(url: URL(string: url)!)) }
  }

  @Test func keepsNoCookiesBetweenRequests() async throws {
    let cookies = Recorder<String>()
    try await withServer(handler: { request in
      await cookies.record(request.headers["Cookie"] ?? "none")
      return HTTPResponse(status: 200, headers: ["Set-Cookie": "session=abc; Path=/"])
    }) { server in
      let transport = URLSessionTransport()
      _ = try await transport.send(HTTPRequest(url: server.baseURL))
      _ = try await transport.send(HTTPRequest(url: server.baseURL))
      #expect(await cookies.values == ["none", "none"])
    }
  }

  @Test func aFinishedRequestAndItsBodyAreReleasedWithoutWaitingForTheTimeout() async throws {
    // The body's storage tells when the last copy of the request goes: Data(bytesNoCopy:) calls its
    // deallocator then. The transport's timeout (10 minutes) is far past the wait below.
    let released = LockedValue(false)
    try await withServer { server in
      let transport = URLSessionTransport(timeout: .seconds(600))
      do {
        let count = 1024
        let bytes = UnsafeMutableRawPointer.allocate(byteCount: count, alignment: 1)
        bytes.initializeMemory(as: UInt8.self, repeating: UInt8(ascii: "a"), count: count)
        let body = Data(
          bytesNoCopy: bytes, count: count,
          deallocator: .custom { pointer, _ in
            pointer.deallocate()
            released.set(true)
          })
        let response = try await transport.send(HTTPRequest(method: "POST", url: server.baseURL, body: body))
        #expect(response.status == 200)
      }
      for _ in 0..<1_000 where !released.get() { try await Task.sleep(for: .milliseconds(10)) }
      #expect(released.get(), "the request was still held 10 s after its response arrived")
      withExtendedLifetime(transport) {}
    }
  }
}
