#if canImport(Darwin)
  import Darwin
#elseif canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// A JWS in compact serialization (RFC 7515 §7.1): `header.payload.signature`, each part base64url.
///
/// Parsing checks the structure only; nothing in it is trusted until ``verify(with:allowedAlgorithms:)``
/// or ``verify(using:allowedAlgorithms:)`` succeeds.
///
/// ```swift
/// let jws = try CompactJWS(parsing: token)
/// let key = try jws.verify(using: jwks, allowedAlgorithms: [.es256, .rs256])
/// ```
public struct CompactJWS: Sendable, CustomStringConvertible, CustomReflectable {
  /// The largest compact JWS Xid parses: 64 KiB. Larger input fails before any decoding.
  public static let maximumSize = 64 * 1024

  /// The protected header.
  public let header: JWSHeader
  /// The decoded payload.
  public let payload: [UInt8]
  /// The decoded signature.
  let signature: [UInt8]
  /// The compact serialization as received.
  private let text: String
  /// How many of its bytes the signature covers: `header.payload`, as transmitted.
  private let signingInputLength: Int

  /// Parses a compact JWS.
  ///
  /// - Throws: ``XidError`` with ``XidError/Code/inputTooLarge`` above ``maximumSize``,
  ///   ``XidError/Code/malformedJWS`` when it is not three base64url parts with a JSON-object header,
  ///   and ``XidError/Code/unsupportedJWSFeature`` for `crit` members Xid does not understand or
  ///   `b64: false`.
  public init(parsing compact: String) throws {
    var text = compact
    guard text.utf8.count <= Self.maximumSize else {
      throw XidError(.inputTooLarge, "JWS of \(text.utf8.count) bytes exceeds the \(Self.maximumSize)-byte limit")
    }
    let (header, payload, signature, signingInputLength) = try text.withUTF8 { try Self.parse($0) }
    self.header = header
    self.payload = payload
    self.signature = signature
    self.text = text
    self.signingInputLength = signingInputLength
  }

  private static func parse(
    _ utf8: UnsafeBufferPointer<UInt8>
  ) throws -> (header: JWSHeader, payload: [UInt8], signature: [UInt8], signingInputLength: Int) {
    guard let firstDot = Self.dot(in: utf8, from: 0), let secondDot = Self.dot(in: utf8, from: firstDot + 1),
      Self.dot(in: utf8, from: secondDot + 1) == nil
    else {
      throw XidError(.malformedJWS, "a compact JWS must have exactly three parts separated by '.'")
    }
    // Decoded on the stack, then copied into an array of the exact size: allocating an array
    // uninitialized and filling it calls into the runtime for its type's metadata on every token,
    // which costs more than the copy. `Base64URL.decode(_:)` keeps its one allocation: what it
    // decodes may be key material (a JWK's `d`), of which no copy should stay on the stack.
    func decode(_ range: Range<Int>, _ part: String) throws -> [UInt8] {
      do {
        let text = UnsafeBufferPointer(rebasing: utf8[range])
        return try withUnsafeTemporaryAllocation(of: UInt8.self, capacity: Base64URL.decodedCount(text.count)) {
          let count = try Base64URL.decode(text, into: $0)
          return Array(UnsafeBufferPointer(rebasing: $0[..<count]))
        }
      } catch {
        throw XidError(.malformedJWS, "the JWS \(part) is not valid base64url")
      }
    }
    let headerBytes = try decode(0..<firstDot, "header")
    let header = try JWSHeader(json: headerBytes)
    let payload = try decode((firstDot + 1)..<secondDot, "payload")
    let signature = try decode((secondDot + 1)..<utf8.count, "signature")
    return (header, payload, signature, secondDot)
  }

