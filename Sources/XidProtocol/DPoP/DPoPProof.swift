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
      accessTokenHash: accessToken.map(accessTokenHash), nonce: nonce, issuedAt: issuedAt)
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
    // One pass over the bytes (a proof is made for every request): where the query or fragment
    // starts, and whether the path is empty (`scheme://authority` with no `/` after the authority).
    let (end, emptyPath) = text.withUTF8 { bytes -> (Int, Bool) in
      var end = bytes.count
      var colon: Int?
      var slashes = 0
      for index in bytes.indices {
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
      }
      // The authority follows "//"; a path starts with a third "/".
      guard let colon, end - colon >= 3, bytes[colon + 1] == UInt8(ascii: "/"), bytes[colon + 2] == UInt8(ascii: "/")
      else { return (end, false) }
      return (end, slashes == 2)
    }
    guard end < text.utf8.count || emptyPath else { return text }
    let target = String(text.utf8.prefix(end))!
    return emptyPath ? target + "/" : target
  }

  /// The `ath` for `accessToken`: the base64url SHA-256 of its ASCII bytes.
  public static func accessTokenHash(_ accessToken: String) -> String {
    var token = accessToken  // native and contiguous: withUTF8 copies nothing
    return Base64URL.encode(token.withUTF8 { XidCrypto.sha256($0) })
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
    encodedHeader: String, sign: ([UInt8]) throws -> [UInt8], method: String, url: URL, accessTokenHash: String?,
    nonce: String?, issuedAt: Date
  ) throws -> String {
    var claims = [UInt8]()
    claims.reserveCapacity(256 + (nonce?.utf8.count ?? 0))
    claims.append(contentsOf: #"{"jti":""#.utf8)
    try DPoPJTI.append(to: &claims)
    claims.append(contentsOf: #"","htm":"#.utf8)
    appendJSONString(method, to: &claims)
    claims.append(contentsOf: #","htu":"#.utf8)
    appendJSONString(targetURI(of: url), to: &claims)
    claims.append(contentsOf: #","iat":"#.utf8)
    claims.append(contentsOf: String(Int64(issuedAt.timeIntervalSince1970.rounded(.down))).utf8)
    if let accessTokenHash {
      claims.append(contentsOf: #","ath":""#.utf8)
      claims.append(contentsOf: accessTokenHash.utf8)
      claims.append(UInt8(ascii: "\""))
    }
    if let nonce {
      claims.append(contentsOf: #","nonce":"#.utf8)
      appendJSONString(nonce, to: &claims)
    }
    claims.append(UInt8(ascii: "}"))
    var jws = [UInt8]()
    jws.reserveCapacity(encodedHeader.utf8.count + claims.count * 4 / 3 + 92)
    jws.append(contentsOf: encodedHeader.utf8)
    jws.append(UInt8(ascii: "."))
    claims.withUnsafeBufferPointer { Base64URL.append($0, to: &jws) }
    let signature = try sign(jws)
    jws.append(UInt8(ascii: "."))
    signature.withUnsafeBufferPointer { Base64URL.append($0, to: &jws) }
    return String(decoding: jws, as: UTF8.self)
  }

  /// Appends `text` as a JSON string: as it is between quotes when it has nothing to escape (the
  /// usual case: base64url, methods, URLs), through ``JSONValue`` otherwise.
  private static func appendJSONString(_ text: String, to json: inout [UInt8]) {
    if text.utf8.allSatisfy({ $0 >= 0x20 && $0 != 0x22 && $0 != 0x5C && $0 != 0x7F }) {
      json.append(UInt8(ascii: "\""))
      json.append(contentsOf: text.utf8)
      json.append(UInt8(ascii: "\""))
    } else {
      json.append(contentsOf: JSONValue.string(text).serialized().utf8)
    }
  }
}
