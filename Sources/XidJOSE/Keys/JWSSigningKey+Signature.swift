extension JWSSigningKey {
  /// The signature of `message` in JWS form (r ‖ s for ES256), for signatures made outside a JWS (a
  /// client assertion's).
  public func signature(for message: [UInt8]) throws -> [UInt8] {
    try message.withUnsafeBytes { try platformKey.signature(for: $0) }
  }
}
