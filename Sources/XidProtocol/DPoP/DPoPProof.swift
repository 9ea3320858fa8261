import Foundation

/// DPoP proofs (RFC 9449 §4): the JWT a client sends in the `DPoP` header of each request, signed
/// with the session's key, that proves it holds the key its tokens are bound to.
///
/// Xid makes them itself for every request it sends. Use ``make(key:method:url:accessToken:nonce:issuedAt:)``
/// directly only to test a server; for requests an app sends with its own networking, ask
/// `Xid.authorizationHeaders(method:url:)` for both headers.
///
/// A proof has:
/// - the header `typ: "dpop+jwt"`, `alg: "ES256"` and `jwk`, the public key only (`kty`, `crv`, `x`,
///   `y`);
/// - the claims `jti` (128 random bits from the platform's CSPRNG, base64url), `htm` (the method), `htu` (the URL without query
///   and fragment, with `/` for an empty path as RFC 9449 §4.3 normalizes it, otherwise exactly as
///   sent, since servers compare bytes), `iat` (whole seconds,
///   rounded down so it is never ahead of the clock), `ath` (the base64url SHA-256 of the access
///   token, toward resource servers) and `nonce` (when the server gave one).
public enum DPoPProof {
  /// The `typ` of a proof's header.
  public static let type = "dpop+jwt"

  /// How far before the current time a proof is dated, in seconds: its `iat` is the second before
  /// the current one.
  ///
  /// Servers refuse a proof issued in the future, some with no leeway at all (glewlwyd, by default),
  /// and a server's clock can lag the device's by a little: glewlwyd reads its clock with `time()`,
  /// the kernel's coarse clock, a few milliseconds behind the one `Date()` reads on the same machine,
  /// so a proof made just after a second began was refused. A second is small beside the time a
  /// server accepts a proof for (RFC 9449 §11.1 leaves the window to the server; glewlwyd's is 60 s
  /// in Xid's interop set-up).
  public static let issuedAtMargin: TimeInterval = 1

  /// Makes a proof for one request.
  ///
  /// - Parameters:
  ///   - key: the key the tokens are bound to.
  ///   - method: the request's method (`htm`), for example `"GET"`.
  ///   - url: the request's URL; its query and fragment are left out of `htu`, and an empty path is
  ///     sent as `/` (see ``targetURI(of:)``).
  ///   - accessToken: the access token the request carries, for a resource server (`ath`); `nil` at the
  ///     token endpoint.
  ///   - nonce: the server's latest `DPoP-Nonce`, when it gave one.
  ///   - issuedAt: the time of `iat`, rounded down to the second; by default ``issuedAtMargin``
  ///     before now.
  /// - Throws: ``XidError`` with ``XidError/Code/cryptoFailure`` when no random bytes or signature can
  ///   be made.
  public static func make(
    key: any DPoPKey, method: String, url: URL, accessToken: String? = nil, nonce: String? = nil,
    issuedAt: Date = Date(timeIntervalSinceNow: -issuedAtMargin)
  ) throws -> String {
    try make(
      encodedHeader: cachedHeader(for: key), sign: key.sign, method: method, url: url,
      accessToken: accessToken.map { .token($0) }, nonce: nonce, issuedAt: issuedAt)
  }

  /// The `ath` of a proof: the access token, hashed while the claims are written, or its hash
  /// already computed (a session computes it once per token).
  enum AccessTokenClaim {
    case token(String)
    case hash(String)
  }

  /// The header of the last key ``make(key:method:url:accessToken:nonce:issuedAt:)`` was called with:
  /// apps have one key at a time.
  private static let lastHeader = LockedValue<(thumbprint: String, header: String)?>(nil)

  private static func cachedHeader(for key: any DPoPKey) -> String {
    let thumbprint = key.thumbprint
    if let last = lastHeader.get(), last.thumbprint == thumbprint { return last.header }
    let header = encodedHeader(for: key.publicJWK)
    lastHeader.set((thumbprint, header))
    return header
  }

