import Foundation
import Testing
import XidCore
import XidLoopback
import XidTestSupport
import XidURLSession

/// The loopback sign-in as a browser meets it: the redirect arrives at the listener, and the browser
/// must get the completion page, however quickly the sign-in goes on.
struct LoopbackUserAgentTests {
  /// What the browser got, and how the sign-in ended.
  struct Outcome: Sendable {
    let result: Result<URL, any Error>
    let pages: [HTTPResponse]

    var error: XidError? {
      if case .failure(let error) = result { return error as? XidError }
      return nil
    }
    func page(_ index: Int) -> String { String(decoding: pages[index].body, as: UTF8.self) }
  }

  /// Loads a sign-in's start link, as the browser does first, and returns where it redirects: the
  /// "authorization URL" (in these tests, the redirect URI itself with the state).
  static func follow(_ start: URL, with transport: URLSessionTransport) async throws -> URL {
    let page = try await transport.send(HTTPRequest(url: start))
    guard page.status == 303, let location = page.headers["Location"], let url = URL(string: location) else {
      throw XidError(.unexpectedResponse, "the start link answered \(page.status) instead of redirecting")
    }
    return url
  }

  /// Runs a loopback sign-in whose browser, instead of visiting a provider, loads each of `queries`
  /// in turn at the redirect URI (`STATE` replaced by the pending state), and returns what the
  /// browser got and how the sign-in ended. The sign-in gives up after `timeout`: a bound for a
  /// broken listener, which the tests tell apart by the error's code, never by the time taken.
  static func signIn(answering queries: [String], timeout: Duration = .seconds(120)) async throws -> Outcome {
    let pages = Recorder<HTTPResponse>()
    let (done, browserDone) = AsyncStream.makeStream(of: Void.self)
    let transport = URLSessionTransport(timeout: .seconds(30))
    let browser = BrowserLauncher { start in
      Task {
        if let url = try? await Self.follow(start, with: transport) {
          let base = url.absoluteString.prefix { $0 != "?" }
          let state = url.queryParameters.first { $0.0 == "state" }?.1 ?? ""
          for query in queries {
            let target = URL(string: base + query.replacingOccurrences(of: "STATE", with: state))!
            if let page = try? await transport.send(HTTPRequest(url: target)) { await pages.record(page) }
          }
        }
        browserDone.finish()
      }
    }
    let agent = LoopbackUserAgent(browser: browser, timeout: timeout, completionPage: "Signed in")
    let signIn = try await agent.prepare(redirectUri: URL(string: "http://127.0.0.1:0/callback")!)
    let result = await outcome {
      try await signIn.authorize(URL(string: "\(signIn.redirectUri)?state=s-1")!, state: "s-1")
    }
    for await _ in done {}
    await signIn.finish()
    return Outcome(result: result, pages: await pages.values)
  }

