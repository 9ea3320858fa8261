/// A record lives in memory for the `getAccessToken()` fast path, where `dump(Xid.shared)` reaches
/// it: its mirror shows what its `description` shows, never a token. Members added to the record
/// stay out of `dump` until they are listed here.
extension TokenRecord: CustomReflectable {
  var customMirror: Mirror {
    Mirror(
      self,
      children: [
        "version": version, "tokenType": tokenType, "expiresAt": expiresAt as Any,
        "hasRefreshToken": refreshToken != nil, "hasSealedRefreshToken": sealedRefreshToken != nil,
        "hasIDToken": idToken != nil, "scopes": scopes, "issuer": issuer,
        "clientId": clientId, "account": account, "dpopKeyThumbprint": dpopKeyThumbprint as Any,
      ])
  }
}