  /// The `htu` of a request to `url`: the URL as sent, without its query and fragment, and with `/`
  /// for an empty path.
  ///
  /// RFC 9449 §4.3 has servers compare `htu` after RFC 3986 §6.2.3 normalization, where an empty path
  /// is `/`, and an HTTP request to such a URL asks for `/` (RFC 9110 §4.2.3). That is the one
  /// normalization made here; everything else stays byte for byte as sent, since servers compare
  /// bytes.
  public static func targetURI(of url: URL) -> String {
    var text = url.absoluteString
    let (end, emptyPath) = text.withUTF8(targetExtent)
    guard end < text.utf8.count || emptyPath else { return text }
    let target = String(text.utf8.prefix(end))!
    return emptyPath ? target + "/" : target
  }

  /// Where the `htu` of the URL whose absolute string is `bytes` ends (where its query or fragment
  /// starts), and whether its path is empty (`scheme://authority` with no `/` after the authority),
  /// found in one pass: a proof is made for every request.
  private static func targetExtent(_ bytes: UnsafeBufferPointer<UInt8>) -> (end: Int, emptyPath: Bool) {
    var end = bytes.count
    var colon: Int?
    var slashes = 0
    var index = 0
    while index < bytes.count {
      let byte = bytes[index]
      if byte == UInt8(ascii: "?") || byte == UInt8(ascii: "#") {
        end = index
        break
      }
      if colon == nil {
        if byte == UInt8(ascii: ":") { colon = index }
      } else if byte == UInt8(ascii: "/") {
        slashes += 1
      }
      index += 1
    }
    // The authority follows "//"; a path starts with a third "/".
    guard let colon, end - colon >= 3, bytes[colon + 1] == UInt8(ascii: "/"), bytes[colon + 2] == UInt8(ascii: "/")
    else { return (end, false) }
    return (end, slashes == 2)
  }

  /// Appends the `htu` of `url` (see ``targetURI(of:)``) to a proof's claims as a JSON string,
  /// straight from the URL's bytes.
  private static func appendTargetURI(of url: URL, to json: inout [UInt8]) {
    var text = url.absoluteString
    text.withUTF8 { bytes in
      let (end, emptyPath) = targetExtent(bytes)
      let target = UnsafeBufferPointer(rebasing: bytes[..<end])
      if !emptyPath && JSONText.isPlainString(target) {
        appendQuoted(target, to: &json)
        return
      }
      appendJSONString(String(decoding: target, as: UTF8.self) + (emptyPath ? "/" : ""), to: &json)
    }
  }

  /// The `ath` for `accessToken`: the base64url SHA-256 of its ASCII bytes.
  public static func accessTokenHash(_ accessToken: String) -> String {
    withAccessTokenDigest(accessToken) { Base64URL.encode($0) }
  }