  @Test(arguments: [
    ("", XidError.Code.invalidAuthorizationResponse, "fragment"),
    ("?state=STATE", .invalidAuthorizationResponse, "neither code nor error"),
    ("?state=STATE&code=", .invalidAuthorizationResponse, "neither code nor error"),
    ("?state=STATE&code=a&code=b", .invalidAuthorizationResponse, #"repeats the parameter "code""#),
    ("?state=STATE&state=STATE&code=a", .invalidAuthorizationResponse, #"repeats the parameter "state""#),
    ("?code=a&state=STATE&state=other", .invalidAuthorizationResponse, #"repeats the parameter "state""#),
    ("?code=a", .stateMismatch, "no state"),
    ("?state=&code=a", .stateMismatch, "no state"),
  ])
  func aMalformedAnswerEndsTheSignInAtOnceWithAPageSayingWhy(
    query: String, code: XidError.Code, reason: String
  ) async throws {
    let outcome = try await Self.signIn(answering: [query])
    #expect(outcome.error?.code == code, "\(outcome.result)")
    #expect(outcome.error?.reason.contains(reason) == true, "\(outcome.result)")
    try #require(outcome.pages.count == 1)
    #expect(outcome.pages[0].status == 400)
    #expect(outcome.page(0).contains("Sign-in failed"))
    let escaped = reason.replacingOccurrences(of: "\"", with: "&quot;")
    #expect(outcome.page(0).contains(escaped), "\(outcome.page(0))")
    #expect(!outcome.page(0).contains("s-1"))
  }

  @Test func aRedirectWithAnotherStateIsStrayAndIgnored() async throws {
    let outcome = try await Self.signIn(answering: ["?state=another&code=x", "?state=STATE&code=c"])
    let callback = try outcome.result.get()
    #expect(callback.queryParameters.contains { $0 == ("code", "c") })
    #expect(outcome.pages.map(\.status) == [404, 200])
    #expect(outcome.page(1) == "Signed in")
  }

  @Test func anErrorAnswerIsHandedOnAndTheBrowserIsToldTheSignInFailed() async throws {
    let outcome = try await Self.signIn(answering: ["?state=STATE&error=access_denied"])
    let callback = try outcome.result.get()
    #expect(callback.queryParameters.contains { $0 == ("error", "access_denied") })
    #expect(outcome.pages.first?.status == 200)
    #expect(outcome.page(0).contains("Sign-in failed"))
    #expect(outcome.page(0).contains("access_denied"))
  }

  /// Connections a test holds open from its own thread.
  final class Connections: @unchecked Sendable {
    let all: [RawConnection]
    init(_ all: [RawConnection]) { self.all = all }
  }

  @Test func idleConnectionsCannotKeepTheRealRedirectOut() async throws {
    let idle = Recorder<Connections>()
    let transport = URLSessionTransport(timeout: .seconds(30))
    let (pages, browserGot) = AsyncStream.makeStream(of: Result<HTTPResponse, any Error>.self)
    let browser = BrowserLauncher { start in
      let url = try await Self.follow(start, with: transport)
      // Another program fills the listener with connections that send nothing; then the redirect.
      let port = UInt16(url.port!)
      await idle.record(try await onOwnThread { Connections(try (0..<80).map { _ in try RawConnection(port: port) }) })
      let callback = URL(string: url.absoluteString + "&code=c")!
      Task { browserGot.yield(await outcome { try await transport.send(HTTPRequest(url: callback)) }) }
    }
    let agent = LoopbackUserAgent(browser: browser, timeout: .seconds(60), completionPage: "Signed in")
    let signIn = try await agent.prepare(redirectUri: URL(string: "http://127.0.0.1:0/callback")!)
    let callback = await outcome {
      try await signIn.authorize(URL(string: "\(signIn.redirectUri)?state=s-1")!, state: "s-1")
    }
    var iterator = pages.makeAsyncIterator()
    let page = try #require(await iterator.next())
    await signIn.finish()
    #expect(try callback.get().queryParameters.contains { $0 == ("code", "c") })
    #expect(try page.get().status == 200)
    #expect(await idle.values.first?.all.count == 80)
  }

  // The real-browser interop test caught it: the listener was stopped as soon as the redirect was in,
  // and now and then the completion page was dropped and the browser showed a connection error.
  @Test func theBrowserGetsTheCompletionPageAlthoughTheSignInFinishesAtOnce() async throws {
    for _ in 0..<100 {
      let (responses, browserGot) = AsyncStream.makeStream(of: Result<HTTPResponse, any Error>.self)
      // Bounds for a listener that drops the page, not speed goals (a loaded CI machine passed 10 s).
      let transport = URLSessionTransport(timeout: .seconds(60))
      let browser = BrowserLauncher { start in
        Task {
          do {
            // The provider sends the browser straight back to the redirect URI, with a code and the state.
            let url = try await Self.follow(start, with: transport)
            var components = URLComponents(url: url, resolvingAgainstBaseURL: false)!
            let state = components.queryItems?.first { $0.name == "state" }?.value
            components.queryItems = [
              URLQueryItem(name: "code", value: "c"), URLQueryItem(name: "state", value: state),
            ]
            browserGot.yield(.success(try await transport.send(HTTPRequest(url: components.url!))))
          } catch {
            browserGot.yield(.failure(error))
          }
        }
      }
      let agent = LoopbackUserAgent(browser: browser, timeout: .seconds(60), completionPage: "Signed in")
      let signIn = try await agent.prepare(redirectUri: URL(string: "http://127.0.0.1:0/callback")!)
      // The "authorization URL" here is the redirect URI itself, for the fake browser to follow.
      let callback = try await signIn.authorize(
        URL(string: "\(signIn.redirectUri.absoluteString)?state=s1")!, state: "s1")
      #expect(callback.query?.contains("code=c") == true)
      await signIn.finish()

      var iterator = responses.makeAsyncIterator()
      let response = try #require(await iterator.next()).get()
      #expect(response.status == 200)
      #expect(String(decoding: response.body, as: UTF8.self) == "Signed in")
    }
  }
}

/// The result of `body`, thrown error included.
private func outcome<T: Sendable>(_ body: () async throws -> T) async -> Result<T, any Error> {
  do { return .success(try await body()) } catch { return .failure(error) }
}
