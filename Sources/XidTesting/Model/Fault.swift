import Foundation
import XidCore

extension TestProvider {
  /// A transport-level failure injected into the next responses of one endpoint with
  /// ``TestProvider/injectFault(_:at:times:)``.
  ///
  /// ```swift
  /// // The provider rotates the refresh token, then the client never hears about it.
  /// await provider.injectFault(.dropResponse, at: .token)
  /// ```
  public enum Fault: Sendable, Hashable {
    /// The provider answers with this response instead of handling the request; nothing changes
    /// at the provider.
    case respond(status: Int, headers: HTTPHeaders = [:], body: Data = Data())
    /// The provider waits this long (real time, not the ``TestClock``), then handles the request as
    /// usual. If the sending task is cancelled while it waits, the request is never handled.
    case delay(Duration)
    /// The provider handles the request and commits its effects (a code is used up, a refresh token
    /// rotated), then the response is lost: ``InMemoryTransport`` throws ``/Xid/XidError`` with
    /// ``/Xid/XidError/Code/networkFailure``.
    case dropResponse
    /// The request never reaches the provider: the transport throws ``/Xid/XidError`` with
    /// ``/Xid/XidError/Code/networkFailure`` and nothing is counted or changed.
    case failConnection
    /// The request is never answered: the provider does not handle it, moves its ``TestClock`` on by
    /// `after` (the time a client waits before it gives up), and holds the request unanswered until
    /// the client gives up, so that the client's own timeout has to fire. A client whose request
    /// timeout runs on the same clock (``/Xid/SessionPolicy/requestTimeout`` with the provider's
    /// clock) gives up at once, in no real time; the provider then lets the request go (``InMemoryTransport``
    /// cancels it; a loopback connection is closed unanswered after at most ``longestHold`` of real
    /// time, since the server does not see the client leave). A client in another process needs its
    /// clock moved by `after` too.
    case timeout(after: Duration)
    /// The request is never handled: the provider holds it for `duration` of real time (less if the
    /// sending task is cancelled), then drops it. For a client that must be stuck mid-request, such
    /// as a process killed while it holds a lock.
    case stall(Duration)
    /// The provider handles the request and commits its effects (a refresh token is rotated), then
    /// only the first half of the response body arrives.
    case truncateBody
    /// The provider handles the request and commits its effects, then the response body is padded
    /// with whitespace to more than 1 MiB, more than a client should read.
    case oversizeBody

    /// The longest real time a ``timeout(after:)`` holds a request whose client never gives up.
    public static let longestHold = Duration.seconds(30)

    /// A gateway's or proxy's HTML error page with `status`, instead of the provider's answer.
    public static func htmlPage(status: Int = 502) -> Fault {
      .respond(
        status: status, headers: ["Content-Type": "text/html; charset=utf-8"],
        body: Data("<html><head><title>\(status)</title></head><body><h1>Bad Gateway</h1></body></html>".utf8))
    }

    /// An OAuth error response: `{"error": error, "error_description": description}` with `status`.
    public static func oauthError(_ error: String, status: Int = 400, description: String? = nil) -> Fault {
      var members: [String: JSONValue] = ["error": .string(error)]
      if let description { members["error_description"] = .string(description) }
      let response = HTTPResponse.json(.object(members), status: status)
      return .respond(status: status, headers: response.headers, body: response.body)
    }
  }
}
