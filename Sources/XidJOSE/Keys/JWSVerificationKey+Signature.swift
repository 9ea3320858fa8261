extension JWSVerificationKey {
  /// Whether `signature` (in JWS form: r ‖ s for ES256) is a valid `algorithm` signature of `message`
  /// with this key, for signatures made outside a JWS (a device credential's).
  package func isValidSignature(_ signature: [UInt8], for message: [UInt8], algorithm: JWSAlgorithm) -> Bool {
    guard jwk.permitsVerification(with: algorithm) else { return false }
    return signature.withUnsafeBytes { signature in
      message.withUnsafeBytes { platformKey.isValidSignature(signature, for: $0, algorithm: algorithm) }
    }
  }
}