  /// Runs `body` with the SHA-256 of `accessToken`'s ASCII bytes, on the stack.
  private static func withAccessTokenDigest<R>(_ accessToken: String, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
    var token = accessToken  // native and contiguous: withUTF8 copies nothing
    return token.withUTF8 { utf8 in
      withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 32) { digest in
        XidCrypto.sha256(UnsafeRawBufferPointer(utf8), into: digest.baseAddress!)
        return body(UnsafeBufferPointer(digest))
      }
    }
  }

  // MARK: - Assembly

  /// The public members of a P-256 JWK, and nothing else: `kty`, `crv`, `x` and `y`.
  ///
  /// - Throws: ``XidError`` with ``XidError/Code/unsupportedKey`` for a key that is not P-256.
  static func publicJWK(of jwk: JWK) throws -> JWK {
    guard jwk.keyType == .ec, jwk.members["crv"]?.stringValue == "P-256" else {
      throw XidError(.unsupportedKey, "a DPoP key must be an EC P-256 key (ES256)")
    }
    var members: [String: JSONValue] = [:]
    for name in ["kty", "crv", "x", "y"] { members[name] = jwk.members[name] }
    return try JWK(json: .object(members))
  }

  /// The base64url of a proof's header for the key `jwk`: the same for every proof of a key, so
  /// callers that send many proofs compute it once. Members in lexicographic order, no whitespace.
  static func encodedHeader(for jwk: JWK) -> String {
    var json = Array(#"{"alg":"ES256","jwk":{"crv":"P-256","kty":"EC","x":"#.utf8)
    appendJSONString(jwk.members["x"]?.stringValue ?? "", to: &json)
    json.append(contentsOf: #","y":"#.utf8)
    appendJSONString(jwk.members["y"]?.stringValue ?? "", to: &json)
    json.append(contentsOf: #"},"typ":"dpop+jwt"}"#.utf8)
    return Base64URL.encode(json)
  }

  /// A proof with a header already encoded (see ``encodedHeader(for:)``) and, toward a resource, the
  /// access token's hash already computed.
  ///
  /// A proof is made for every request, so it is assembled in byte buffers: the claims' JSON written
  /// directly, then the JWS (header, claims, then the signature of what precedes it).
  static func make(
    encodedHeader: String, sign: ([UInt8]) throws -> [UInt8], method: String, url: URL,
    accessToken: AccessTokenClaim?, nonce: String?, issuedAt: Date
  ) throws -> String {
    var claims = [UInt8]()
    claims.reserveCapacity(256 + (nonce?.utf8.count ?? 0))
    appendASCII(#"{"jti":""#, to: &claims)
    try DPoPJTI.append(to: &claims)
    appendASCII(#"","htm":"#, to: &claims)
    appendJSONString(method, to: &claims)
    appendASCII(#","htu":"#, to: &claims)
    appendTargetURI(of: url, to: &claims)
    appendASCII(#","iat":"#, to: &claims)
    appendASCII(String(Int64(issuedAt.timeIntervalSince1970.rounded(.down))), to: &claims)
    switch accessToken {
    case .token(let token):
      appendASCII(#","ath":""#, to: &claims)
      withAccessTokenDigest(token) { Base64URL.append($0, to: &claims) }
      claims.append(UInt8(ascii: "\""))
    case .hash(let hash):
      appendASCII(#","ath":"#, to: &claims)
      appendJSONString(hash, to: &claims)
    case nil:
      break
    }
    if let nonce {
      appendASCII(#","nonce":"#, to: &claims)
      appendJSONString(nonce, to: &claims)
    }
    claims.append(UInt8(ascii: "}"))
    // The signing input, with room for the rest: a dot and the 86 characters of an ES256
    // signature (more for a key that signs longer, which then grows the buffer once).
    var jws = [UInt8]()
    jws.reserveCapacity(encodedHeader.utf8.count + claims.count * 4 / 3 + 92)
    appendASCII(encodedHeader, to: &jws)
    jws.append(UInt8(ascii: "."))
    claims.withUnsafeBufferPointer { Base64URL.append($0, to: &jws) }
    let signature = try sign(jws)
    jws.append(UInt8(ascii: "."))
    signature.withUnsafeBufferPointer { Base64URL.append($0, to: &jws) }
    return String(decoding: jws, as: UTF8.self)
  }

  /// Appends the UTF-8 of `text`, which needs no escaping where it goes (a literal, a number, a
  /// base64url header), as one copy of its bytes.
  private static func appendASCII(_ text: String, to json: inout [UInt8]) {
    var text = text  // native and contiguous (or small): withUTF8 copies nothing on the heap
    text.withUTF8 { json.append(contentsOf: $0) }
  }

  /// Appends `bytes` between quotes.
  private static func appendQuoted(_ bytes: UnsafeBufferPointer<UInt8>, to json: inout [UInt8]) {
    json.append(UInt8(ascii: "\""))
    json.append(contentsOf: bytes)
    json.append(UInt8(ascii: "\""))
  }

  /// Appends `text` as a JSON string: as it is between quotes when it has nothing to escape (the
  /// usual case: base64url, methods, URLs), through ``JSONValue`` otherwise.
  private static func appendJSONString(_ text: String, to json: inout [UInt8]) {
    var text = text
    let plain = text.withUTF8 { bytes in
      guard JSONText.isPlainString(bytes) else { return false }
      appendQuoted(bytes, to: &json)
      return true
    }
    if !plain { appendASCII(JSONValue.string(text).serialized(), to: &json) }
  }

}
