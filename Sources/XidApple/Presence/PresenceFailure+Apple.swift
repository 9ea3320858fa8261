#if canImport(LocalAuthentication) && canImport(Security) && canImport(CryptoKit) && !os(watchOS) && !os(tvOS)
  import CryptoKit
  #if canImport(CryptoTokenKit)
    import CryptoTokenKit
  #endif
  import Foundation
  @preconcurrency import LocalAuthentication
  import Security
  import XidCore

  extension PresenceFailure {
    /// The failure of an `LAError` code: every code of the SDK by name, and a later SDK's by number.
    init(_ code: LAError.Code) {
      // Through the protocol, so that the switch can name the deprecated Touch ID cases (which the
      // biometry names alias) without a deprecation warning, and stay exhaustive.
      let mapping: any LocalAuthenticationCodeMapping.Type = EveryLocalAuthenticationCode.self
      self = mapping.failure(code)
    }

    /// The failure behind any error of LocalAuthentication, the Security framework or CryptoKit;
    /// `operation` says what was being done, for the keychain's statuses.
    init(_ error: any Error, operation: String) {
      if let error = error as? LAError {
        self.init(error.code)
        return
      }
      if let error = error as? CryptoKitError {
        self = .cryptoKit(name: Self.name(of: error), authenticationFailure: Self.isAuthenticationFailure(error))
        return
      }
      #if canImport(CryptoTokenKit)
        if let error = error as? TKError {
          self = .tokenKit(code: Self.tokenKitCode(error.code), operation: operation)
          return
        }
      #endif
      let error = error as NSError
      self.init(domain: Self.domain(of: error), code: error.code, operation: operation)
    }

    /// The domain of an `NSError`, among those whose codes Xid reads.
    static func domain(of error: NSError) -> Domain {
      switch error.domain {
      case LAErrorDomain: .localAuthentication
      case NSOSStatusErrorDomain: .osStatus
      default: isTokenKitDomain(error.domain) ? .tokenKit : .other
      }
    }

    private static func isTokenKitDomain(_ domain: String) -> Bool {
      #if canImport(CryptoTokenKit)
        domain == TKErrorDomain
      #else
        false
      #endif
    }

    #if canImport(CryptoTokenKit)
      /// The code of a CryptoTokenKit error: every code of the iOS 17.4 SDK by name, and a later SDK's
      /// by number.
      private static func tokenKitCode(_ code: TKError.Code) -> Int {
        switch code {
        case .notImplemented: TokenKitCode.notImplemented
        case .communicationError: TokenKitCode.communicationError
        case .corruptedData: TokenKitCode.corruptedData
        case .canceledByUser: TokenKitCode.canceledByUser
        case .authenticationFailed: TokenKitCode.authenticationFailed
        case .objectNotFound: TokenKitCode.objectNotFound
        case .tokenNotFound: TokenKitCode.tokenNotFound
        case .badParameter: TokenKitCode.badParameter
        case .authenticationNeeded: TokenKitCode.authenticationNeeded
        @unknown default: code.rawValue
        }
      }
    #endif

    /// The failure in a `CFError` a `SecKey` function returned, or a generic one when it returned none.
    init(_ error: Unmanaged<CFError>?, operation: String) {
      guard let error = error?.takeRetainedValue() else {
        self = .keychain(status: -50, operation: operation)
        return
      }
      self.init(error as any Error, operation: operation)
    }

    private static func isAuthenticationFailure(_ error: CryptoKitError) -> Bool {
      if case .authenticationFailure = error { return true }
      return false
    }

    /// The name of a CryptoKit error's case: every case of the iOS 17.4 SDK.
    private static func name(of error: CryptoKitError) -> String {
      switch error {
      case .incorrectKeySize: "CryptoKitError.incorrectKeySize"
      case .incorrectParameterSize: "CryptoKitError.incorrectParameterSize"
      case .authenticationFailure: "CryptoKitError.authenticationFailure"
      case .underlyingCoreCryptoError(let code): "CryptoKitError.underlyingCoreCryptoError(\(code))"
      case .wrapFailure: "CryptoKitError.wrapFailure"
      case .unwrapFailure: "CryptoKitError.unwrapFailure"
      case .invalidParameter: "CryptoKitError.invalidParameter"
      @unknown default: "CryptoKitError"
      }
    }
  }

  private protocol LocalAuthenticationCodeMapping {
    static func failure(_ code: LAError.Code) -> PresenceFailure
  }

  private enum EveryLocalAuthenticationCode: LocalAuthenticationCodeMapping {
    @available(*, deprecated, message: "names the deprecated Touch ID codes so that the switch is exhaustive")
    static func failure(_ code: LAError.Code) -> PresenceFailure {
      switch code {
      case .authenticationFailed: .authenticationFailed
      case .userCancel: .userCancel
      case .userFallback: .userFallback
      case .systemCancel: .systemCancel
      case .passcodeNotSet: .passcodeNotSet
      case .touchIDNotAvailable: .biometryNotAvailable  // = .biometryNotAvailable
      case .touchIDNotEnrolled: .biometryNotEnrolled  // = .biometryNotEnrolled
      case .touchIDLockout: .biometryLockout  // = .biometryLockout
      case .appCancel: .appCancel
      case .invalidContext: .invalidContext
      case .notInteractive: .notInteractive
      #if os(macOS)
        case .watchNotAvailable, .biometryNotPaired, .biometryDisconnected: .biometryNotAvailable
        case .invalidDimensions: .unknownLocalAuthentication(code: code.rawValue)
      #endif
      @unknown default: PresenceFailure(localAuthenticationCode: code.rawValue)
      }
    }
  }
#endif
