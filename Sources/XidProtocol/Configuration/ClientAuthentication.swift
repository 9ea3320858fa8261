import Foundation

/// How the client authenticates to the token, pushed authorization, revocation and device
/// authorization endpoints (RFC 6749 §2.3).
///
/// Apps on users' devices are public clients (``none``): they cannot keep a secret, send only their
/// `client_id`, and rely on PKCE. Confidential clients (a server, a command-line tool in a trusted
/// place) send a secret, or sign an assertion with their key (``privateKeyJWT(key:audience:)``, which FAPI 2.0
/// asks for). Neither the secret nor an assertion ever appears in `description` or an error.
public enum ClientAuthentication: Sendable, Hashable, CustomStringConvertible, CustomReflectable {
  /// A public client: `client_id` in the request body, no secret.
  case none
  /// `client_secret_basic`: HTTP Basic with the form-encoded client identifier and secret.
  case clientSecretBasic(secret: String)
  /// `client_secret_post`: `client_id` and `client_secret` in the request body.
  case clientSecretPost(secret: String)
  /// `private_key_jwt` (RFC 7523 §2.2, OpenID Connect Core §9): each request carries a new assertion
  /// that `key` signs, by the client for `audience` (by default the issuer identifier, as FAPI 2.0
  /// asks), with a fresh `jti` and a one-minute lifetime, beside the `client_id`.
  case privateKeyJWT(key: any ClientAssertionKey, audience: ClientAssertionAudience = .issuer)

  /// The parameters and headers that authenticate `clientId` on a request to `endpoint` of the
  /// provider whose issuer identifier is `issuer`, at `now`.
  ///
  /// - Returns: the client assertion the request carries, if any, to keep out of error reasons.
  /// - Throws: what signing the assertion throws.
  @discardableResult
  func apply(
    clientId: String, issuer: String, endpoint: URL, now: Date, to parameters: inout [(String, String)],
    headers: inout HTTPHeaders
  ) throws -> String? {
    switch self {
    case .none:
      parameters.append(("client_id", clientId))
    case .clientSecretBasic(let secret):
      let credentials = FormEncoding.escape(clientId) + ":" + FormEncoding.escape(secret)
      headers["Authorization"] = "Basic " + Data(credentials.utf8).base64EncodedString()
    case .clientSecretPost(let secret):
      parameters.append(("client_id", clientId))
      parameters.append(("client_secret", secret))
    case .privateKeyJWT(let key, let audience):
      let assertion = try ClientAssertion.make(
        clientId: clientId, audience: audience == .issuer ? issuer : endpoint.absoluteString, key: key, now: now)
      parameters.append(("client_id", clientId))
      parameters.append(("client_assertion_type", ClientAssertion.type))
      parameters.append(("client_assertion", assertion))
      return assertion
    }
    return nil
  }

  /// The secret, for redaction from error reasons.
  var secret: String? {
    switch self {
    case .none, .privateKeyJWT: nil
    case .clientSecretBasic(let secret), .clientSecretPost(let secret): secret
    }
  }

  /// The method's registered name (`none`, `client_secret_basic`, `client_secret_post`); never the secret.
  public var description: String {
    switch self {
    case .none: "none"
    case .clientSecretBasic: "client_secret_basic"
    case .clientSecretPost: "client_secret_post"
    case .privateKeyJWT: "private_key_jwt"
    }
  }

  /// Methods are equal when they are the same method with the same secret, or keys of the same
  /// algorithm and `kid` for the same audience.
  public static func == (lhs: ClientAuthentication, rhs: ClientAuthentication) -> Bool {
    switch (lhs, rhs) {
    case (.none, .none): true
    case (.clientSecretBasic(let a), .clientSecretBasic(let b)), (.clientSecretPost(let a), .clientSecretPost(let b)):
      a == b
    case (.privateKeyJWT(let a, let audienceA), .privateKeyJWT(let b, let audienceB)):
      a.algorithm == b.algorithm && a.assertionKeyID == b.assertionKeyID && audienceA == audienceB
    default: false
    }
  }

  /// Hashes what ``==`` compares: the method, and its secret or its key's algorithm, `kid` and
  /// audience.
  public func hash(into hasher: inout Hasher) {
    hasher.combine(description)
    switch self {
    case .none: break
    case .clientSecretBasic(let secret), .clientSecretPost(let secret): hasher.combine(secret)
    case .privateKeyJWT(let key, let audience):
      hasher.combine(key.algorithm)
      hasher.combine(key.assertionKeyID)
      hasher.combine(audience)
    }
  }

  /// The method's name only, so that `dump` does not show the secret.
  public var customMirror: Mirror { Mirror(self, children: ["method": description]) }
}
