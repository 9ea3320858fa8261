/// The `aud` of a `private_key_jwt` client assertion (RFC 7523 §3): whom the assertion is for.
///
/// Specifications differ: FAPI 2.0 asks for the issuer identifier as the only audience, which
/// ``issuer`` (the default) sends; OpenID Connect Core §9 says the audience SHOULD be the URL of the
/// token endpoint, and some providers (glewlwyd) accept only the URL of the endpoint the request goes
/// to, which ``endpoint`` sends.
public enum ClientAssertionAudience: String, Sendable, Hashable, CaseIterable {
  /// The issuer identifier, as FAPI 2.0 asks.
  case issuer
  /// The URL of the endpoint the assertion is posted to: the token endpoint's for a token request,
  /// the pushed authorization, revocation or device authorization endpoint's for those.
  case endpoint
}
