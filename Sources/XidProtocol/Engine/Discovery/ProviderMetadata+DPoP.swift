import Foundation

extension ProviderMetadata {
  /// `dpop_signing_alg_values_supported` (RFC 9449 §5.1), or `nil` when the provider does not say.
  public var dpopSigningAlgValuesSupported: [String]? {
    document["dpop_signing_alg_values_supported"]?.arrayValue?.compactMap(\.stringValue)
  }

  /// Checks that the provider accepts the proofs Xid makes (ES256), when it lists the algorithms it
  /// accepts.
  ///
  /// - Throws: ``XidError/Code/unsupportedByProvider`` when `dpop_signing_alg_values_supported` lacks
  ///   ES256.
  func requireDPoPES256() throws {
    guard let algorithms = dpopSigningAlgValuesSupported, !algorithms.contains("ES256") else { return }
    let listed = algorithms.prefix(8).map { SafeText.short($0, limit: 16) }.joined(separator: ", ")
    throw XidError(
      .unsupportedByProvider,
      "the provider's dpop_signing_alg_values_supported (\(listed.isEmpty ? "empty" : listed)) lacks ES256, the algorithm Xid signs DPoP proofs with; allow ES256 for DPoP at the provider, or turn usesDPoP off"
    )
  }
}