  /// The index of the first `.` at or after `start`: libc's `memchr`, which reads many bytes at a
  /// time (a byte-by-byte scan of a 1 KB token cost a tenth of parsing it).
  private static func dot(in utf8: UnsafeBufferPointer<UInt8>, from start: Int) -> Int? {
    guard let base = utf8.baseAddress, start < utf8.count,
      let found = memchr(base + start, Int32(UInt8(ascii: ".")), utf8.count - start)
    else { return nil }
    return UnsafeRawPointer(found) - UnsafeRawPointer(base)
  }

  /// Verifies the signature with one key.
  ///
  /// The algorithm comes from the header, but it must be one of `allowedAlgorithms` and must fit the
  /// key: its type, and its own `alg`, `use` and `key_ops` when it has them.
  ///
  /// - Returns: the algorithm that verified.
  /// - Throws: ``XidError`` with ``XidError/Code/algorithmNotAllowed`` or
  ///   ``XidError/Code/invalidSignature``.
  @discardableResult
  public func verify(with key: JWSVerificationKey, allowedAlgorithms: Set<JWSAlgorithm>) throws -> JWSAlgorithm {
    let algorithm = try header.algorithm(allowedBy: allowedAlgorithms)
    guard key.permitsVerification(with: algorithm) else {
      throw XidError(.algorithmNotAllowed, "the key \(key.jwk) cannot verify \(algorithm) signatures")
    }
    guard isSigned(by: key, algorithm: algorithm) else {
      throw XidError(.invalidSignature, "the \(algorithm) signature does not verify with the key \(key.jwk)")
    }
    return algorithm
  }

  /// Verifies the signature with the key of `keySet` that the header names.
  ///
  /// With a `kid`, exactly one key with that `kid` must fit the algorithm; without one, each fitting
  /// key is tried in turn.
  ///
  /// - Returns: the key that verified.
  /// - Throws: ``XidError`` with ``XidError/Code/noMatchingKey`` when no key (or more than one key
  ///   with the same `kid`) fits, and otherwise as ``verify(with:allowedAlgorithms:)``.
  @discardableResult
  public func verify(using keySet: JWKSet, allowedAlgorithms: Set<JWSAlgorithm>) throws -> JWSVerificationKey {
    let algorithm = try header.algorithm(allowedBy: allowedAlgorithms)
    if let keyID = header.keyID {
      let key = try keySet.candidate(keyID: keyID, algorithm: algorithm)
      guard isSigned(by: key, algorithm: algorithm) else {
        throw XidError(.invalidSignature, "the \(algorithm) signature does not verify with the key that fit")
      }
      return key
    }
    let candidates = try keySet.candidates(keyID: nil, algorithm: algorithm)
    for key in candidates where isSigned(by: key, algorithm: algorithm) { return key }
    throw XidError(
      .invalidSignature,
      "the \(algorithm) signature does not verify with \(candidates.count == 1 ? "the key" : "any of the \(candidates.count) keys") that fit"
    )
  }

  private func isSigned(by key: JWSVerificationKey, algorithm: JWSAlgorithm) -> Bool {
    var text = self.text  // native and contiguous: withUTF8 copies nothing
    return text.withUTF8 { utf8 in
      signature.withUnsafeBytes { signature in
        let message = UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: utf8[..<signingInputLength]))
        return key.platformKey.isValidSignature(signature, for: message, algorithm: algorithm)
      }
    }
  }

  /// `CompactJWS(alg: …, kid: …)`; never the payload or the signature.
  public var description: String {
    "CompactJWS(alg: \(header.algorithm.prefix(16)), kid: \(header.keyID.map { "\"\($0.prefix(64))\"" } ?? "none"))"
  }

  /// The header's algorithm, key ID and type, and the payload's size, so that `dump` shows neither the
  /// token (often a bearer credential) nor its payload or signature.
  public var customMirror: Mirror {
    Mirror(
      self,
      children: [
        "algorithm": String(header.algorithm.prefix(16)), "keyID": header.keyID.map { String($0.prefix(64)) } as Any,
        "type": header.type.map { String($0.prefix(64)) } as Any, "payloadBytes": payload.count,
      ])
  }
}
