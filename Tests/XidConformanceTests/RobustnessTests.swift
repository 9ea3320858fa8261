import Foundation
import Testing
import XidCore
import XidTesting

/// Hostile input, generated deterministically, ends in an ``XidError``: never a crash, a hang, another
/// error type, or acceptance. Each test first checks that the untouched input is accepted, so that
/// the refusals are the mutations' doing.
///
/// The mutations (kinds, positions, replacement characters) come from fixed seeds; what they start
/// from (keys, codes, states) is fresh in each run, so a failure names its mutation.
@Suite(.timeLimit(.minutes(1)))
struct RobustnessTests {
  @Test("Mutated ID tokens: truncated, flipped, rearranged, huge, nested")
  func everyMutationOfAnIDTokenEndsInAnXidError() async throws {
    try await withStage(.inMemory) { stage in
      let result = try await stage.signIn()
      let purpose = IDTokenValidator.Purpose.authentication(nonce: result.pending.nonce, maxAge: nil)
      let accessToken = result.tokens.accessToken
      _ = try await stage.client.validateIDToken(result.idToken.compact, purpose: purpose, accessToken: accessToken)

      let mutations = Mutations.compactJWS(result.idToken.compact, seed: 0x0123_4567_89AB_CDEF)
      #expect(mutations.count >= 300)
      let secrets = stage.transport.secrets
      for mutation in mutations {
        await expectRefused(mutation, secrets: secrets) {
          try await stage.client.validateIDToken(mutation.text, purpose: purpose, accessToken: accessToken)
        }
      }
      // Unknown keys made the client fetch the key set again, but at most once in the minute.
      #expect(await stage.counters.jwksFetches <= 2)
    }
  }

