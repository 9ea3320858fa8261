/// How a session's tokens are bound to its key (RFC 9449): which key, and where it lives.
public struct DPoPBinding: Sendable, Hashable, CustomStringConvertible {
  /// The RFC 7638 thumbprint of the key (the tokens' `cnf.jkt`).
  public let keyThumbprint: String
  /// Whether the key is in hardware that never lets it out (the Secure Enclave), rather than in
  /// software storage.
  public let isHardwareBacked: Bool

  /// Creates a binding description.
  public init(keyThumbprint: String, isHardwareBacked: Bool) {
    self.keyThumbprint = keyThumbprint
    self.isHardwareBacked = isHardwareBacked
  }

  /// `DPoPBinding(key: …, hardwareBacked: …)`.
  public var description: String { "DPoPBinding(key: \(keyThumbprint), hardwareBacked: \(isHardwareBacked))" }
}
