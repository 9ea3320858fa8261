import Foundation
import Xid
import XidTesting

/// Seeds made from one sign-in's real outputs for the targets that read what browsers and storage
/// hand back: the redirect URL, the loopback server's request head carrying it, and the stored record.
enum RedirectSeeds {
  /// The provider's redirect (to the custom-scheme redirect URI, state-1), the same query on the
  /// loopback redirect URI FuzzAuthorizationResponse also waits on (state-2), and the request heads a
  /// browser sends for it.
  static func write(callback: URL, name: String, to corpus: inout Corpus) {
    corpus.add("provider-redirect-\(name)", callback.absoluteString.utf8, for: .authorizationResponse)
    let query = (callback.query ?? "").replacingOccurrences(of: "state=state-1", with: "state=state-2")
    let loopback = "http://127.0.0.1:8080/callback?\(query)"
    corpus.add("loopback-redirect-\(name)", loopback.utf8, for: .authorizationResponse)
    let get =
      "GET /callback?\(query) HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nUser-Agent: Mozilla/5.0 (X11; Linux x86_64)\r\n"
      + "Accept: text/html,application/xhtml+xml\r\nAccept-Language: en\r\nConnection: keep-alive\r\n\r\n"
    corpus.add("loopback-get-\(name)", get.utf8, for: .httpRequestHead)
    guard name == "es256" else { return }
    let post =
      "POST /callback HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nContent-Type: application/x-www-form-urlencoded\r\n"
      + "Content-Length: \(query.utf8.count)\r\n\r\n\(query)"
    corpus.add("loopback-post", post.utf8, for: .httpRequestHead)
    corpus.add(
      "loopback-favicon", "GET /favicon.ico HTTP/1.0\r\nHost: localhost:8080\r\n\r\n".utf8, for: .httpRequestHead)
    corpus.add(
      "redirect-error", "com.example.app:/callback?error=access_denied&error_description=no&state=state-1".utf8,
      for: .authorizationResponse)
    corpus.add(
      "redirect-fragment", "com.example.app:/callback#code=abc&state=state-1".utf8, for: .authorizationResponse)
    for (label, challenge) in [
      ("insufficient-scope", #"Bearer error="insufficient_scope", scope="openid""#),
      ("realm-escaped", #"Bearer realm="a \"b\", c", error=invalid_token, error_description="x\\y""#),
      ("dpop", #"DPoP algs="ES256 EdDSA", error="use_dpop_nonce""#),
      (
        "step-up-acr",
        #"Bearer error="insufficient_user_authentication", error_description="A different authentication level is required", acr_values="myACR""#
      ),
      ("step-up-max-age", #"DPoP algs="ES256", error="insufficient_user_authentication", max_age=5, Basic realm="x""#),
      ("token68", "Negotiate YIIB+w/x==, Bearer error=invalid_token"),
    ] {
      corpus.add("challenge-\(label)", challenge.utf8, for: .wwwAuthenticate)
    }
    for (label, details) in AuthorizationDetailSeeds.all { corpus.add(label, details.utf8, for: .authorizationDetails) }
  }

  /// A stored record (format 1, as `TokenRecord.encoded()` writes it) holding a real token response.
  static func record(from response: JSONValue) -> [UInt8] {
    JSONValue.object(recordMembers(from: response)).serializedBytes()
  }

  /// The same record with every optional member a later session writes: the sign-in's identity and
  /// pinned `iss`/`sub`, a DPoP key's thumbprint, and a refresh token sealed for the user's presence
  /// (in place of `refresh_token`; here only its encoding, the parser never opens it) with the
  /// biometry state of its key.
  static func recordWithEveryMember(from response: JSONValue) -> [UInt8] {
    var members = recordMembers(from: response)
    let refreshToken = members.removeValue(forKey: "refresh_token")?.stringValue ?? "refresh-token"
    members["sealed_refresh_token"] = .string(Base64URL.encode(Array(refreshToken.utf8)))
    members["sealed_biometry"] = .string(Base64URL.encode(Array(repeating: 0x5a, count: 32)))
    members["sign_in_id"] = .string(Base64URL.encode(Array(repeating: 0x11, count: 16)))
    members["pinned_iss"] = members["issuer"]
    members["pinned_sub"] = .string("user-1")
    members["dpop_jkt"] = .string(Base64URL.encode(Array(repeating: 0x22, count: 32)))
    // Format 2's members: the granted authorization details and a resource's own token.
    members["format"] = .int(2)
    let details: JSONValue = [["type": "payment_initiation", "actions": ["initiate"], "creditorName": "Merchant A"]]
    members["authorization_details"] = details
    members["resources"] = [
      "https://api.example.com/": [
        "access_token": members["access_token"] ?? "at", "token_type": "DPoP", "expires_at": 1_800_003_600,
        "scope": ["openid"], "authorization_details": details,
      ]
    ]
    return JSONValue.object(members).serializedBytes()
  }

  private static func recordMembers(from response: JSONValue) -> [String: JSONValue] {
    var members: [String: JSONValue] = [
      "format": .int(1), "version": .int(1), "issuer": .string(TestProvider.defaultIssuer.absoluteString),
      "client_id": .string("xid-example"), "account": .string("user-1"), "expires_at": .double(1_800_003_600),
    ]
    for name in ["access_token", "token_type", "refresh_token", "id_token"] { members[name] = response[name] }
    let scopes = (response["scope"]?.stringValue ?? "openid").split(separator: " ").map { JSONValue.string(String($0)) }
    members["scope"] = .array(scopes)
    return members
  }
}
