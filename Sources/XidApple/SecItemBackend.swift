#if canImport(Security)
  import Foundation
  import XidCore
  import Security

  extension KeychainTokenStorage {
    /// Creates a keychain storage backed by the system keychain.
    ///
    /// - Parameters:
    ///   - service: the items' service, by default `"dev.xid.tokens"`.
    ///   - accessGroup: the full, team-prefixed keychain access group shared with the app's extensions.
    ///   - appGroup: the App Group identifier (`"group.com.example"`) whose container holds the refresh
    ///     lock shared by the app and its extensions, in its `Xid` folder (made when first needed).
    ///   - accessibility: when items can be read.
    public init(
      service: String = "dev.xid.tokens", accessGroup: String? = nil, appGroup: String? = nil,
      accessibility: Accessibility = .afterFirstUnlockThisDeviceOnly
    ) {
      let container = appGroup.flatMap {
        FileManager.default.containerURL(forSecurityApplicationGroupIdentifier: $0)
      }
      self.init(
        service: service, accessGroup: accessGroup, accessibility: accessibility,
        refreshLockDirectory: container.map(KeychainTokenStorage.refreshLockDirectory(inAppGroupContainer:)),
        backend: SecItemBackend())
    }
  }

  /// The system keychain, through `SecItem*`.
  struct SecItemBackend: KeychainTokenStorage.Backend {
    private func query(_ item: KeychainTokenStorage.Item) -> [CFString: Any] {
      var query: [CFString: Any] = [
        kSecClass: kSecClassGenericPassword,
        kSecAttrService: item.service,
        kSecAttrSynchronizable: kCFBooleanFalse as Any,
        kSecUseDataProtectionKeychain: true,
      ]
      if let account = item.account { query[kSecAttrAccount] = account }
      if let group = item.accessGroup { query[kSecAttrAccessGroup] = group }
      return query
    }

    private func accessible(_ accessibility: KeychainTokenStorage.Accessibility) -> CFString {
      switch accessibility {
      case .afterFirstUnlockThisDeviceOnly: kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly
      case .whenUnlockedThisDeviceOnly: kSecAttrAccessibleWhenUnlockedThisDeviceOnly
      case .whenPasscodeSetThisDeviceOnly: kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly
      }
    }

    func update(_ item: KeychainTokenStorage.Item, data: Data) -> Int32 {
      let changes: [CFString: Any] = [kSecValueData: data, kSecAttrAccessible: accessible(item.accessibility)]
      return SecItemUpdate(query(item) as CFDictionary, changes as CFDictionary)
    }

    func add(_ item: KeychainTokenStorage.Item, data: Data) -> Int32 {
      var attributes = query(item)
      attributes[kSecValueData] = data
      attributes[kSecAttrAccessible] = accessible(item.accessibility)
      return SecItemAdd(attributes as CFDictionary, nil)
    }

    func copyData(_ item: KeychainTokenStorage.Item) -> (status: Int32, data: Data?) {
      var search = query(item)
      search[kSecReturnData] = true
      search[kSecMatchLimit] = kSecMatchLimitOne
      var result: CFTypeRef?
      let status = SecItemCopyMatching(search as CFDictionary, &result)
      return (status, result as? Data)
    }

    func delete(_ item: KeychainTokenStorage.Item) -> Int32 {
      SecItemDelete(query(item) as CFDictionary)
    }

    func copyAccounts(_ item: KeychainTokenStorage.Item) -> (status: Int32, accounts: [String]) {
      var search = query(item)
      search[kSecReturnAttributes] = true
      search[kSecMatchLimit] = kSecMatchLimitAll
      var result: CFTypeRef?
      let status = SecItemCopyMatching(search as CFDictionary, &result)
      let items = result as? [[CFString: Any]] ?? []
      return (status, items.compactMap { $0[kSecAttrAccount] as? String })
    }
  }
#endif
