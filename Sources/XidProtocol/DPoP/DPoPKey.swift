/// A P-256 private key that signs DPoP proofs (RFC 9449) with ES256: the key a session's tokens are
/// bound to.
///
/// Xid makes one per session, before the authorization request (its thumbprint is the request's
/// `dpop_jkt`), keeps it in the session's ``TokenStorageAdapter`` and deletes it at sign-out. Keys
/// come from a ``DPoPKeyFactory``: ``SoftwareDPoPKeyFactory`` everywhere, and on Apple devices a
/// Secure Enclave one that the `Xid` module picks by default.
///
/// A key's `description` shows its thumbprint and whether it is hardware-backed, never its material.
public protocol DPoPKey: Sendable, CustomStringConvertible {
  /// The public key as a JWK with only `kty` (`EC`), `crv` (`P-256`), `x` and `y`: what a proof's
  /// header carries.
  var publicJWK: JWK { get }
  /// The RFC 7638 SHA-256 thumbprint of ``publicJWK``, base64url: the `dpop_jkt` of the authorization
  /// request and the `cnf.jkt` of the tokens bound to this key.
  var thumbprint: String { get }
  /// Whether the private key lives in hardware that never lets it out (the Secure Enclave).
  var isHardwareBacked: Bool { get }
  /// The ES256 signature of `message` (SHA-256, then ECDSA P-256): the 64 bytes r ‖ s that JWS uses.
  ///
  /// - Throws: ``XidError``; ``XidError/Code/dpopKeyUnavailable`` when the key can no longer sign.
  func sign(_ message: [UInt8]) throws -> [UInt8]
}

extension DPoPKey {
  /// `DPoPKey(thumbprint: …, hardwareBacked: …)`; never key material.
  public var description: String {
    "DPoPKey(thumbprint: \(thumbprint), hardwareBacked: \(isHardwareBacked))"
  }
}

/// Makes and restores the keys of DPoP-bound sessions, for one kind of key store: software keys
/// (``SoftwareDPoPKeyFactory``) or the Secure Enclave (`SecureEnclaveDPoPKeyFactory` of the `Xid`
/// module on Apple platforms).
///
/// Xid stores what ``makeKey()`` returns as `storedForm`, with ``kind``, under a storage key named by
/// the key's thumbprint, in the session's ``TokenStorageAdapter`` (the keychain item's access group
/// and accessibility are the token record's, so extensions sign with the same key). To restore a key
/// it asks the factory of the stored kind; a software key is restored by ``SoftwareDPoPKeyFactory``
/// whatever factory is configured.
public protocol DPoPKeyFactory: Sendable {
  /// The name stored with each key this factory makes, which picks the factory that restores it:
  /// for example `"software"` or `"secureEnclave"`.
  var kind: String { get }
  /// Whether the factory can make keys here. When it cannot (a simulator, a Mac without a Secure
  /// Enclave), Xid makes software keys instead.
  var isAvailable: Bool { get }
  /// Makes a new P-256 key.
  ///
  /// - Returns: the key, and what to store to restore it: its private material or an opaque handle
  ///   (a Secure Enclave key's `dataRepresentation`). Xid keeps it with the tokens and never shows it.
  func makeKey() throws -> (key: any DPoPKey, storedForm: String)
  /// Restores a key from the `storedForm` that ``makeKey()`` returned.
  ///
  /// - Throws: ``XidError`` with ``XidError/Code/dpopKeyUnavailable`` when the stored form no longer
  ///   gives a key (another device's Secure Enclave blob, a damaged value).
  func restoreKey(from storedForm: String) throws -> any DPoPKey
}

/// A DPoP key that signs only with the user's confirmation (the stricter mode of the presence
/// options), so that a prepared key knows it without a cast on every request.
package protocol UserPresenceDPoPKey: DPoPKey {}
