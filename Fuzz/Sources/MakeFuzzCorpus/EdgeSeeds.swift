import Xid

/// Hand-written seeds for the corners of JSON that real outputs rarely show: number limits,
/// escapes and surrogate pairs, non-ASCII member names, nesting at the depth limit, and JWS headers
/// with `crit` and `b64`.
enum EdgeSeeds {
  static func write(to corpus: inout Corpus) {
    let json: [(String, String)] = [
      ("numbers", "[0,-0,1.5e-7,1E+2,-9223372036854775808,9223372036854775807,9223372036854775808,1e-400]"),
      ("number-limits", "[1.7976931348623157e308,5e-324,0.30000000000000004,12345678901234567890123]"),
      ("literals", " [ true , false , null ] "),
      ("escapes", #"["\"\\\/\b\f\n\r\t","\u0000\u001f\u00e9\uD83D\uDE00\uFFFF"]"#),
      ("utf8", "{\"name\":\"Zoë Ångström 日本 🎉\",\"e\":\"\u{7F}\"}"),
      ("non-ascii-names", #"{"é":1,"\u00fc":{"ß":[]},"日本":null}"#),
      ("empty", #"{"":{},"a":[],"b":""}"#),
      ("scalar", #""just a string""#),
      ("depth-64", String(repeating: "[", count: 64) + String(repeating: "]", count: 64)),
      ("depth-64-in-object", "{\"a\":" + String(repeating: "[", count: 63) + String(repeating: "]", count: 63) + "}"),
    ]
    for (name, text) in json { corpus.addJSON("edge-\(name)", text.utf8) }

    // JWS headers FuzzJWS should reach: crit, b64, an unknown alg. The payload and signature are
    // empty or short; signatures cannot verify.
    let headers: [(String, String)] = [
      ("crit", #"{"alg":"ES256","crit":["exp"],"exp":1}"#),
      ("b64-false", #"{"alg":"ES256","b64":false,"crit":["b64"]}"#),
      ("alg-none", #"{"alg":"none"}"#),
      ("alg-hs256", #"{"alg":"HS256","kid":"kid-ec-sign"}"#),
    ]
    for (name, header) in headers {
      let token = Base64URL.encode(header.utf8) + "." + Base64URL.encode(#"{"sub":"alice"}"#.utf8) + ".AAAA"
      corpus.add("edge-header-\(name)", token.utf8, for: .jws)
    }

    // RFC 8693 §2.2.1 answers: an access token, an ID token (N_A) and Native SSO's with a new
    // device secret; the refusals next to them (no issued_token_type, an access token with N_A).
    let exchanges: [(String, String)] = [
      (
        "access-token",
        #"{"access_token":"eyJhbGciOiJFUzI1NiJ9.e30.sig-of-exchanged-access-token","issued_token_type":"urn:ietf:params:oauth:token-type:access_token","token_type":"Bearer","expires_in":300,"scope":"api"}"#
      ),
      (
        "native-sso",
        #"{"access_token":"an-access-token-of-the-sibling-app-0123456789","issued_token_type":"urn:ietf:params:oauth:token-type:access_token","token_type":"DPoP","expires_in":3600,"refresh_token":"a-refresh-token-of-the-sibling-0123456789","id_token":"eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJhbGljZSJ9.c2ln","device_secret":"a-rotated-device-secret-0123456789"}"#
      ),
      (
        "id-token-n-a",
        #"{"access_token":"eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJhbGljZSJ9.c2ln","issued_token_type":"urn:ietf:params:oauth:token-type:id_token","token_type":"N_A"}"#
      ),
      ("no-issued-type", #"{"access_token":"a","token_type":"Bearer"}"#),
      (
        "access-token-n-a",
        #"{"access_token":"a","issued_token_type":"urn:ietf:params:oauth:token-type:access_token","token_type":"N_A"}"#
      ),
      (
        "expires-in-huge",
        #"{"access_token":"a","issued_token_type":"urn:x-oath:params:oauth:token-type:device-secret","token_type":"n_a","expires_in":1e300}"#
      ),
    ]
    for (name, text) in exchanges { corpus.add("exchange-\(name)", text.utf8, for: .tokenExchangeResponse) }

    // Inputs that once stopped the process, kept as seeds (each also has a regression test).
    let regressions: [(String, String, Target)] = [
      // TokenResponseExpiryTests
      (
        "regression-expires-in-1e300", #"{"access_token":"a","token_type":"Bearer","expires_in":1e300}"#,
        .tokenResponse
      ),
      ("regression-expires-in-1e20", #"{"access_token":"a","token_type":"Bearer","expires_in":1e20}"#, .tokenResponse),
      // FuzzJSONDifferential's own check (the long run of 2026-12-02): a duplicate member whose first
      // value is out of range; Xid refuses the document at the number, Foundation keeps the last.
      ("regression-duplicate-after-huge-number", #"{"iat":1800000000,"ex:p":1e00800000000,"ex:p":1e0}"#, .differential),
    ]
    for (name, text, target) in regressions { corpus.add(name, text.utf8, for: target) }

    for (name, text) in familyRecordSeeds { corpus.add(name, text.utf8, for: .familyRecord) }
  }

  /// The family record seeds, also checked in under Fuzz/Corpus/FuzzFamilyRecord: a complete record
  /// and one with only the members every record has.
  static let familyRecordSeeds: [(String, String)] = [
    (
      "family-record-complete",
      #"{"format":1,"version":3,"family":"com.example.apps","issuer":"https://op.example","sub":"alice","sid":"sid-1","id_token":"eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJhbGljZSJ9.c2lnbmF0dXJlLW9mLXRoZS10b2tlbg","device_secret":"DS-0123456789abcdef0123456789abcdef","family_sign_in_id":"c2lnbi1pbi1pZA","client_id":"app-1","signed_in_at":1800000000.25,"name":"Alice Example","email":"alice@example.com","picture":"https://op.example/alice.png"}"#
    ),
    (
      "family-record-minimal",
      #"{"format":1,"version":1,"family":"f","issuer":"https://op.example","sub":"bob","id_token":"e.e.s","device_secret":"d","family_sign_in_id":"i","client_id":"c","signed_in_at":0}"#
    ),
  ]
}
