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

    /// An OAuth error response: `{"error": error, "error_description": description}` with `status`.
    public static func oauthError(_ error: String, status: Int = 400, description: String? = nil) -> Fault {
      var members: [String: JSONValue] = ["error": .string(error)]
      if let description { members["error_description"] = .string(description) }
      let response = HTTPResponse.json(.object(members), status: status)
      return .respond(status: status, headers: response.headers, body: response.body)
    }
  }
}
