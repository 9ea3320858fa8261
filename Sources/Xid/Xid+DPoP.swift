import Foundation
import XidCore

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

extension Xid {
  /// The headers that authorize a request the app sends with its own networking (for example a
  /// `URLSession` upload): `Authorization` with the access token (refreshed when needed) and, with
  /// ``XidConfiguration/usesDPoP``, a `DPoP` proof for exactly `method` and `url`. Make them right
  /// before sending, and pass the response to ``recordResponse(_:for:)``.
  ///
  /// ```swift
  /// var request = URLRequest(url: url)
  /// for field in try await Xid.shared.authorizationHeaders(method: "GET", url: url) {
  ///   request.setValue(field.value, forHTTPHeaderField: field.name)
  /// }
  /// ```
  ///
  /// - Throws: ``XidError/Code/insecureURL``, token errors (see ``getAccessToken(forceRefresh:)``) and
  ///   ``XidError/Code/dpopKeyUnavailable``.
  public func authorizationHeaders(method: String, url: URL, forceRefresh: Bool = false) async throws
    -> HTTPHeaders
  {
    try await engine().authorizationHeaders(method: method, url: url, forceRefresh: forceRefresh)
  }

  /// Learns the `DPoP-Nonce` of a response to a request the app sent itself, for the next proofs to
  /// that server (and for the app's extensions, which share the session's storage).
  ///
  /// - Returns: `true` when the server asks for a proof with its new nonce (`use_dpop_nonce`): make
  ///   new headers with ``authorizationHeaders(method:url:forceRefresh:)`` and send once more.
  @discardableResult
  public func recordResponse(_ response: HTTPResponse, for url: URL) -> Bool {
    (try? engine().recordResponse(response, for: url)) ?? false
  }

  /// ``recordResponse(_:for:)`` for a response `URLSession` returned: its `DPoP-Nonce` and
  /// `WWW-Authenticate` headers, for its URL.
  ///
  /// - Returns: `true` when the server asks for a proof with its new nonce: make new headers with
  ///   ``authorizationHeaders(method:url:forceRefresh:)`` and send once more.
  @discardableResult
  public func recordResponse(_ response: HTTPURLResponse) -> Bool {
    guard let url = response.url else { return false }
    var headers = HTTPHeaders()
    for name in ["DPoP-Nonce", "WWW-Authenticate"] {
      if let value = response.value(forHTTPHeaderField: name) { headers[name] = value }
    }
    return recordResponse(HTTPResponse(status: response.statusCode, headers: headers), for: url)
  }
}
