import Foundation
import Testing
import XidCore
import XidLoopback
import XidURLSession

/// The loopback sign-in as a browser meets it: the redirect arrives at the listener, and the browser
/// must get the completion page, however quickly the sign-in goes on.
struct LoopbackUserAgentTests {
  // The real-browser interop test caught it: the listener was stopped as soon as the redirect was in,
  // and now and then the completion page was dropped and the browser showed a connection error.
  @Test func theBrowserGetsTheCompletionPageAlthoughTheSignInFinishesAtOnce() async throws {
    for _ in 0..<100 {
      let (responses, browserGot) = AsyncStream.makeStream(of: Result<HTTPResponse, any Error>.self)
      let transport = URLSessionTransport(timeout: .seconds(10))
      let browser = BrowserLauncher { url in
        // The provider sends the browser straight back to the redirect URI, with a code and the state.
        var components = URLComponents(url: url, resolvingAgainstBaseURL: false)!
        let state = components.queryItems?.first { $0.name == "state" }?.value
        components.queryItems = [URLQueryItem(name: "code", value: "c"), URLQueryItem(name: "state", value: state)]
        let callback = components.url!
        Task {
          do {
            browserGot.yield(.success(try await transport.send(HTTPRequest(url: callback))))
          } catch {
            browserGot.yield(.failure(error))
          }
        }
      }
      let agent = LoopbackUserAgent(browser: browser, timeout: .seconds(10), completionPage: "Signed in")
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
