/// The session's ``RequestSigner``: the device layer's DPoP keys (``DPoPKeyStore``), readied with the
/// user's presence (``PresenceCoordinator``) where the stricter mode's key needs them.
struct SessionSigner: RequestSigner {
  let keys: DPoPKeyStore
  let presence: PresenceCoordinator
  /// ``SessionPolicy/usesDPoP``: a Bearer record is then refused.
  let requiresDPoP: Bool

  func key(for record: TokenRecord) throws -> PreparedDPoPKey? {
    guard let thumbprint = record.dpopKeyThumbprint else {
      try requireBinding(of: record)
      return nil
    }
    return try keys.key(thumbprint: thumbprint)
  }

  func ready(_ key: PreparedDPoPKey?) async throws {
    try await presence.prepareToSign(with: key)
  }

  /// Throws ``XidError/Code/dpopKeyUnavailable`` for a record without a DPoP key while DPoP is
  /// required.
  func requireBinding(of record: TokenRecord) throws {
    guard requiresDPoP, record.dpopKeyThumbprint == nil else { return }
    throw XidError(
      .dpopKeyUnavailable,
      "the session was signed in without DPoP, which the configuration now requires (usesDPoP); its tokens are not sent as Bearer tokens. Sign the user in again"
    )
  }
}
