import Foundation

/// A provider's JWK Set (`jwks_uri`), fetched when first needed and again when the provider has
/// rotated its keys.
///
/// A token is verified with the key its `kid` names; without a `kid`, with the one key that fits its
/// algorithm, or each fitting key in turn. When no key fits (an unknown `kid`: the provider has
/// rotated), or a token without `kid` verifies with none of the keys, the set is fetched once more
/// and the token tried again, then verification fails
/// with ``XidError/Code/unknownSigningKey``. Such refetches happen at most once per
/// ``minimumRefetchInterval``, so tokens naming made-up keys cannot make Xid hammer the provider; the
/// first one is always allowed, even right after the set was loaded, so a rotation just before a
/// sign-in never fails it. The set is also fetched again when older than
/// ``maximumAge``, so that keys the provider withdrew stop being trusted. A token whose key the set
/// left out as an RSA key shorter than 2048 bits (RFC 7518 §3.3) fails with
/// ``XidError/Code/invalidKey`` naming the key's `kid`, at once when its `kid` names it: that is no
/// rotation.
package actor JWKSCache {
  /// The JWK Set URL.
  package nonisolated let url: URL
  /// The shortest time between two fetches triggered by unknown keys.
  package nonisolated let minimumRefetchInterval: Duration
  /// How long a fetched set is used before it is fetched again regardless.
  package nonisolated let maximumAge: Duration
  private let http: ProtocolHTTP
  private let clock: any XidClock
  private var current: (keys: JWKSet, fetchedAt: Date)?
  /// When a token last made the set be fetched again.
  private var lastRefetch: Date?
  private var inFlight: Task<JWKSet, any Error>?
  /// How many times the set has been fetched (including failed attempts), for diagnostics.
  package private(set) var fetchCount = 0

  /// Creates a cache for the JWK Set at `url`.
  ///
  /// - Parameters:
  ///   - url: the provider's `jwks_uri`.
  ///   - transport: the HTTP transport.
  ///   - clock: the clock for the refetch limit and the maximum age.
  ///   - minimumRefetchInterval: at most one fetch for unknown keys per this interval; a minute by default.
  ///   - maximumAge: how long a set is used before it is fetched again; one day by default.
  package init(
    url: URL, transport: any HTTPTransport, clock: any XidClock = SystemClock(),
    minimumRefetchInterval: Duration = .seconds(60),
    maximumAge: Duration = .seconds(86_400)
  ) {
    self.url = url
    self.http = ProtocolHTTP(transport: transport)
    self.clock = clock
    self.minimumRefetchInterval = minimumRefetchInterval
    self.maximumAge = maximumAge
  }

  /// The current key set, fetched if there is none yet or it is older than ``maximumAge``.
  ///
  /// - Throws: ``XidError/Code/keySetUnavailable`` (with the HTTP status when the server answered),
  ///   and what any request to the provider throws (``XidError/Code/networkFailure``, …).
  package func keySet() async throws -> JWKSet {
    if let current, clock.now.timeIntervalSince(current.fetchedAt) < maximumAge.timeInterval { return current.keys }
    return try await fetch()
  }

  /// Verifies the signature of `jws` with the fitting key, fetching the set again (within the rate
  /// limit) when the provider seems to have rotated its keys.
  ///
  /// - Parameter allowedAlgorithms: the algorithms accepted; the header's `alg` must be one of them.
  /// - Returns: the key that verified.
  /// - Throws: ``XidError`` with ``XidError/Code/algorithmNotAllowed`` (no fetch is made for those),
  ///   ``XidError/Code/invalidSignature`` when the key the `kid` names (or every fitting key, after a
  ///   refetch) does not verify, ``XidError/Code/noMatchingKey`` when the set has several keys with
  ///   the token's `kid`, ``XidError/Code/invalidKey`` when the token's key is an RSA key shorter
  ///   than 2048 bits (RFC 7518 §3.3; the reason names its `kid`, and no fetch is made for a `kid`
  ///   that names one), ``XidError/Code/unknownSigningKey`` when no key fits even after a refetch
  ///   (or a refetch is not allowed yet), and the errors of ``keySet()``.
  @discardableResult
  package func verify(_ jws: CompactJWS, allowedAlgorithms: Set<JWSAlgorithm>) async throws -> JWSVerificationKey {
    let algorithm = try jws.header.algorithm(allowedBy: allowedAlgorithms)
    let first = try await keySet()
    let firstResult = try Self.attempt(jws, algorithm: algorithm, in: first)
    if case .verified(let key) = firstResult { return key }
    if let lastRefetch, clock.now.timeIntervalSince(lastRefetch) < minimumRefetchInterval.timeInterval {
      throw firstResult.error(algorithm: algorithm, keyID: jws.header.keyID, refetched: false)
    }
    lastRefetch = clock.now
    let second = try await fetch()
    let secondResult = try Self.attempt(jws, algorithm: algorithm, in: second)
    if case .verified(let key) = secondResult { return key }
    throw secondResult.error(algorithm: algorithm, keyID: jws.header.keyID, refetched: true)
  }

  /// What trying a key set gave.
  private enum Attempt {
    case verified(JWSVerificationKey)
    /// No key fits the algorithm (and the `kid`, when there is one).
    case noFittingKey
    /// Keys fit a token without `kid`, but none verified it.
    case noKeyVerified(candidates: Int)
    /// No key fits a token without `kid`, and the set left out an RSA key of the algorithm for being
    /// shorter than 2048 bits: the error says so.
    case onlyShortKey(XidError)

    func error(algorithm: JWSAlgorithm, keyID: String?, refetched: Bool) -> XidError {
      let when =
        refetched
        ? "even after fetching the provider's key set again"
        : "and the key set was fetched again for another token less than a minute ago, so not again yet"
      switch self {
      case .verified: return XidError(.unknownSigningKey, "unreachable")
      case .noFittingKey:
        let named = keyID.map { "with kid \"\(SafeText.short($0, limit: 64))\"" } ?? "(the token names no kid)"
        return XidError(
          .unknownSigningKey,
          "the provider's key set has no \(algorithm) key \(named) \(when); the provider may be rotating keys, try again in a minute"
        )
      case .onlyShortKey(let error):
        return error
      case .noKeyVerified(let candidates):
        return XidError(
          .invalidSignature,
          "the \(algorithm) signature of the token (which names no kid) verifies with none of the \(candidates) fitting keys \(when)"
        )
      }
    }
  }

  private static func attempt(_ jws: CompactJWS, algorithm: JWSAlgorithm, in set: JWKSet) throws -> Attempt {
    let fitting = set.keys.filter { $0.jwk.permitsVerification(with: algorithm) }
    if let keyID = jws.header.keyID {
      let named = fitting.filter { $0.keyID == keyID }
      guard !named.isEmpty else {
        // The named key exists but is too short: not a rotation either, so it fails at once.
        if let error = set.shortKeyError(keyID: keyID, algorithm: algorithm) { throw error }
        return .noFittingKey
      }
      guard named.count == 1 else {
        throw XidError(
          .noMatchingKey,
          "the provider's key set has \(named.count) \(algorithm) keys with kid \"\(SafeText.short(keyID, limit: 64))\"; refusing to guess"
        )
      }
      // The named key exists: a bad signature is a bad token, not a rotation, so it fails at once.
      try jws.verify(with: named[0], allowedAlgorithms: [algorithm])
      return .verified(named[0])
    }
    guard !fitting.isEmpty else {
      return set.shortKeyError(keyID: nil, algorithm: algorithm).map(Attempt.onlyShortKey) ?? .noFittingKey
    }
    for key in fitting where (try? jws.verify(with: key, allowedAlgorithms: [algorithm])) != nil {
      return .verified(key)
    }
    return .noKeyVerified(candidates: fitting.count)
  }

  /// Fetches the set, sharing a fetch already under way.
  private func fetch() async throws -> JWKSet {
    if let inFlight { return try await inFlight.value }
    fetchCount += 1
    let task = Task { [http, url] in try await Self.download(url: url, http: http) }
    inFlight = task
    defer { inFlight = nil }
    let keys = try await task.value
    current = (keys, clock.now)
    return keys
  }

  private static func download(url: URL, http: ProtocolHTTP) async throws -> JWKSet {
    let name = "JWK Set endpoint"
    let response = try await http.send(HTTPRequest(url: url), endpoint: name)
    guard response.isSuccess else {
      throw XidError(
        .keySetUnavailable, "the provider's key set could not be fetched: HTTP \(response.status)",
        httpStatus: response.status)
    }
    do {
      try ProtocolHTTP.requireJSONMediaType(response, endpoint: name)
      return try JWKSet(parsing: response.body)
    } catch let error as XidError {
      throw XidError(
        .keySetUnavailable, "the provider's key set is not usable: \(error.reason)", httpStatus: response.status)
    }
  }
}
