/// The DPoP key a record's tokens are bound to, as the session sees the device's keys and the user's
/// presence: it finds the key, and readies it to sign (asking the user first where the key needs
/// them).
protocol RequestSigner: Sendable {
  /// The key `record`'s tokens are bound to, or `nil` for Bearer tokens.
  ///
  /// - Throws: ``XidError/Code/dpopKeyUnavailable`` when the key is missing or another one, and for a
  ///   Bearer session while DPoP is required: its tokens are never sent as Bearer tokens in silence.
  func key(for record: TokenRecord) throws -> PreparedDPoPKey?
  /// Readies `key` to sign the call's proofs: asks the user once per call when it needs them.
  ///
  /// - Throws: the presence prompt's errors (``XidError/Code/authenticationCancelled``, …).
  func ready(_ key: PreparedDPoPKey?) async throws
}
