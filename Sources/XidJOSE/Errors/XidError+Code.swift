extension XidError {
  /// What kind of failure an ``XidError`` is.
  ///
  /// Codes are stable names: switch on them to react, log them freely. This file is the only place
  /// where codes are made, so the list below is every failure Xid can report, each with what to do.
  public struct Code: Hashable, Sendable, CustomStringConvertible {
    /// The stable name of the code, for example `"invalidSignature"`.
    public let rawValue: String

    private init(_ rawValue: String) { self.rawValue = rawValue }

    /// The stable name of the code.
    public var description: String { rawValue }
  }
}

extension XidError.Code {
  // MARK: - JOSE: encodings, JSON, keys and signatures

  /// Input was not valid base64url (RFC 7515 §2): padding, whitespace or a character outside the alphabet.
  public static let invalidEncoding = Self("invalidEncoding")
  /// Input was not valid JSON, or not the JSON shape that was expected.
  public static let invalidJSON = Self("invalidJSON")
  /// Input was larger than Xid accepts; it was refused before it was parsed.
  public static let inputTooLarge = Self("inputTooLarge")
  /// A JSON Web Key was malformed, weak, or carried members it must not have.
  public static let invalidKey = Self("invalidKey")
  /// A JSON Web Key was well formed but of a type, curve or use Xid does not support.
  public static let unsupportedKey = Self("unsupportedKey")
  /// A JWS was malformed: not three parts, a header that is not a JSON object, and the like.
  public static let malformedJWS = Self("malformedJWS")
  /// The JWS used a feature Xid refuses (`crit` members it does not understand, `b64: false`).
  public static let unsupportedJWSFeature = Self("unsupportedJWSFeature")
  /// The JWS header's `alg` is not one the caller allowed, or does not fit the key.
  public static let algorithmNotAllowed = Self("algorithmNotAllowed")
  /// No key fit the JWS, or several did and the choice would be ambiguous.
  public static let noMatchingKey = Self("noMatchingKey")
  /// The signature did not verify with the key.
  public static let invalidSignature = Self("invalidSignature")
  /// A JWT claim was missing, of the wrong type, or had a value that failed validation.
  public static let invalidClaims = Self("invalidClaims")
  /// The platform's crypto library failed in a way the input does not explain, or, on Linux, OpenSSL 3's
  /// libcrypto could not be loaded (Xid opens it on first use; the reason names the file): install it
  /// (Debian and Ubuntu: `apt-get install libssl3`).
  public static let cryptoFailure = Self("cryptoFailure")
  /// Sealed data did not open with the key: it was sealed for another key, or it was changed since.
  /// Nothing can recover it; for a sealed refresh token Xid reports ``presenceKeyInvalidated``.
  public static let decryptionFailed = Self("decryptionFailed")

  // MARK: - HTTP

  /// No HTTP response arrived: no connection, a reset, a timeout. The session is kept; try again later.
  public static let networkFailure = Self("networkFailure")
  /// A URL was refused because it is not HTTPS (plain HTTP is allowed for loopback hosts only).
  public static let insecureURL = Self("insecureURL")
  /// A response was larger than Xid accepts from that endpoint.
  public static let responseTooLarge = Self("responseTooLarge")
  /// A server answered with a status or body that the protocol does not allow.
  public static let unexpectedResponse = Self("unexpectedResponse")

  // MARK: - The OpenID Connect and OAuth 2.0 protocol

