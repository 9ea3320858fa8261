#if canImport(LocalAuthentication) && canImport(CryptoKit) && canImport(Security)
  import CryptoKit
  import ExampleDiagnostics
  import Foundation
  @preconcurrency import LocalAuthentication
  import Xid

  /// Checks 1 to 3 of the Diagnostics screen, which run in the app because they show prompts. Each
  /// calls the system and Xid's public API, and turns what it saw into a ``DiagnosticsResult`` with
  /// the portable logic of `ExampleDiagnostics`. They use keys and rights of their own, under new
  /// random names, and delete them when done: the session's tokens and keys are never touched.
  public enum DeviceChecks {
    /// The prompt's text.
    static let reason = "Confirm to test Xid's Secure Enclave keys (Diagnostics)."

    // MARK: - 1. LARightStore, a missing right

    /// Check 1: `LARightStore`'s answers for a right that was never saved, and Xid's reading of them.
    /// Shows no prompt.
    public static func rightStoreMissingRight() async -> DiagnosticsResult {
      let identifier = "xid.diagnostics.never-saved." + UUID().uuidString
      var lookup: ObservedError?
      do {
        _ = try await LARightStore.shared.right(forIdentifier: identifier)
      } catch {
        lookup = ObservedError(error)
      }
      var removal: ObservedError?
      do {
        try await LARightStore.shared.removeRight(forIdentifier: identifier)
      } catch {
        removal = ObservedError(error)
      }
      let store = PersistedRightStore()
      let xidLookup: RightStoreObservation.XidLookup
      do {
        xidLookup = try await store.key(identifier: identifier) == nil ? .missing : .found
      } catch {
        xidLookup = .failed(ObservedError(error))
      }
      var xidRemoval: ObservedError?
      do {
        try await store.remove(identifier: identifier)
      } catch {
        xidRemoval = ObservedError(error)
      }
      return RightStoreObservation(lookup: lookup, removal: removal, xidLookup: xidLookup, xidRemoval: xidRemoval)
        .result(at: Date())
    }

    // MARK: - 2. One LAContext, decrypt and sign

    /// The keys of check 2.
    struct Keys: Sendable {
      let store: SecureEnclaveKeyStore
      let tag: String
      let sealed: [UInt8]
      let plaintext: [UInt8]
      let signingPublicKey: [UInt8]
      let signingKey: String
    }

    /// Which key a round's context is evaluated for.
    enum Evaluation { case decrypting, signing }

    /// Check 2: one context, evaluated once, used to decrypt with one Secure Enclave key and sign with
    /// another; two rounds, each evaluated for the other key. Shows two prompts.
    public static func oneContextDecryptsAndSigns() async -> DiagnosticsResult {
      let store = SecureEnclaveKeyStore()
      guard store.usesSecureEnclave else { return OneContextObservation(hasSecureEnclave: false).result(at: Date()) }
      let requirement = PresenceRequirement.biometryWithPasscodeFallback
      let tag = "xid.diagnostics.one-context." + UUID().uuidString
      // The signing key lives only in its stored form (its dataRepresentation): nothing to delete.
      defer { try? store.deleteKey(tag: tag) }
      let keys: Keys
      do {
        try await store.checkCanAuthorize(requirement: requirement)
        let publicKey = try store.createKey(tag: tag, requirement: requirement)
        let signing = try store.createSigningKey(requirement: requirement)
        let plaintext = randomBytes()
        keys = Keys(
          store: store, tag: tag, sealed: try store.encrypt(plaintext, to: publicKey), plaintext: plaintext,
          signingPublicKey: signing.publicKey, signingKey: signing.storedForm)
      } catch {
        return OneContextObservation(hasSecureEnclave: true, setup: ObservedError(error)).result(at: Date())
      }
      let decryptingFirst = await round(evaluatedFor: .decrypting, keys)
      let signingFirst = await round(evaluatedFor: .signing, keys)
      return OneContextObservation(
        hasSecureEnclave: true, evaluatedForDecrypting: decryptingFirst, evaluatedForSigning: signingFirst
      ).result(at: Date())
    }

    /// One round: a context evaluated for `evaluation`'s key (one prompt), then that key's use and the
    /// other's. After its evaluation the context may not prompt, so a use it does not cover fails.
    static func round(evaluatedFor evaluation: Evaluation, _ keys: Keys) async -> OneContextObservation.Round {
      let context = keys.store.makeContext()
      defer { context.invalidate() }
      do {
        switch evaluation {
        case .decrypting: try await keys.store.authenticate(context, forKey: keys.tag, localizedReason: reason)
        case .signing:
          try await keys.store.authenticate(context, forSigningKey: keys.signingKey, localizedReason: reason)
        }
      } catch {
        return OneContextObservation.Round(
          evaluation: ObservedError(error), decryption: .notTried, signature: .notTried)
      }
      switch evaluation {
      case .decrypting:
        let decryption = await decrypt(keys, context)
        return OneContextObservation.Round(evaluation: nil, decryption: decryption, signature: sign(keys, context))
      case .signing:
        let signature = sign(keys, context)
        return OneContextObservation.Round(
          evaluation: nil, decryption: await decrypt(keys, context), signature: signature)
      }
    }

    static func decrypt(_ keys: Keys, _ context: any PresenceContext) async -> KeyUse {
      do {
        let opened = try await keys.store.decrypt(keys.sealed, withKey: keys.tag, context: context)
        return opened == keys.plaintext ? .succeeded : .wrongResult
      } catch {
        return .failed(ObservedError(error))
      }
    }

    static func sign(_ keys: Keys, _ context: any PresenceContext) -> KeyUse {
      let message = Array("xid diagnostics: one context".utf8)
      do {
        let signature = try keys.store.sign(message, withSigningKey: keys.signingKey, context: context)
        let publicKey = try P256.Signing.PublicKey(x963Representation: keys.signingPublicKey)
        let valid = publicKey.isValidSignature(
          try P256.Signing.ECDSASignature(rawRepresentation: signature), for: message)
        return valid ? .succeeded : .wrongResult
      } catch {
        return .failed(ObservedError(error))
      }
    }

    // MARK: - 3. .biometryCurrentSet after an enrollment change

    /// Check 3's key between its runs, in the diagnostics folder: random bytes sealed with it, a hash
    /// of those bytes, and a hash of the enrolled biometry's state when it was made.
    struct EnrollmentChangeState: Codable {
      var tag: String
      var sealed: String
      var plaintextHash: String
      var biometryHash: String?
      var preparedAt: Date
    }

    /// Check 3. The first run makes the key and opens it once (one prompt); after the person changed
    /// the enrolled biometry, the next run opens it again (one prompt, if the system shows one) and
    /// deletes it. While the biometry is unchanged, a run says so and asks nothing.
    public static func biometryEnrollmentChange(in folder: DiagnosticsFolder) async -> DiagnosticsResult {
      let store = SecureEnclaveKeyStore()
      guard let state = try? folder.read(EnrollmentChangeState.self, from: .enrollmentChange) else {
        return await prepareEnrollmentChange(store, folder)
      }
      let now = biometryHash(store)
      let change: EnrollmentChangeObservation.BiometryState =
        now == nil ? .unreadable : now == state.biometryHash ? .unchanged : .changed
      if change == .unchanged {
        return EnrollmentChangeObservation.unchanged(preparedAt: state.preparedAt).result(at: Date())
      }
      // A lookup that throws is left to the prompt, which looks the key up again and reports it.
      let keyExists: Bool
      do {
        keyExists = try store.publicKey(tag: state.tag) != nil
      } catch {
        keyExists = true
      }
      var prompt: ObservedError?
      var decryption = KeyUse.notTried
      if keyExists {
        let context = store.makeContext()
        defer { context.invalidate() }
        do {
          try await store.authenticate(context, forKey: state.tag, localizedReason: reason)
        } catch {
          prompt = ObservedError(error)
        }
        if prompt == nil {
          do {
            let sealed = Array(Data(base64Encoded: state.sealed) ?? Data())
            let opened = try await store.decrypt(sealed, withKey: state.tag, context: context)
            decryption = hash(opened) == state.plaintextHash ? .succeeded : .wrongResult
          } catch {
            decryption = .failed(ObservedError(error))
          }
        }
      }
      let observation = EnrollmentChangeObservation.afterChange(
        preparedAt: state.preparedAt, state: change, keyExists: keyExists, prompt: prompt, decryption: decryption)
      // A cancelled prompt keeps the key for another run; any other outcome ends the check.
      if prompt?.isCancellation != true { startOverEnrollmentChange(in: folder) }
      return observation.result(at: Date())
    }

    private static func prepareEnrollmentChange(
      _ store: SecureEnclaveKeyStore, _ folder: DiagnosticsFolder
    ) async -> DiagnosticsResult {
      let tag = "xid.diagnostics.biometry-current-set." + UUID().uuidString
      do {
        try await store.checkCanAuthorize(requirement: .biometryCurrentSet)
        let publicKey = try store.createKey(tag: tag, requirement: .biometryCurrentSet)
        let plaintext = randomBytes()
        let sealed = try store.encrypt(plaintext, to: publicKey)
        let biometry = biometryHash(store)
        let context = store.makeContext()
        defer { context.invalidate() }
        do {
          try await store.authenticate(context, forKey: tag, localizedReason: reason)
        } catch {
          try? store.deleteKey(tag: tag)
          return EnrollmentChangeObservation.prepared(
            prompt: ObservedError(error), baseline: .notTried, biometryStateReadable: biometry != nil
          ).result(at: Date())
        }
        let baseline: KeyUse
        do {
          baseline =
            try await store.decrypt(sealed, withKey: tag, context: context) == plaintext ? .succeeded : .wrongResult
        } catch {
          baseline = .failed(ObservedError(error))
        }
        if baseline == .succeeded {
          try folder.write(
            EnrollmentChangeState(
              tag: tag, sealed: Data(sealed).base64EncodedString(), plaintextHash: hash(plaintext),
              biometryHash: biometry, preparedAt: Date()),
            to: .enrollmentChange)
        } else {
          try? store.deleteKey(tag: tag)
        }
        return EnrollmentChangeObservation.prepared(
          prompt: nil, baseline: baseline, biometryStateReadable: biometry != nil
        ).result(at: Date())
      } catch {
        try? store.deleteKey(tag: tag)
        return EnrollmentChangeObservation.couldNotPrepare(ObservedError(error)).result(at: Date())
      }
    }

    /// Deletes check 3's key and state, so that its next run starts over.
    public static func startOverEnrollmentChange(in folder: DiagnosticsFolder) {
      if let state = try? folder.read(EnrollmentChangeState.self, from: .enrollmentChange) {
        try? SecureEnclaveKeyStore().deleteKey(tag: state.tag)
      }
      try? folder.remove(.enrollmentChange)
    }

    /// A hash of the enrolled biometry's state, read without a prompt; `nil` when it cannot be read.
    private static func biometryHash(_ store: SecureEnclaveKeyStore) -> String? {
      store.biometryDomainState().map(hash)
    }

    private static func hash(_ bytes: [UInt8]) -> String {
      Data(SHA256.hash(data: bytes)).base64EncodedString()
    }

    private static func randomBytes() -> [UInt8] {
      var generator = SystemRandomNumberGenerator()
      return (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
    }

    // MARK: - The device

    /// The report's header: the app, the system, the model, the biometry, the Secure Enclave and the
    /// passcode, read without a prompt.
    public static func environment() -> DiagnosticsEnvironment {
      let info = Bundle.main.infoDictionary ?? [:]
      let name = info["CFBundleName"] as? String ?? "XidExample"
      let version = info["CFBundleShortVersionString"] as? String ?? "?"
      let build = info["CFBundleVersion"] as? String ?? "?"
      return DiagnosticsEnvironment(
        app: "\(name) \(version) (\(build))",
        system: "\(systemName) \(ProcessInfo.processInfo.operatingSystemVersionString)",
        device: deviceModel, biometry: biometry, secureEnclave: SecureEnclave.isAvailable ? "yes" : "no",
        passcode: passcode)
    }

    private static var systemName: String {
      #if os(iOS)
        "iOS"
      #elseif os(macOS)
        "macOS"
      #else
        "Apple OS"
      #endif
    }

    private static var deviceModel: String {
      #if targetEnvironment(simulator)
        "Simulator (\(ProcessInfo.processInfo.environment["SIMULATOR_MODEL_IDENTIFIER"] ?? "unknown model"))"
      #else
        var system = utsname()
        uname(&system)
        return withUnsafeBytes(of: system.machine) { bytes in
          String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
        }
      #endif
    }

    private static var biometry: String {
      let context = LAContext()
      var error: NSError?
      let canEvaluate = context.canEvaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, error: &error)
      let kind: String =
        switch context.biometryType {
        case .faceID: "Face ID"
        case .touchID: "Touch ID"
        case .none: "none"
        default: "biometry \(context.biometryType.rawValue)"
        }
      if canEvaluate { return "\(kind), enrolled" }
      switch error?.code {
      case LAError.biometryNotEnrolled.rawValue: return "\(kind), not enrolled"
      case LAError.biometryLockout.rawValue: return "\(kind), locked out"
      case LAError.biometryNotAvailable.rawValue: return "\(kind), not available"
      default: return "\(kind), cannot evaluate (\(error.map { "\($0.domain) \($0.code)" } ?? "no error"))"
      }
    }

    private static var passcode: String {
      var error: NSError?
      if LAContext().canEvaluatePolicy(.deviceOwnerAuthentication, error: &error) { return "set" }
      return error?.code == LAError.passcodeNotSet.rawValue ? "not set" : "unknown (\(error?.code ?? 0))"
    }
  }
#endif