  @Test("Validly signed ID tokens with hostile claims and headers")
  func everySignedTokenWithHostileContentEndsInAnXidError() throws {
    let key = try JWSSigningKey.generate(for: .es256)
    let keySet = JWKSet(keys: [try key.verificationKey()])
    let validator = IDTokenValidator(
      issuer: TestProvider.defaultIssuer.absoluteString, clientId: TestClient.example.id, allowedAlgorithms: [.es256])
    let now = Stage.start
    let nonce = "n-0123456789"
    let accessToken = "an-access-token"
    let seconds = Int64(now.timeIntervalSince1970)
    let claims: [String: JSONValue] = [
      "iss": .string(TestProvider.defaultIssuer.absoluteString), "sub": "alice", "aud": .string(TestClient.example.id),
      "exp": .int(seconds + 300), "iat": .int(seconds), "nonce": .string(nonce),
      "at_hash": .string(TokenHash.value(for: accessToken, algorithm: .es256)),
    ]
    func validate(_ token: String) throws -> IDToken {
      try validator.validate(
        token, purpose: .authentication(nonce: nonce, maxAge: nil), accessToken: accessToken, keySet: keySet, now: now)
    }
    /// The claims' JSON with `name` left out, or set to the raw JSON `value`.
    func payload(_ name: String, _ value: String?) -> String {
      var text = JSONValue.object(claims.filter { $0.key != name }).serialized(sortedKeys: true)
      if let value {
        text.removeLast()
        text += ",\"\(name)\":\(value)}"
      }
      return text
    }
    _ = try validate(try key.sign(Array(payload("", nil).utf8), header: ["typ": "JWT"]))

    let hugeString = "\"" + String(repeating: "A", count: 60_000) + "\""
    let manyAudiences = "[\"xid-example\"," + (0..<2_000).map { "\"client-\($0)\"" }.joined(separator: ",") + "]"
    let claimCases: [(String, String?)] = [
      ("sub", Mutations.nested(depth: 100)), ("sub", Mutations.nested(depth: 100, objects: true)),
      ("x", Mutations.nested(depth: 65)), ("x", Mutations.nested(depth: 65, objects: true)),
      ("exp", "1e400"), ("exp", "-1e308"), ("exp", "-123456789012345678901234567890"), ("exp", "NaN"),
      ("exp", "\"\(seconds + 300)\""), ("exp", "null"), ("exp", nil), ("exp", "\(seconds - 61)"),
      ("iat", "1e308"), ("iat", "123456789012345678901234567890"), ("iat", "\(seconds + 61)"), ("iat", "true"),
      ("iat", nil), ("nbf", "\(seconds + 3600)"), ("auth_time", "\(seconds + 3600)"), ("auth_time", "1e308"),
      ("aud", "{\"xid-example\":true}"), ("aud", "[\"xid-example\",1]"), ("aud", "[]"), ("aud", manyAudiences),
      ("aud", nil), ("azp", "\"another-client\""), ("iss", "1"), ("iss", "\"https://op.xid.test/\""),
      ("iss", hugeString), ("iss", nil), ("sub", "\"\""), ("sub", "42"), ("sub", nil), ("nonce", "[\"\(nonce)\"]"),
      ("nonce", "\"n-0123456788\""), ("nonce", nil), ("at_hash", "\"AAAAAAAAAAAAAAAAAAAAAA\""), ("at_hash", "1"),
      ("sid", "{}"), ("c_hash", "[]"),
    ]
    var cases: [(label: String, token: String)] = []
    for (name, value) in claimCases {
      cases.append(
        ("\(name): \(value.map { String($0.prefix(40)) } ?? "missing")", try key.sign(Array(payload(name, value).utf8)))
      )
    }
    let payloadCases: [(String, [UInt8])] = [
      ("array", Array("[]".utf8)), ("null", Array("null".utf8)), ("string", Array("\"alice\"".utf8)),
      ("number", Array("1".utf8)), ("empty", []), ("empty object", Array("{}".utf8)),
      ("trailing garbage", Array((payload("", nil) + " x").utf8)),
      ("byte order mark", [0xEF, 0xBB, 0xBF] + Array(payload("", nil).utf8)),
      ("NUL", Array(payload("", nil).utf8) + [0]),
      ("invalid UTF-8", Array(payload("", nil).utf8.dropLast()) + [0xFF, 0x7D]),
      ("duplicate sub", Array(payload("sub", "\"alice\",\"sub\":\"mallory\"").utf8)),
      ("nested 10000 arrays", Array(Mutations.nested(depth: 10_000).utf8)),
      ("nested 10000 objects", Array(Mutations.nested(depth: 10_000, objects: true).utf8)),
      ("70 KB", Array(payload("x", "\"" + String(repeating: "A", count: 70_000) + "\"").utf8)),
    ]
    for (label, bytes) in payloadCases { cases.append(("payload: \(label)", try key.sign(bytes))) }
    let good = Array(payload("", nil).utf8)
    let headerCases: [(String, [String: JSONValue])] = [
      ("typ at+jwt", ["typ": "at+jwt"]), ("typ application/logout+jwt", ["typ": "application/logout+jwt"]),
      ("crit exp", ["crit": ["exp"]]), ("b64 false", ["b64": false, "crit": ["b64"]]),
      ("unknown kid", ["kid": "no-such-key"]), ("kid array", ["kid": ["a"]]),
    ]
    for (label, header) in headerCases { cases.append(("header: \(label)", try key.sign(good, header: header))) }
    let stranger = try JWSSigningKey.generate(for: .es256, keyID: key.keyID)
    cases.append(("another key with the same kid", try stranger.sign(good)))
    cases.append(("an RS256 key", try JWSSigningKey.generate(for: .rs256, keyID: key.keyID).sign(good)))
    cases.append(("signed without kid by another key", try stranger.sign(good, includeKeyID: false)))

    let secrets: Set<String> = [accessToken, nonce]
    for (label, token) in cases {
      do {
        _ = try validate(token)
        Issue.record("accepted: \(label)")
      } catch let error as XidError {
        expectNoSecret(in: error, secrets)
      } catch {
        Issue.record("\(label): threw \(type(of: error)) instead of an XidError: \(error)")
      }
    }
    #expect(cases.count >= 60)
  }