  /// The provider's metadata (`/.well-known/openid-configuration`) could not be fetched or is not
  /// valid. Check the issuer URL; if it is right, the provider is down or misconfigured: try later.
  public static let discoveryFailed = Self("discoveryFailed")
  /// A different issuer answered than the one configured: the metadata's `issuer`, or the `iss`
  /// parameter of an authorization response (RFC 9207, mix-up defence), is not the configured issuer,
  /// or the `iss` parameter is missing although the provider promised it. Do not retry; if the
  /// configuration is wrong, fix the issuer URL (it must match the provider's exactly, trailing slash
  /// included).
  public static let issuerMismatch = Self("issuerMismatch")
  /// The client's configuration, or an option passed to a request, is invalid: an insecure redirect
  /// URI, an extra parameter that would override a security parameter, and the like. Fix the code.
  public static let invalidConfiguration = Self("invalidConfiguration")
  /// The provider lacks something the operation needs: an endpoint it does not advertise (UserInfo,
  /// revocation, end session, device authorization, pushed authorization requests), or PKCE with
  /// S256. Use another operation or another provider configuration.
  public static let unsupportedByProvider = Self("unsupportedByProvider")
  /// The redirect that reached the app is not the redirect URI of the authorization request (scheme,
  /// host, port and path must match exactly). Ignore it: it was not meant for this request.
  public static let redirectMismatch = Self("redirectMismatch")
  /// The redirect's `state` is missing or matches no pending authorization request: a stale, replayed
  /// or forged redirect. Ignore it and let the user start sign-in again.
  public static let stateMismatch = Self("stateMismatch")
  /// The authorization endpoint answered with an error (``XidError/oauthError`` holds its `error`,
  /// for example `access_denied` when the user declined). Let the user try again.
  public static let authorizationFailed = Self("authorizationFailed")
  /// The authorization response was malformed: no `code`, or a parameter given more than once.
  public static let invalidAuthorizationResponse = Self("invalidAuthorizationResponse")
  /// The pushed authorization request endpoint (RFC 9126) refused the request; ``XidError/httpStatus``
  /// and ``XidError/oauthError`` say how. Check the client's registration at the provider.
  public static let pushedAuthorizationFailed = Self("pushedAuthorizationFailed")
  /// The token endpoint refused a request; ``XidError/httpStatus`` and ``XidError/oauthError`` (when
  /// the provider sent one) say how. On a refresh, ``XidError/isInvalidGrant`` tells whether the grant
  /// is dead (sign the user in again: only an OAuth `invalid_grant` says so) and
  /// ``XidError/isTransient`` whether to try again later; any other refusal keeps the session.
  public static let tokenRequestFailed = Self("tokenRequestFailed")
  /// The token endpoint answered 2xx with a body that is not a valid token response: no
  /// `access_token`, an unknown `token_type`, a malformed member. The provider is misbehaving.
  public static let invalidTokenResponse = Self("invalidTokenResponse")
  /// The ID token failed validation (OpenID Connect Core 3.1.3.7, or 12.2 after a refresh): wrong
  /// issuer, audience, nonce, hash, a missing claim, expired or issued in the future. Do not use the
  /// tokens; if times are the problem, check the device clock.
  public static let invalidIDToken = Self("invalidIDToken")
  /// A device secret and the ID token it came with are not a pair (OpenID Connect Native SSO for
  /// Mobile Apps 1.0): the ID token has no `ds_hash`, or, where the provider's derivation is known
  /// (`SessionPolicy.deviceSecretHashRule`), its `ds_hash` is not that of the secret. Keep neither of
  /// the two, and keep what was stored before; the provider is misbehaving, or something altered its
  /// answer.
  public static let deviceSecretMismatch = Self("deviceSecretMismatch")
  /// No key of the provider's JWK Set fits the ID token, even after fetching the set again (keys may
  /// be re-fetched at most once a minute). The provider may be rotating keys: try again in a minute.
  public static let unknownSigningKey = Self("unknownSigningKey")
  /// The provider's JWK Set (`jwks_uri`) could not be fetched or parsed. Try again later.
  public static let keySetUnavailable = Self("keySetUnavailable")
  /// A protected resource's metadata (RFC 9728) could not be fetched, is not valid, or is about
  /// another resource than the one it was fetched for (its `resource` must be that identifier, or the
  /// URL of the refused request, exactly). Xid does not use it; check the resource's identifier.
  public static let resourceMetadataFailed = Self("resourceMetadataFailed")
  /// A resource server asks for a stronger or more recent authentication of the user (RFC 9470: a
  /// 401 whose `WWW-Authenticate` challenge says `insufficient_user_authentication`).
  /// ``XidError/stepUp`` holds its `acr_values` and `max_age`. The session is kept: sign the same
  /// user in again with `SignInOptions(stepUp:)` from the app in the foreground, then repeat the
  /// request. An App Intent cannot show the sign-in page; it asks the user to open the app.
  public static let stepUpRequired = Self("stepUpRequired")
  /// The provider refused to issue a token for a resource (RFC 8707 §2: OAuth `invalid_target`): it
  /// does not know the resource, or the session may not use it. The session is kept, and the
  /// session's other tokens stay usable; check `XidConfiguration.identity.resources` and the client's
  /// registration at the provider.
  public static let invalidTarget = Self("invalidTarget")
  /// The UserInfo endpoint refused the request; ``XidError/httpStatus`` and ``XidError/oauthError``
  /// (from `WWW-Authenticate`) say how. On `invalid_token`, refresh the access token and retry.
  public static let userInfoFailed = Self("userInfoFailed")
  /// The UserInfo response is about another user than the ID token (`sub` differs). Do not use it.
  public static let userInfoMismatch = Self("userInfoMismatch")
  /// A server answered in a form Xid does not support, for example a signed or encrypted UserInfo
  /// response (`application/jwt`). Configure the client at the provider for plain JSON responses.
  public static let unsupportedResponse = Self("unsupportedResponse")
  /// The revocation endpoint (RFC 7009) refused the request. Forget the token locally anyway.
  public static let revocationFailed = Self("revocationFailed")
  /// The device authorization endpoint (RFC 8628) refused to start a device flow; see
  /// ``XidError/oauthError``. Check that the client may use the device grant.
  public static let deviceAuthorizationFailed = Self("deviceAuthorizationFailed")
  /// The device code expired before the user approved the request (RFC 8628 `expired_token`, or its
  /// `expires_in` passed). Start a new device authorization.
  public static let deviceCodeExpired = Self("deviceCodeExpired")
  /// The user declined the device authorization request (RFC 8628 `access_denied`). Do not retry
  /// unless the user asks to.
  public static let accessDenied = Self("accessDenied")
  /// The operation was cancelled (its task was cancelled while it waited or polled). Nothing to do.
  public static let cancelled = Self("cancelled")

