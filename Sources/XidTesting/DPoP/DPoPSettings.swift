import Foundation
import XidCore

extension TestProvider {
  /// How a ``TestProvider`` checks DPoP proofs (RFC 9449) and binds tokens to their keys.
  ///
  /// A request to the token endpoint that carries a valid proof gets tokens bound to the proof's key
  /// (`token_type: DPoP`); refresh tokens of public clients are bound too, so every refresh must prove
  /// the key. A bound access token is accepted at UserInfo and the protected resource only as
  /// `Authorization: DPoP` with a proof whose `ath` is its hash. The provider checks, as a strict
  /// server does: the signature with the header's `jwk` (public members only), `typ: dpop+jwt`, the
  /// algorithm, `jti`, `htm`, `htu` (the endpoint's URL, compared exactly), `iat` (never ahead of
  /// the provider's clock by more than ``futureLeeway``, never older than ``proofLifetime``), `jti`
  /// replay within that window, `ath`, the `dpop_jkt` a code was bound to, and the nonce.
  ///
  /// ```swift
  /// var configuration = TestProvider.Configuration()
  /// configuration.dpop.requiresNonce = true   // like glewlwyd's oauth-dpop-nonce-mandatory
  /// ```
  public struct DPoPSettings: Sendable, Hashable {
    /// The algorithms advertised in `dpop_signing_alg_values_supported` and accepted in proofs;
    /// `nil` advertises none (the provider then accepts ES256).
    public var signingAlgorithms: [String]? = ["ES256"]
    /// Whether every proof must carry the provider's current nonce (RFC 9449 §8, §9): a proof
    /// without it, or with an old one, is answered `use_dpop_nonce` with the nonce in `DPoP-Nonce`.
    public var requiresNonce = false
    /// How many proofs a nonce serves before the provider rotates it, sending the new one in the
    /// `DPoP-Nonce` header of the answer that used the old one up (glewlwyd's counter is 10).
    public var nonceUses = 10
    /// How old a proof's `iat` may be; `jti`s are remembered this long to refuse replays.
    public var proofLifetime: Duration = .seconds(60)
    /// How far ahead of the provider's clock a proof's `iat` may be (glewlwyd allows none).
    public var futureLeeway: Duration = .zero
    /// Whether refresh tokens issued to public clients on a DPoP request are bound to the key.
    public var bindsRefreshTokensOfPublicClients = true

    /// The default: ES256, no nonce, a 60-second window, public clients' refresh tokens bound.
    public init() {}

    /// The algorithms the provider verifies proofs with.
    var acceptedAlgorithms: Set<JWSAlgorithm> {
      guard let signingAlgorithms else { return [.es256] }
      return Set(signingAlgorithms.compactMap(JWSAlgorithm.init(rawValue:)))
    }
  }
}

/// What the provider remembers about DPoP between requests.
struct DPoPServerState {
  /// The current nonce, once one was issued.
  var nonce: String?
  /// How many more proofs the current nonce serves.
  var usesLeft = 0
  /// A new nonce to send in the `DPoP-Nonce` header of the current answer.
  private var announcement: String?
  /// The `jti`s seen, with when they stop mattering.
  var seenJTIs: [String: Date] = [:]
  /// Every proof received, for ``TestProvider/receivedDPoPProofs`` and the secret-leak checks.
  var receivedProofs: [String] = []

  /// Makes a new nonce current, good for `uses` proofs, and announces it in the current answer.
  mutating func rotate(uses: Int) throws -> String {
    let fresh = try Randomness.token(bytes: 16)
    nonce = fresh
    usesLeft = max(uses, 1)
    announcement = fresh
    return fresh
  }

  /// The nonce to announce in the current answer, once.
  mutating func takeAnnouncement() -> String? {
    defer { announcement = nil }
    return announcement
  }

  /// Forgets `jti`s older than the window, so the table stays small.
  mutating func pruneJTIs(now: Date) {
    seenJTIs = seenJTIs.filter { $0.value > now }
  }
}
