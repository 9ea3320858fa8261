/// A JWK Set (RFC 7517 §5) of prepared verification keys, as a provider's `jwks_uri` serves it.
///
/// Keys Xid cannot use (other key types or curves, `use: "enc"`, malformed or weak keys, keys with
/// private members) are skipped rather than failing the whole set, so one odd key in a provider's
/// set does not stop sign-in; ``skipped`` says which and why.
public struct JWKSet: Sendable {
  /// A key of the set that was left out, and why.
  public struct SkippedKey: Sendable, Hashable {
    /// The key's position in the set's `keys` array.
    public let index: Int
    /// The key's `kid`, when it had a string one.
    public let keyID: String?
    /// Why Xid cannot use it.
    public let error: XidError
    /// For an RSA key left out because its modulus is shorter than the 2048 bits RFC 7518 §3.3
    /// requires, its size in bits; `nil` for every other key.
    public let shortRSAModulusBits: Int?
  }

  /// The keys Xid can verify with, in the order the set lists them.
  public let keys: [JWSVerificationKey]
  /// The keys that were left out.
  public let skipped: [SkippedKey]

  /// Creates a set from prepared keys.
  public init(keys: [JWSVerificationKey]) {
    self.keys = keys
    self.skipped = []
  }

  /// Parses a JWK Set document and prepares each usable key.
  ///
  /// - Throws: ``XidError`` with ``XidError/Code/invalidJSON`` when the document is not a JSON object
  ///   with a `keys` array.
  public init(parsing bytes: some Collection<UInt8>) throws {
    guard let array = try JSONValue(parsing: bytes)["keys"]?.arrayValue else {
      throw XidError(.invalidJSON, "a JWK Set must be a JSON object with a \"keys\" array")
    }
    var keys: [JWSVerificationKey] = []
    var skipped: [SkippedKey] = []
    for (index, member) in array.enumerated() {
      do {
        let key = try JWSVerificationKey(json: member)
        if let use = key.jwk.use, use != "sig" {
          throw XidError(.unsupportedKey, "the key is for use \"\(use.prefix(16))\", not signatures")
        }
        keys.append(key)
      } catch let error as XidError {
        skipped.append(
          SkippedKey(
            index: index, keyID: member["kid"]?.stringValue, error: error,
            shortRSAModulusBits: RSAKeyCheck.shortModulusBits(of: member, refusedWith: error)))
      }
    }
    self.keys = keys
    self.skipped = skipped
  }

  /// The keys that may verify a JWS of `algorithm` naming `keyID`.
  ///
  /// - Throws: ``XidError/Code/invalidKey`` when the only key that would fit is an RSA key shorter than
  ///   2048 bits (RFC 7518 §3.3), which the set left out; ``XidError/Code/noMatchingKey`` when none
  ///   fits, or when a `kid` names several keys that fit (an ambiguous set is refused rather than
  ///   guessed at).
  public func candidates(keyID: String?, algorithm: JWSAlgorithm) throws -> [JWSVerificationKey] {
    guard let keyID else {
      let fitting = keys.filter { $0.permitsVerification(with: algorithm) }
      guard !fitting.isEmpty else {
        if let error = shortKeyError(keyID: nil, algorithm: algorithm) { throw error }
        throw XidError(.noMatchingKey, "the key set has no key for \(algorithm) (the token names no kid)")
      }
      return fitting
    }
    return [try candidate(keyID: keyID, algorithm: algorithm)]
  }

  /// The one key with `keyID` that fits `algorithm`: ``candidates(keyID:algorithm:)`` for a token that
  /// names its key, without an array.
  func candidate(keyID: String, algorithm: JWSAlgorithm) throws -> JWSVerificationKey {
    var named: JWSVerificationKey?
    for key in keys where key.keyID == keyID && key.permitsVerification(with: algorithm) {
      guard named == nil else {
        let count = keys.filter { $0.keyID == keyID && $0.permitsVerification(with: algorithm) }.count
        throw XidError(
          .noMatchingKey,
          "the key set has \(count) \(algorithm) keys with kid \"\(keyID.prefix(64))\"; refusing to guess")
      }
      named = key
    }
    guard let named else {
      if let error = shortKeyError(keyID: keyID, algorithm: algorithm) { throw error }
      throw XidError(.noMatchingKey, "the key set has no \(algorithm) key with the token's kid \"\(keyID.prefix(64))\"")
    }
    return named
  }

  /// The error for a JWS of `algorithm` naming `keyID` (or, with `nil`, naming no key) that no key of
  /// the set fits because the key it is signed with is an RSA key shorter than 2048 bits, which the set
  /// left out (RFC 7518 §3.3); `nil` when that is not why.
  ///
  /// The reason names the key's `kid` and size, never its material.
  package func shortKeyError(keyID: String?, algorithm: JWSAlgorithm) -> XidError? {
    guard algorithm.keyType == .rsa,
      let short = skipped.first(where: { $0.shortRSAModulusBits != nil && (keyID == nil || $0.keyID == keyID) }),
      let bits = short.shortRSAModulusBits
    else { return nil }
    let name = short.keyID.map { " \"\($0.prefix(64))\"" } ?? ""
    let which =
      keyID == nil
      ? "the token names no kid, and the provider's only \(algorithm) key\(name) is an RSA key of \(bits) bits"
      : "the token names the provider's \(algorithm) key\(name), an RSA key of \(bits) bits"
    return XidError(
      .invalidKey,
      "\(which): too short to be trusted, since RFC 7518 §3.3 requires \(RSAKeyCheck.minimumModulusBits) bits or more. Xid refuses it, and retrying does not help: the provider must sign with a longer key"
    )
  }
}
