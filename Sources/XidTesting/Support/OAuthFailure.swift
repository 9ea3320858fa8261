import XidCore

/// An OAuth error response (RFC 6749 §5.2): an `error` code, a description free of token material,
/// the status and any extra headers.
struct OAuthFailure: Error {
  var status: Int
  var error: String
  var description: String
  var headers: HTTPHeaders

  init(_ error: String, _ description: String, status: Int = 400, headers: HTTPHeaders = [:]) {
    self.error = error
    self.description = description
    self.status = status
    self.headers = headers
  }

  /// `invalid_request` with status 400.
  static func invalidRequest(_ description: String) -> OAuthFailure { OAuthFailure("invalid_request", description) }

  /// `invalid_grant` with status 400.
  static func invalidGrant(_ description: String) -> OAuthFailure { OAuthFailure("invalid_grant", description) }

  /// The response: `{"error": …, "error_description": …}`.
  var response: HTTPResponse {
    .json(["error": .string(error), "error_description": .string(description)], status: status, headers: headers)
  }
}
