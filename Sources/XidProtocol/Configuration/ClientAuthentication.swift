import Foundation

/// How the client authenticates to the token, pushed authorization, revocation and device
/// authorization endpoints (RFC 6749 §2.3).
///
/// Apps on users' devices are public clients (``none``): they cannot keep a secret, send only their
/// `client_id`, and rely on PKCE. Confidential clients (a server, a command-line tool in a trusted
/// place) send a secret. The secret never appears in `description`.
public enum ClientAuthentication: Sendable, Hashable, CustomStringConvertible, CustomReflectable {
  /// A public client: `client_id` in the request body, no secret.
  case none
  /// `client_secret_basic`: HTTP Basic with the form-encoded client identifier and secret.
  case clientSecretBasic(secret: String)
  /// `client_secret_post`: `client_id` and `client_secret` in the request body.
  case clientSecretPost(secret: String)

  /// The parameters and headers that authenticate `clientId` on a request.
  func apply(clientId: String, to parameters: inout [(String, String)], headers: inout HTTPHeaders) {
    switch self {
    case .none:
      parameters.append(("client_id", clientId))
    case .clientSecretBasic(let secret):
      let credentials = FormEncoding.escape(clientId) + ":" + FormEncoding.escape(secret)
      headers["Authorization"] = "Basic " + Data(credentials.utf8).base64EncodedString()
    case .clientSecretPost(let secret):
      parameters.append(("client_id", clientId))
      parameters.append(("client_secret", secret))
    }
  }

  /// The secret, for redaction from error reasons.
  var secret: String? {
    switch self {
    case .none: nil
    case .clientSecretBasic(let secret), .clientSecretPost(let secret): secret
    }
  }

  /// The method's registered name (`none`, `client_secret_basic`, `client_secret_post`); never the secret.
  public var description: String {
    switch self {
    case .none: "none"
    case .clientSecretBasic: "client_secret_basic"
    case .clientSecretPost: "client_secret_post"
    }
  }

  /// The method's name only, so that `dump` does not show the secret.
  public var customMirror: Mirror { Mirror(self, children: ["method": description]) }
}
