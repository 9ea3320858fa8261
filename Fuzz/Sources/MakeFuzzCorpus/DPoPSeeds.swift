import Foundation
import Xid
import XidTesting

/// Seeds of `FuzzDPoPNonce`: what XidTesting's provider answers a DPoP client when it requires
/// nonces (RFC 9449 §8 at the token endpoint, §9 at UserInfo), and hand-written answers for what it
/// never sends: a nonce on a success, a malformed nonce, a stored nonce cache in the body.
///
/// Each seed is a response as FuzzDPoPNonce reads it: `STATUS URL`, `Name: value` lines, an empty
/// line, the body.
enum DPoPSeeds {
  static func write(to corpus: inout Corpus) async throws {
    var configuration = TestProvider.Configuration()
    configuration.dpop.requiresNonce = true
    let provider = try TestProvider(configuration: configuration, clock: TestClock(now: ProviderSeeds.now))
    let key = try SoftwareDPoPKeyFactory().makeKey().key

    // The token endpoint: a proof without a nonce, then with the nonce it asked for.
    let (code, _) = try await ProviderSeeds.authorize(provider)
    func exchange(nonce: String?) async throws -> (HTTPRequest, HTTPResponse) {
      var request = ProviderSeeds.codeExchange(provider, code: code)
      let proof = try DPoPProof.make(
        key: key, method: "POST", url: request.url, nonce: nonce, issuedAt: ProviderSeeds.now)
      request.headers["DPoP"] = proof
      return (request, try await provider.transport.send(request))
    }
    let (request, refused) = try await exchange(nonce: nil)
    corpus.add("provider-token-use-dpop-nonce", seed(refused, from: request.url), for: .dpopNonce)
    let nonce = refused.headers["DPoP-Nonce"]
    let (_, granted) = try await exchange(nonce: nonce)
    corpus.add("provider-token-dpop-bound", seed(granted, from: request.url), for: .dpopNonce)

    // UserInfo: the bound token with a proof whose nonce the server rotated.
    if let accessToken = try JSONValue(parsing: Array(granted.body))["access_token"]?.stringValue {
      _ = try await provider.rotateDPoPNonce()
      var userInfo = HTTPRequest(url: provider.url(for: .userInfo))
      let proof = try DPoPProof.make(
        key: key, method: "GET", url: userInfo.url, accessToken: accessToken, nonce: nonce,
        issuedAt: ProviderSeeds.now)
      userInfo.headers["Authorization"] = "DPoP " + accessToken
      userInfo.headers["DPoP"] = proof
      let answer = try await provider.transport.send(userInfo)
      corpus.add("provider-userinfo-use-dpop-nonce", seed(answer, from: userInfo.url), for: .dpopNonce)
    }

    let handWritten: [(String, String)] = [
      ("success-with-nonce", "200 https://rs.example.com:8443/api\nDPoP-Nonce: eyJ7S_zG.eyJH0-Z.HX4w-7v\n\n{}"),
      ("nonce-with-quote", "400 https://as.example.com/token\ndpop-nonce: a\"b\n\n{\"error\":\"use_dpop_nonce\"}"),
      (
        "two-nonces",
        "401 http://127.0.0.1:8080/\nDPoP-Nonce: first\nDPOP-NONCE: second\nWWW-Authenticate: DPoP error=\"use_dpop_nonce\"\n\n"
      ),
      ("new-token", "401 https://rs.example.com/\nWWW-Authenticate: DPoP algs=\"ES256 PS256\"\n\n"),
      ("ipv6-origin", "401 https://[::1]:443/path?q#f\nDPoP-Nonce: n\n\n"),
      (
        "stored-cache",
        "204 https://user@AS.example.com:443/x\n\n{\"https://as.example.com:443\":\"n-1\",\"http://h:80\":\"bad nonce\"}"
      ),
    ]
    for (name, text) in handWritten { corpus.add("edge-\(name)", text.utf8, for: .dpopNonce) }
  }

  /// A response as FuzzDPoPNonce reads it.
  private static func seed(_ response: HTTPResponse, from url: URL) -> [UInt8] {
    let head = ["\(response.status) \(url.absoluteString)"] + response.headers.map { "\($0.name): \($0.value)" }
    return Array((head.joined(separator: "\n") + "\n\n").utf8) + Array(response.body)
  }
}
