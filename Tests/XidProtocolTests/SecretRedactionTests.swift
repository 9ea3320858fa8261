import Foundation
import Testing
import XidTestSupport

@testable import XidDevice
@testable import XidProtocol
@testable import XidSession

/// No public value that can hold a secret shows it in `description`, `debugDescription` or `dump`, so
/// that an app or a custom transport that logs Xid's values leaks nothing.
struct SecretRedactionTests {
  /// Every secret the values below hold; none may appear in what they print.
  static let secrets = [
    "AT-access-secret", "RT-refresh-secret", "CV-verifier-secret", "CS-client-secret", "DC-device-secret",
    "CODE-auth-secret", "COOKIE-secret", "DPOP-proof-secret", "PROXY-secret", "ASSERTION-secret",
    "SUBJECT-token-secret", "JWS-payload-secret", "NONCE-secret", "STATE-secret", "UC-user-code",
    "DS-device-secret", "ACTOR-token-secret",
  ]

  /// What `\(value)`, `String(reflecting:)` and `dump` make of `value`.
  static func printed(_ value: Any) -> [String] {
    var dumped = ""
    dump(value, to: &dumped)
    return ["\(value)", String(reflecting: value), dumped]
  }

  /// Fails when any of `secrets` (or of the other strings given) appears in what `value` prints.
  func expectNoSecret(
    in value: Any, named name: String, also extra: [String] = [], sourceLocation: SourceLocation = #_sourceLocation
  ) {
    for text in Self.printed(value) {
      for secret in Self.secrets + extra where text.contains(secret) {
        Issue.record("\(name) prints the secret \(secret) in: \(text.prefix(400))", sourceLocation: sourceLocation)
      }
    }
  }

  static let tokenEndpoint = URL(string: "https://op.example/token")!

  /// A form POST carrying every kind of secret a token, revocation or exchange request can carry.
  static var secretForm: HTTPRequest {
    HTTPRequest.form(
      tokenEndpoint,
      [
        ("grant_type", "refresh_token"), ("refresh_token", "RT-refresh-secret"), ("code", "CODE-auth-secret"),
        ("code_verifier", "CV-verifier-secret"), ("client_secret", "CS-client-secret"),
        ("client_assertion", "ASSERTION-secret"), ("device_code", "DC-device-secret"),
        ("token", "AT-access-secret"), ("assertion", "ASSERTION-secret"), ("subject_token", "SUBJECT-token-secret"),
        ("actor_token", "ACTOR-token-secret"), ("device_secret", "DS-device-secret"), ("client_id", "client-1"),
      ],
      headers: [
        "Authorization": "Bearer AT-access-secret", "Cookie": "sid=COOKIE-secret", "DPoP": "DPOP-proof-secret",
        "Proxy-Authorization": "Basic PROXY-secret",
      ])
  }