  // MARK: - Sessions and refresh

  /// The provider refused the refresh token: RFC 6749 `invalid_grant`, or an equivalent that an option
  /// of `XidConfiguration.policy.providerQuirks` accepts (such as glewlwyd's empty HTTP 400). Xid turns it
  /// into ``sessionExpired`` unless another process already rotated the token.
  public static let refreshRefused = Self("refreshRefused")
  /// The provider ended the session: the refresh token was refused and no other process holds a newer
  /// one. The local session was removed; sign the user in again.
  public static let sessionExpired = Self("sessionExpired")
  /// No user is signed in for this account (or the tokens cannot be refreshed). Sign the user in.
  public static let signInRequired = Self("signInRequired")
  /// A refresh answered with tokens that are not this session's: the new ID token is about another
  /// user, issuer or client, or its signature by a known key of the provider does not verify. Xid
  /// ended the session and revoked the new refresh token. Sign the user in again, and look into the
  /// provider's configuration (or whatever answers in its name). A token exchange reports it too when
  /// its ID token is about another user than its subject token: Xid revoked the new tokens and kept
  /// nothing, and no session changed.
  public static let foreignTokenResponse = Self("foreignTokenResponse")

  // MARK: - DPoP (RFC 9449)

  /// The session's DPoP key cannot be used: it is missing from storage (deleted, or the keychain was
  /// reset or restored to another device), it does not match the key the tokens are bound to, or the
  /// session was signed in without DPoP while the configuration now requires it. The tokens are never
  /// sent with another key or as Bearer tokens. Sign the user in again.
  public static let dpopKeyUnavailable = Self("dpopKeyUnavailable")
  /// The provider answered a token request that carried a DPoP proof with a token that is not bound
  /// to the key (`token_type` Bearer). Nothing was stored; the tokens were sent for revocation, and the
  /// reason says whether the provider revoked them, could not (it has no revocation endpoint), or
  /// failed to: in the last two cases they may stay valid until they expire. Enable DPoP for this
  /// client at the provider, or turn ``XidConfiguration/usesDPoP`` off.
  public static let dpopTokenUnbound = Self("dpopTokenUnbound")