  @Test("Mutated redirects: truncated, flipped, swapped, repeated, huge")
  func everyMutationOfARedirectEndsInAnXidError() async throws {
    try await withStage(.inMemory) { stage in
      let (callback, pending) = try await stage.authorize()
      _ = try await stage.client.parseRedirect(url: callback, pending: [pending])
      let code = try #require(callback.queryParameters.first { $0.0 == "code" }?.1)

      let mutations = Mutations.redirect(callback.absoluteString, code: code)
      // What the parser can know to be secret: the request's state, nonce and verifier, and the code
      // while the response carries it as its code. (A mutation that moves the code into `iss` makes it
      // the attacker's text, which the parser echoes, shortened and sanitized, as any other issuer.)
      let requestSecrets: Set<String> = [pending.state, pending.nonce, pending.codeVerifier]
      var tried = 0
      for mutation in mutations {
        // Text that is no URL cannot reach the client at all.
        guard let url = URL(string: mutation.text) else { continue }
        tried += 1
        let secrets = Self.secrets(requestSecrets, plus: code, ifCarriedBy: url)
        await expectRefused(mutation, secrets: secrets) {
          try await stage.client.parseRedirect(url: url, pending: [pending])
        }
      }
      #expect(tried >= 300)
      #expect(await stage.counters.tokenRequests == 0)
    }
  }

  @Test("Redirects with another code are refused by the token endpoint")
  func everyRedirectWithAnotherCodeEndsInAnXidError() async throws {
    try await withStage(.inMemory) { stage in
      let (callback, pending) = try await stage.authorize()
      let code = try #require(callback.queryParameters.first { $0.0 == "code" }?.1)
      var random = SplitMix64(seed: 42)
      var codes = [String(code.dropLast()), code + "A", String(code.dropFirst()), String(code.reversed()), ""]
      for _ in 0..<20 {
        var characters = Array(code)
        let position = Int.random(in: 0..<characters.count, using: &random)
        characters[position] = Mutations.base64URLAlphabet.filter { $0 != characters[position] }
          .randomElement(using: &random)!
        codes.append(String(characters))
      }
      let secrets = stage.transport.secrets.union([code])
      for other in codes {
        let text = callback.absoluteString.replacingOccurrences(of: "code=" + code, with: "code=" + other)
        let url = try #require(URL(string: text))
        await expectRefused(Mutation(label: "code \(other)", text: text), secrets: secrets) {
          try await stage.client.handleRedirect(url: url, pending: [pending])
        }
      }
      #expect(await stage.counters.codeExchanges == codes.count - 1)
      // The untouched redirect still works: none of the attempts used the real code up.
      _ = try await stage.client.handleRedirect(url: callback, pending: [pending])
    }
  }

  /// `secrets`, and `code` too when `url` carries it as its `code` parameter.
  private static func secrets(_ secrets: Set<String>, plus code: String, ifCarriedBy url: URL) -> Set<String> {
    url.queryParameters.contains { $0.0 == "code" && $0.1 == code } ? secrets.union([code]) : secrets
  }

  /// Expects `body` to throw an ``XidError`` revealing none of `secrets`; any other outcome is an issue
  /// naming `mutation`.
  private func expectRefused<Value>(
    _ mutation: Mutation, secrets: Set<String>, sourceLocation: SourceLocation = #_sourceLocation,
    _ body: () async throws -> Value
  ) async {
    do {
      _ = try await body()
      Issue.record("accepted: \(mutation.label)", sourceLocation: sourceLocation)
    } catch let error as XidError {
      expectNoSecret(in: error, secrets, sourceLocation: sourceLocation)
    } catch {
      Issue.record(
        "\(mutation.label): threw \(type(of: error)) instead of an XidError: \(error)", sourceLocation: sourceLocation)
    }
  }
}
