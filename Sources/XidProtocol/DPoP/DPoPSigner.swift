import Foundation

/// A DPoP key with the encoded header of its proofs, which is the same for every proof.
package struct PreparedDPoPKey: Sendable, CustomStringConvertible, CustomReflectable {
  package let key: any DPoPKey
  /// Whether the key signs only with the user's confirmation (``UserPresenceDPoPKey``), found once.
  package let needsUser: Bool
  let encodedHeader: String
  /// The `ath` of the last access token this key made a proof for: a session sends the same token
  /// until it is refreshed. It goes with the key (at sign-out, when the key is forgotten).
  private let lastTokenHash = LockedValue<(token: String, hash: String)?>(nil)

  package init(_ key: any DPoPKey) {
    self.key = key
    self.needsUser = key is any UserPresenceDPoPKey
    self.encodedHeader = DPoPProof.encodedHeader(for: key.publicJWK)
  }

  /// The `ath` of `accessToken`, computed once per token.
  func accessTokenHash(_ accessToken: String) -> String {
    if let last = lastTokenHash.get(), last.token == accessToken { return last.hash }
    let hash = DPoPProof.accessTokenHash(accessToken)
    lastTokenHash.set((accessToken, hash))
    return hash
  }

  package var thumbprint: String { key.thumbprint }

  /// The key's description; never its material.
  package var description: String { key.description }

  /// The thumbprint only, so that `dump` shows no key material.
  package var customMirror: Mirror { Mirror(self, children: ["thumbprint": thumbprint]) }

  /// A proof for one request sent at `now`, dated ``DPoPProof/issuedAtMargin`` earlier; see
  /// ``DPoPProof``.
  package func proof(method: String, url: URL, accessToken: String?, nonce: String?, now: Date) throws -> String {
    try DPoPProof.make(
      encodedHeader: encodedHeader, sign: key.sign, method: method, url: url,
      accessToken: accessToken.map { .hash(accessTokenHash($0)) }, nonce: nonce,
      issuedAt: now.addingTimeInterval(-DPoPProof.issuedAtMargin))
  }
}

/// What signs the proofs of one session's requests: its key, the nonces servers gave, and the clock.
struct DPoPSigner: Sendable, CustomReflectable {
  let key: PreparedDPoPKey
  let nonces: DPoPNonceCache
  let clock: any XidClock

  /// A proof for a request to `url`, with the origin's latest nonce.
  func proof(method: String, url: URL, accessToken: String? = nil) throws -> String {
    try key.proof(method: method, url: url, accessToken: accessToken, nonce: nonces.nonce(for: url), now: clock.now)
  }

  /// The key's thumbprint only.
  var customMirror: Mirror { Mirror(self, children: ["key": key.thumbprint]) }
}