  // MARK: - Sign-in

  /// The user closed the sign-in page or cancelled the sign-in. Nothing changed.
  public static let userCancelled = Self("userCancelled")
  /// The user did not finish signing in within the time allowed. Nothing changed; start again.
  public static let timedOut = Self("timedOut")
  /// A sign-in is already in progress; only one runs at a time.
  public static let signInInProgress = Self("signInInProgress")
  /// The sign-in (or end-session) page could not be shown: no window in a foreground scene to present
  /// it from, or the system refused to start the web authentication session. Nothing changed; try again
  /// while the app is in the foreground, or give the user agent a presentation anchor.
  public static let presentationFailed = Self("presentationFailed")
  /// Xid was used before ``Xid/configure(options:)``.
  public static let notConfigured = Self("notConfigured")

  // MARK: - Stored records

  /// A stored token record could not be read. Xid removes it and treats the account as signed out.
  public static let corruptRecord = Self("corruptRecord")
  /// A stored token record is in a format this version of Xid cannot read: a newer version of the app
  /// or of an extension sharing the storage wrote it. Xid leaves it as it is (the user is still signed
  /// in for that version) and reports this instead of a signed-out user: update this app or
  /// extension. Signing out, or signing in again, replaces it.
  public static let unsupportedRecordFormat = Self("unsupportedRecordFormat")

  // MARK: - Storage

  /// The token storage cannot be read right now (for example the device is locked, or the app was
  /// launched for prewarming before first unlock). The user is still signed in: try again once the
  /// device is unlocked; do not sign the user out.
  public static let storageLocked = Self("storageLocked")
  /// The token storage failed. The reason names the operation and the system's status.
  public static let storageFailure = Self("storageFailure")
  /// The app lacks the keychain access group entitlement it was configured with. Add the group to the
  /// app's (and extension's) Keychain Sharing entitlement, with the team ID prefix.
  public static let missingEntitlement = Self("missingEntitlement")
  /// Another process held the refresh lock for longer than Xid waits. Nothing was lost; try again.
  public static let lockTimeout = Self("lockTimeout")

  // MARK: - User presence (LocalAuthentication)

