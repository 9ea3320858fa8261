import XidCore

/// The provider's signing keys: the current one, the ones its JWKS publishes, and every one it has
/// signed with (to recognize its own ID tokens as `id_token_hint` after a rotation).
struct KeyRing {
  /// The key that signs new ID tokens.
  private(set) var current: JWSSigningKey
  /// The keys the JWKS lists, the current one first.
  private(set) var published: [JWSSigningKey]
  /// Every key that has been current.
  private(set) var signers: [JWSSigningKey]

  init(algorithm: JWSAlgorithm) throws {
    current = try JWSSigningKey.generate(for: algorithm)
    published = [current]
    signers = [current]
  }

  /// Makes a new key current; the old ones stay published only when `keepingPrevious`.
  mutating func rotate(to algorithm: JWSAlgorithm, keepingPrevious: Bool) throws {
    let key = try JWSSigningKey.generate(for: algorithm)
    current = key
    published = keepingPrevious ? [key] + published : [key]
    signers.append(key)
  }

  /// Publishes the current key alone.
  mutating func publishOnlyCurrent() { published = [current] }

  /// Publishes a key that never signs, of the current key's algorithm, unless the JWKS already has
  /// several keys of that algorithm.
  mutating func publishDecoyIfAlone() throws {
    guard published.filter({ $0.algorithm == current.algorithm }).count < 2 else { return }
    published.append(try JWSSigningKey.generate(for: current.algorithm))
  }

  /// The JWK Set document.
  var jwks: JSONValue { ["keys": .array(published.map { .object($0.publicJWK.members) })] }

  /// The algorithms of the published keys, the current one's first.
  var algorithms: [JWSAlgorithm] {
    var seen = Set<JWSAlgorithm>()
    return published.map(\.algorithm).filter { seen.insert($0).inserted }
  }

  /// Every key the provider has signed with, ready to verify.
  func signerKeySet() throws -> JWKSet { JWKSet(keys: try signers.map { try $0.verificationKey() }) }
}
