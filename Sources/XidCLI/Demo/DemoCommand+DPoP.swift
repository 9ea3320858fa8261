import Foundation
import Xid
import XidTesting

extension DemoCommand {
  /// The demo's DPoP step: a second sign-in whose tokens are bound to a key (RFC 9449), an authorized
  /// request with its proof, and the same token refused as a Bearer token.
  func dpop(_ provider: TestProvider, storage: FileTokenStorage, redirectUri: URL, number: Int) async throws {
    await provider.updateConfiguration { $0.dpop.requiresNonce = true }
    defer { Task { await provider.updateConfiguration { $0.dpop.requiresNonce = false } } }
    var configuration = XidConfiguration(
      identity: ClientIdentity(
        issuer: provider.issuer, clientId: TestClient.example.id, redirectUri: redirectUri,
        scopes: ["openid", "profile", "offline_access"], account: "dpop"),
      parts: SessionParts(
        transport: URLSessionTransport(), clock: provider.clock, userAgent: provider.userAgent,
        logger: ConsoleLogger(console: console, minimumLevel: verbose ? .debug : .error)))
    configuration.usesDPoP = true
    configuration.parts.storage = storage
    let xid = try Xid(configuration: configuration)
    let url = provider.url(for: .resource)

    section(number, "DPoP (RFC 9449): the tokens bound to a key of this machine")
    let challengesBefore = await provider.counters.dpopNonceChallenges
    let session = try await xid.signIn()
    guard let binding = session.dpopBinding else { throw CommandFailure(.failure, "the DPoP sign-in was not bound") }
    let key = String(binding.keyThumbprint.prefix(8)) + "…"
    let challenges = await provider.counters.dpopNonceChallenges - challengesBefore
    let kind = binding.isHardwareBacked ? "hardware" : "software"
    let times = challenges == 1 ? "once" : "\(challenges) times"
    let offline = session.scopes.contains("offline_access") ? ", offline_access granted" : ""
    console.out("   Xid made a \(kind) P-256 key (thumbprint \(key)) and signed in again, sending dpop_jkt (the")
    console.out("   key's thumbprint) and a proof with each token request. The provider asked \(times) for its nonce")
    console.out("   (use_dpop_nonce) and bound the tokens to the key: token_type DPoP\(offline).")

    let headers = try await xid.authorizationHeaders(method: "GET", url: url)
    if let proof = headers["DPoP"], let claims = try? JSONValue(parsing: CompactJWS(parsing: proof).payload) {
      let htu = claims["htu"]?.stringValue ?? "?"
      let iat = claims["iat"].map(JSONText.inline) ?? "?"
      console.out(
        "   Xid.send(GET \(url.absoluteString)) adds Authorization: DPoP … and a proof, a JWT signed by the key:")
      console.out("     header  typ dpop+jwt, alg ES256, jwk = the public key (kty EC, crv P-256, x, y)")
      console.out("     claims  htm GET, htu \(htu), iat \(iat), jti …, ath … (the token's hash), nonce …")
    }
    let response = try await xid.send(HTTPRequest(url: url, headers: ["Accept": "application/json"]))
    let bound = (try? JSONValue(parsing: response.body))?["cnf"]?["jkt"]?.stringValue
    console.out(
      "   HTTP \(response.status)  cnf.jkt \(bound.map { String($0.prefix(8)) + "…" } ?? "none")\(bound == binding.keyThumbprint ? " ✓ the token is bound to the key" : "")"
    )

    var stolen = HTTPRequest(url: url)
    stolen.headers["Authorization"] = "Bearer " + (try await xid.getAccessToken())
    let refused = try await URLSessionTransport().send(stolen)
    console.out(
      "   ✓ The same token sent as a Bearer token is refused: HTTP \(refused.status) (a stolen token is useless without the key)."
    )
    try await xid.signOut()
    console.out("   The DPoP session is signed out and its key deleted.")
  }
}
