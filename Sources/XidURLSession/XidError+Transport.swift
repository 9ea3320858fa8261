import Foundation
import XidCore

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

extension XidError {
  /// No response arrived from `host`, for the reason `what` (for example `"the connection was refused"`).
  ///
  /// - Parameter host: the host and port only: never a path or query, which may carry codes.
  static func networkFailure(host: String, _ what: String) -> XidError {
    XidError(.networkFailure, "the request to \(host) failed: \(what)")
  }

  /// No response arrived from `host` because of `error`, named by its kind; the error's own text is
  /// not used, since it can hold the full URL.
  static func networkFailure(host: String, error: any Error) -> XidError {
    networkFailure(host: host, failureKind(of: error))
  }

  /// The response from `host` was over `limit` bytes: `declared` by its `Content-Length`, or found so
  /// while it arrived.
  static func responseTooLarge(host: String, limit: Int, declared: Int64?) -> XidError {
    let size = declared.map { "its Content-Length is \($0) bytes" } ?? "its body exceeded that while arriving"
    return XidError(
      .responseTooLarge,
      "the response from \(host) is larger than the \(limit)-byte limit of this transport (\(size)); "
        + "if the endpoint is right to send that much, create the URLSessionTransport with a larger maxResponseSize")
  }

  private static func failureKind(of error: any Error) -> String {
    guard let error = error as? URLError else {
      let error = error as NSError
      return "error \(error.code) in \(error.domain)"
    }
    switch error.code {
    case .timedOut: return "it timed out"
    case .cancelled: return "the request was cancelled"
    case .cannotFindHost, .dnsLookupFailed: return "the host name did not resolve"
    case .cannotConnectToHost: return "the connection was refused"
    case .networkConnectionLost: return "the connection was lost"
    case .notConnectedToInternet, .internationalRoamingOff, .callIsActive, .dataNotAllowed:
      return "the device is offline"
    case .secureConnectionFailed: return "the TLS handshake failed"
    case .serverCertificateUntrusted, .serverCertificateHasBadDate, .serverCertificateNotYetValid,
      .serverCertificateHasUnknownRoot:
      return "the server's TLS certificate is not trusted"
    case .clientCertificateRejected, .clientCertificateRequired: return "the server asked for a client certificate"
    case .badServerResponse, .cannotParseResponse, .cannotDecodeRawData, .cannotDecodeContentData:
      return "the response was not valid HTTP"
    case .appTransportSecurityRequiresSecureConnection: return "App Transport Security refused the connection"
    default: return "URL loading error \(error.code.rawValue)"
    }
  }
}