  /// The session lock is closed: Xid hands out no token, claim or request while it is. Call
  /// `unlock(localizedReason:)` from the app in the foreground (an App Intent tells the user to open
  /// the app). The user is still signed in; never sign out for this.
  public static let sessionLocked = Self("sessionLocked")
  /// The operation needs the user to confirm their presence (Face ID, Touch ID, Optic ID or the
  /// passcode), but no prompt can be shown here: the app is in the background, the process is an
  /// extension or a widget, or the device is locked. Retry from the app in the foreground. The user is
  /// still signed in; this is not ``storageLocked``, which clears when the device is unlocked.
  public static let userPresenceRequired = Self("userPresenceRequired")
  /// The user cancelled the Face ID, Touch ID, Optic ID or passcode prompt. Nothing changed; offer to
  /// try again, and do not ask again on your own.
  public static let authenticationCancelled = Self("authenticationCancelled")
  /// The user was not recognised (too many wrong faces, fingers or passcodes for this prompt). Nothing
  /// changed; let them try again.
  public static let authenticationFailed = Self("authenticationFailed")
  /// The user chose the prompt's fallback button ("Enter Password") where the requirement allows
  /// biometry only (`.biometryCurrentSet`). Offer your own way in, or configure a requirement with a
  /// passcode fallback.
  public static let authenticationFallback = Self("authenticationFallback")
  /// The system ended the prompt before the user answered (another app came to the front, the screen
  /// locked, or the prompt's context was invalidated). Nothing changed; try again when the app is active.
  public static let authenticationInterrupted = Self("authenticationInterrupted")
  /// The device has no passcode, so it cannot confirm the user's presence. Ask the user to set a
  /// passcode in Settings, or do not require presence on this device.
  public static let passcodeNotSet = Self("passcodeNotSet")
  /// Biometry cannot be used: the device has none, or the app may not use it (add
  /// `NSFaceIDUsageDescription` to the Info.plist; the user may have turned Face ID off for the app in
  /// Settings). Use a requirement with a passcode fallback, or tell the user.
  public static let biometryUnavailable = Self("biometryUnavailable")
  /// No face or finger is enrolled, and the requirement needs biometry (`.biometryCurrentSet`). Ask
  /// the user to enroll in Settings, or use a requirement with a passcode fallback.
  public static let biometryNotEnrolled = Self("biometryNotEnrolled")
  /// Biometry is locked after too many failed attempts. The user unlocks it by entering the device
  /// passcode (on the lock screen, or in a prompt with a passcode fallback); then try again.
  public static let biometryLockout = Self("biometryLockout")
  /// The key that protects a secret (the sealed refresh token, the DPoP key of the stricter mode, or a
  /// device credential) no longer exists or can no longer be used: the enrolled biometry changed (`.biometryCurrentSet`), the
  /// passcode was removed, or the key was deleted. The secret is lost: sign the user in again (the
  /// record is kept until then, and sign-out cleans up), or enroll the device credential again.
  public static let presenceKeyInvalidated = Self("presenceKeyInvalidated")

  // MARK: - The loopback server

  /// The loopback HTTP server (the redirect listener of desktop sign-in, or the test provider) could
  /// not start: the port is taken, or the process is out of file descriptors. The reason names the
  /// system error.
  public static let loopbackServerFailure = Self("loopbackServerFailure")

  /// Every code Xid reports, in the order of this list.
  public static let allCases: [Self] = [
    .invalidEncoding,
    .invalidJSON,
    .inputTooLarge,
    .invalidKey,
    .unsupportedKey,
    .malformedJWS,
    .unsupportedJWSFeature,
    .algorithmNotAllowed,
    .noMatchingKey,
    .invalidSignature,
    .invalidClaims,
    .cryptoFailure,
    .decryptionFailed,
    .networkFailure,
    .insecureURL,
    .responseTooLarge,
    .unexpectedResponse,
    .discoveryFailed,
    .issuerMismatch,
    .invalidConfiguration,
    .unsupportedByProvider,
    .redirectMismatch,
    .stateMismatch,
    .authorizationFailed,
    .invalidAuthorizationResponse,
    .pushedAuthorizationFailed,
    .tokenRequestFailed,
    .invalidTokenResponse,
    .invalidIDToken,
    .deviceSecretMismatch,
    .unknownSigningKey,
    .keySetUnavailable,
    .resourceMetadataFailed,
    .stepUpRequired,
    .invalidTarget,
    .userInfoFailed,
    .userInfoMismatch,
    .unsupportedResponse,
    .revocationFailed,
    .deviceAuthorizationFailed,
    .deviceCodeExpired,
    .accessDenied,
    .cancelled,
    .refreshRefused,
    .sessionExpired,
    .signInRequired,
    .foreignTokenResponse,
    .dpopKeyUnavailable,
    .dpopTokenUnbound,
    .userCancelled,
    .timedOut,
    .signInInProgress,
    .presentationFailed,
    .notConfigured,
    .corruptRecord,
    .unsupportedRecordFormat,
    .storageLocked,
    .storageFailure,
    .missingEntitlement,
    .lockTimeout,
    .sessionLocked,
    .userPresenceRequired,
    .authenticationCancelled,
    .authenticationFailed,
    .authenticationFallback,
    .authenticationInterrupted,
    .passcodeNotSet,
    .biometryUnavailable,
    .biometryNotEnrolled,
    .biometryLockout,
    .presenceKeyInvalidated,
    .loopbackServerFailure,
  ]
}