  @Test func dumpShowsNoSecretHeldByAnyPublicValueType() throws {
    let signer = try JWSSigningKey.generate(for: .es256, keyID: "key-1")
    let compact = try signer.sign(
      claims: [
        "iss": "https://op.example", "sub": "user-1", "aud": "client-1", "exp": 4_000_000_000,
        "refresh": "JWS-payload-secret",
      ])
    let parts = compact.split(separator: ".").map(String.init)
    let jwsParts = [compact, parts[1], parts[2]]
    let jws = try CompactJWS(parsing: compact)
    expectNoSecret(in: jws, named: "CompactJWS", also: jwsParts)
    let keys = JWKSet(keys: [try signer.verificationKey()])
    let signed = try SignedJWT(verifying: compact, using: keys, allowedAlgorithms: [.es256])
    expectNoSecret(in: signed, named: "SignedJWT", also: jwsParts)
    expectNoSecret(in: signer, named: "JWSSigningKey")

    let request = Self.secretForm
    expectNoSecret(in: request, named: "HTTPRequest")
    expectNoSecret(in: request.headers, named: "HTTPHeaders")
    let basic = "Basic " + Data("client-1:CS-client-secret".utf8).base64EncodedString()
    let basicHeaders: HTTPHeaders = ["Authorization": basic]
    expectNoSecret(in: basicHeaders, named: "HTTPHeaders with Basic credentials", also: [basic])
    let redirect = HTTPRequest(
      url: URL(string: "http://127.0.0.1:5000/callback?code=CODE-auth-secret&state=STATE-secret")!)
    expectNoSecret(in: redirect, named: "HTTPRequest with a code in its query")
    let jsonPost = HTTPRequest(
      method: "POST", url: Self.tokenEndpoint, headers: ["Content-Type": "application/json"],
      body: Data(#"{"refresh_token":"RT-refresh-secret","nested":{"client_secret":"CS-client-secret"}}"#.utf8))
    expectNoSecret(in: jsonPost, named: "HTTPRequest with a JSON body")

    let tokenBody: JSONValue = [
      "access_token": "AT-access-secret", "token_type": "Bearer", "refresh_token": "RT-refresh-secret",
      "id_token": .string(compact), "expires_in": 3600, "device_secret": "DS-device-secret",
    ]
    let response = HTTPResponse.json(tokenBody, headers: ["Set-Cookie": "sid=COOKIE-secret; HttpOnly"])
    expectNoSecret(in: response, named: "HTTPResponse", also: jwsParts)
    let deviceBody = HTTPResponse.json([
      "device_code": "DC-device-secret", "user_code": "UC-user-code",
      "verification_uri": "https://op.example/device",
    ])
    expectNoSecret(in: deviceBody, named: "HTTPResponse of the device endpoint")

    let tokens = try TokenResponse(json: tokenBody.objectValue!, receivedAt: Date())
    expectNoSecret(in: tokens, named: "TokenResponse", also: jwsParts)
    let idToken = try IDToken(restoring: compact)
    expectNoSecret(in: idToken, named: "IDToken", also: jwsParts)
    expectNoSecret(in: TokenResult(tokens: tokens, idToken: idToken), named: "TokenResult", also: jwsParts)

    let exchangeRequest = TokenExchangeRequest.nativeSSO(
      idToken: "SUBJECT-token-secret", deviceSecret: "DS-device-secret", issuer: "https://op.example",
      scopes: ["profile"])
    expectNoSecret(in: exchangeRequest, named: "TokenExchangeRequest")
    let actorRequest = TokenExchangeRequest(
      subjectToken: "SUBJECT-token-secret", subjectTokenType: .accessToken, actorToken: "ACTOR-token-secret",
      actorTokenType: .jwt, audiences: ["api"], resources: [URL(string: "https://api.example")!])
    expectNoSecret(in: actorRequest, named: "TokenExchangeRequest with an actor")
    var exchangeBody = tokenBody.objectValue!
    exchangeBody["issued_token_type"] = "urn:ietf:params:oauth:token-type:access_token"
    let exchanged = try TokenExchangeResponse(json: exchangeBody, receivedAt: Date())
    expectNoSecret(in: exchanged, named: "TokenExchangeResponse", also: jwsParts)
    expectNoSecret(in: HTTPResponse.json(.object(exchangeBody)), named: "HTTPResponse of an exchange", also: jwsParts)
    expectNoSecret(
      in: TokenExchangeResult(tokens: exchanged, idToken: idToken), named: "TokenExchangeResult", also: jwsParts)
    let issuedIDToken = try TokenExchangeResponse(
      json: [
        "access_token": .string(compact), "issued_token_type": "urn:ietf:params:oauth:token-type:id_token",
        "token_type": "N_A",
      ], receivedAt: Date())
    expectNoSecret(in: issuedIDToken, named: "TokenExchangeResponse of an ID token", also: jwsParts)

    let pending = PendingAuthorization(
      state: "STATE-secret", nonce: "NONCE-secret", codeVerifier: "CV-verifier-secret",
      redirectUri: URL(string: "http://127.0.0.1:5000/callback")!, maxAge: nil, issuer: "https://op.example",
      clientId: "client-1", scopes: ["openid"], createdAt: Date())
    expectNoSecret(in: pending, named: "PendingAuthorization")
    expectNoSecret(
      in: AuthenticationResult(tokens: tokens, idToken: idToken, pending: pending), named: "AuthenticationResult",
      also: jwsParts)
    let authorizationRequest = AuthorizationRequest(
      url: URL(string: "https://op.example/authorize?state=STATE-secret&nonce=NONCE-secret")!, pending: pending,
      isPushed: false)
    expectNoSecret(in: authorizationRequest, named: "AuthorizationRequest")
    let callback = URL(string: "http://127.0.0.1:5000/callback?code=CODE-auth-secret&state=STATE-secret")!
    let authorizationResponse = try AuthorizationResponse(
      callbackURL: callback, pending: [pending], requireIssuer: false)
    expectNoSecret(in: authorizationResponse, named: "AuthorizationResponse")
    let pkce = PKCE(verifierBytes: Array("CV-verifier-secret".utf8))
    expectNoSecret(in: pkce, named: "PKCE", also: [pkce.verifier])

    let device = DeviceAuthorization(
      deviceCode: "DC-device-secret", userCode: "UC-user-code", verificationURI: URL(string: "https://op.example/d")!,
      verificationURIComplete: URL(string: "https://op.example/d?user_code=UC-user-code"), expiresAt: Date(),
      interval: .seconds(5), scopes: ["openid"])
    expectNoSecret(in: device, named: "DeviceAuthorization")

    for authentication in [
      ClientAuthentication.clientSecretBasic(secret: "CS-client-secret"), .clientSecretPost(secret: "CS-client-secret"),
    ] {
      expectNoSecret(in: authentication, named: "ClientAuthentication")
      let configuration = XidConfiguration(
        identity: ClientIdentity(
          issuer: URL(string: "https://op.example")!, clientId: "client-1",
          redirectUri: URL(string: "http://127.0.0.1/callback")!, clientAuthentication: authentication))
      expectNoSecret(in: configuration, named: "XidConfiguration")
    }
  }

  @Test func redactedHTTPMessagesStillShowWhatIsNotSecret() {
    let request = Self.secretForm
    for text in Self.printed(request) {
      #expect(text.contains("POST"))
      #expect(text.contains("https://op.example/token"))
      #expect(text.contains("Bearer"))
      #expect(text.contains("Content-Type"))
      #expect(text.contains("grant_type=refresh_token"))
      #expect(text.contains("client_id=client-1"))
    }
    let response = HTTPResponse.json(
      ["error": "invalid_grant", "error_description": "the grant was revoked"], status: 400)
    for text in Self.printed(response) {
      #expect(text.contains("400"))
      #expect(text.contains("invalid_grant"))
      #expect(text.contains("the grant was revoked"))
    }
    let resource = HTTPRequest(url: URL(string: "https://api.example/items?page=2")!, headers: ["Accept": "text/csv"])
    for text in Self.printed(resource) {
      #expect(text.contains("https://api.example/items?page=2"))
      #expect(text.contains("text/csv"))
    }
    let withPassword = HTTPRequest(
      url: URL(string: "https://user:PASSWORD-secret@api.example/items?q=2#access_token=AT-access-secret")!)
    for text in Self.printed(withPassword) {
      #expect(text.contains("https://user:redacted@api.example/items?q=2#access_token=[redacted]"))
      #expect(!text.contains("PASSWORD-secret") && !text.contains("AT-access-secret"))
    }
  }
}
