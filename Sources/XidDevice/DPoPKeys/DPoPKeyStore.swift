import Foundation

/// A session's DPoP keys in its ``TokenStorageAdapter``: one entry per key, named by the key's RFC 7638
/// thumbprint, so that the key a token record names is found by name and a new sign-in never replaces
/// the key a refresh is using. Keys are restored once per process and then kept in memory.
package final class DPoPKeyStore: Sendable {
  /// The storage keys of DPoP keys start with this, followed by the thumbprint.
  static let keyPrefix = "xid.dpop-key."
  /// The format of the stored entries this version writes and reads.
  static let format: Int64 = 1

  private let storage: any TokenStorageAdapter
  /// The factories in order of preference; a software one is always last.
  let factories: [any DPoPKeyFactory]
  private let logger: any XidLogger
  private let loaded = LockedValue<[String: PreparedDPoPKey]>([:])
  /// The store of signing keys that need the user, which makes and restores the stricter mode's keys.
  private let presenceKeys: (any PresenceSigningKeyStore)?
  /// The requirement of new keys in the stricter mode (``PresenceOptions/protectsDPoPKey``).
  private let protection: PresenceRequirement?

  /// - Parameters:
  ///   - factory: the preferred factory; software keys are made where it is unavailable.
  ///   - presenceKeys: the store of signing keys that need the user (``PresenceOptions/keyStore`` as a
  ///     ``PresenceSigningKeyStore``).
  ///   - protection: in the stricter mode, the requirement new keys are made with, by `presenceKeys`
  ///     instead of a factory.
  package init(
    storage: any TokenStorageAdapter, factory: (any DPoPKeyFactory)?, logger: any XidLogger,
    presenceKeys: (any PresenceSigningKeyStore)? = nil, protection: PresenceRequirement? = nil
  ) {
    self.storage = storage
    self.factories = Self.factories(preferring: factory)
    self.logger = logger
    self.presenceKeys = presenceKeys
    self.protection = protection
  }

  /// The preferred factory, then ``SoftwareDPoPKeyFactory`` unless the preferred one is of that kind.
  static func factories(preferring factory: (any DPoPKeyFactory)?) -> [any DPoPKeyFactory] {
    guard let factory else { return [SoftwareDPoPKeyFactory()] }
    return factory.kind == SoftwareDPoPKeyFactory.kind ? [factory] : [factory, SoftwareDPoPKeyFactory()]
  }

  /// The factory a new key comes from: the first available one.
  static func factoryForNewKey(among factories: [any DPoPKeyFactory]) -> any DPoPKeyFactory {
    factories.first { $0.isAvailable } ?? SoftwareDPoPKeyFactory()
  }

  /// The storage key of the key with `thumbprint`.
  static func storageKey(thumbprint: String) -> String { keyPrefix + thumbprint }

  /// Makes a key with the first available factory, or in the stricter mode with the presence key
  /// store, and stores it.
  ///
  /// - Throws: the factory's and the storage's ``XidError``s.
  package func makeKey() throws -> PreparedDPoPKey {
    let key: any DPoPKey
    var entry: [String: JSONValue]
    if let protection, let presenceKeys {
      // The stricter mode: a key whose use needs the user, from the presence key store.
      let made = try presenceKeys.createSigningKey(requirement: protection)
      key = try PresenceDPoPKey(
        publicKey: made.publicKey, storedForm: made.storedForm, isHardwareBacked: made.isHardwareBacked,
        keyStore: presenceKeys)
      entry = [
        "kind": .string(PresenceDPoPKey.kind), "key": .string(made.storedForm),
        "public": .string(Base64URL.encode(made.publicKey)), "requirement": .string(protection.rawValue),
      ]
    } else {
      let factory = Self.factoryForNewKey(among: factories)
      let made = try factory.makeKey()
      key = made.key
      entry = ["kind": .string(factory.kind), "key": .string(made.storedForm)]
    }
    entry["format"] = .int(Self.format)
    entry["jkt"] = .string(key.thumbprint)
    entry["hardware"] = .bool(key.isHardwareBacked)
    try storage.save(
      key: Self.storageKey(thumbprint: key.thumbprint), value: JSONValue.object(entry).serialized(sortedKeys: true))
    let prepared = PreparedDPoPKey(key)
    loaded.update { $0[key.thumbprint] = prepared }
    logger.log(
      .info, category: "dpop",
      "made a \(key.isHardwareBacked ? "hardware-backed" : "software") DPoP key\(key is PresenceDPoPKey ? " that needs the user" : "") (\(key.thumbprint))"
    )
    return prepared
  }

  /// The key with `thumbprint`: from memory, or restored from storage and checked to be that key.
  ///
  /// - Throws: ``XidError/Code/dpopKeyUnavailable`` when it is missing, unreadable, of a kind no
  ///   factory restores, or another key; ``XidError/Code/storageLocked`` and other storage errors as
  ///   the storage reports them (the session is kept).
  package func key(thumbprint: String) throws -> PreparedDPoPKey {
    if let key = loaded.get()[thumbprint] { return key }
    guard let entry = try storedEntry(thumbprint: thumbprint) else {
      throw XidError(
        .dpopKeyUnavailable,
        "the session's DPoP key (\(thumbprint)) is missing from storage; its tokens cannot be used with any other key. Sign the user in again"
      )
    }
    if entry.kind == PresenceDPoPKey.kind {
      return try restorePresenceKey(entry, thumbprint: thumbprint)
    }
    guard let factory = factories.first(where: { $0.kind == entry.kind }) else {
      throw XidError(
        .dpopKeyUnavailable,
        "the session's DPoP key is of kind \"\(SafeText.short(entry.kind, limit: 32))\", which no configured factory restores; sign the user in again"
      )
    }
    let key: any DPoPKey
    do {
      key = try factory.restoreKey(from: entry.storedForm)
    } catch let error as XidError where error.code == .storageLocked {
      throw error
    } catch let error as XidError where error.code == .dpopKeyUnavailable {
      throw error
    } catch {
      throw XidError(
        .dpopKeyUnavailable, "the session's DPoP key could not be restored from storage; sign the user in again")
    }
    return try remember(key, as: thumbprint)
  }

  /// What the session says about its key: the thumbprint, and whether the stored key is
  /// hardware-backed (`false` when it cannot be read).
  package func binding(thumbprint: String) -> DPoPBinding {
    if let key = loaded.get()[thumbprint] {
      return DPoPBinding(keyThumbprint: thumbprint, isHardwareBacked: key.key.isHardwareBacked)
    }
    let hardware = (try? storedEntry(thumbprint: thumbprint))?.isHardwareBacked ?? false
    return DPoPBinding(keyThumbprint: thumbprint, isHardwareBacked: hardware)
  }

  /// Deletes the key with `thumbprint` from storage and memory; a failure is logged, not thrown.
  package func delete(thumbprint: String) {
    loaded.update { $0[thumbprint] = nil }
    do {
      try storage.delete(key: Self.storageKey(thumbprint: thumbprint))
      logger.log(.info, category: "dpop", "deleted the DPoP key \(thumbprint)")
    } catch {
      logger.log(
        .notice, category: "dpop",
        "could not delete the DPoP key \(thumbprint): \((error as? XidError)?.code.rawValue ?? "\(type(of: error))")")
    }
  }

  /// A key of the stricter mode: its public key is in the entry, its private use in the presence key
  /// store (none in a process that configures none: the key then refuses to sign).
  private func restorePresenceKey(_ entry: Entry, thumbprint: String) throws -> PreparedDPoPKey {
    guard let encoded = entry.publicKey, let publicKey = try? Base64URL.decode(encoded) else {
      throw XidError(.dpopKeyUnavailable, "the session's stored DPoP key has no public key; sign the user in again")
    }
    let key = try PresenceDPoPKey(
      publicKey: publicKey, storedForm: entry.storedForm, isHardwareBacked: entry.isHardwareBacked,
      keyStore: presenceKeys)
    return try remember(key, as: thumbprint)
  }

  /// Keeps a restored `key` in memory once it proves to be the key with `thumbprint`.
  ///
  /// - Throws: ``XidError/Code/dpopKeyUnavailable`` when it is another key.
  private func remember(_ key: any DPoPKey, as thumbprint: String) throws -> PreparedDPoPKey {
    guard key.thumbprint == thumbprint else {
      throw XidError(
        .dpopKeyUnavailable,
        "the stored DPoP key is not the key the session's tokens are bound to; sign the user in again")
    }
    let prepared = PreparedDPoPKey(key)
    loaded.update { $0[thumbprint] = prepared }
    return prepared
  }

  private struct Entry {
    var kind: String
    var storedForm: String
    var isHardwareBacked: Bool
    var publicKey: String?
  }

  private func storedEntry(thumbprint: String) throws -> Entry? {
    guard let text = try storage.load(key: Self.storageKey(thumbprint: thumbprint)) else { return nil }
    guard let members = try? JSONValue(parsing: Array(text.utf8)).objectValue,
      members["format"]?.int64Value == Self.format, let kind = members["kind"]?.stringValue,
      let storedForm = members["key"]?.stringValue
    else {
      throw XidError(
        .dpopKeyUnavailable,
        "the session's stored DPoP key is unreadable or of an unknown format; sign the user in again")
    }
    return Entry(
      kind: kind, storedForm: storedForm, isHardwareBacked: members["hardware"]?.boolValue ?? false,
      publicKey: members["public"]?.stringValue)
  }
}
