import XidJOSE

/// The fixed public keys FuzzJWS verifies every input with, so that the verification path runs on
/// every token and signatures can succeed: tokens in the seed corpus signed by these keys' private
/// halves verify, and the fuzzer mutates them from there.
///
/// All are published test keys: the ES256 and RSA keys of Project Wycheproof's
/// `json_web_signature_test.json` (groups `es256`, `rs256` and `ps256`) and the Ed25519 key of RFC 8037
/// A.1. MakeFuzzCorpus reads the private halves from those vectors; no private key is in this package.
public enum FixedKeys {
  /// The public JWKs, one JSON object each.
  public static let publicJWKs: [String] = [
    #"{"alg":"ES256","use":"sig","x":"04N0xi21hshyvBp7I167sbE_bXqyqkAPfefdklMO7wY","y":"UI8exy-C06a7DUnjIdENkxeFtHM4-l_41LqEw9nVgmw","crv":"P-256","kid":"kid-ec-sign","kty":"EC"}"#,
    #"{"kty":"OKP","crv":"Ed25519","x":"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo","use":"sig","kid":"rfc8037-ed25519"}"#,
    #"{"alg":"RS256","use":"sig","n":"kqGboBfAWttWPCA-0cGRgsY6SaYoIARt0B_PkaEcIq9HPYNdu9n6UuWHuuTHrjF_ZoQW97r5HaAorNvrMEGTGdxCHZdEtkHvNVVmrtxTBLiQCbCozXhFoIrVcr3qUBrdGnNn_M3jJi7Wg7p_-x62nS5gNG875oyheRkutHsQXikFZwsN3q_TsPNOVlCiHy8mxzaFTUQGm-X8UYexFyAivlDSjgDJLAZSWfxd7k9Gxuwa3AUfQqQcVcegmgKGCaErQ3qQbh1x7WB6iopE3_-GZ8HMAVtR9AmrVscqYsnjhaCehfAI0iKKs8zXr8tISc0ORbaalrkk03H1ZrsEnDKEWQ","e":"AQAB","kid":"kid-rsa-sign","kty":"RSA"}"#,
    #"{"kty":"RSA","alg":"RS256","n":"orRRoH0KpfluRVZxUTVQUUqKW0YuvvcXCU-h_ugiJOY3-XRtP3yv0xh42AMltu9aFwD2WQO0aUKeidbqyIRQl7WrOTGJ25JRLtincRoSU_rNIPecFegkfz0-QuRuSMmOJUov6XZTE6A-_48X4aApOXofomqNzib0kO2BKZYV2YFMItphBCjgnH2WWFlCZvXAIdD87KCNlFoSvoLeTR7Oa0wDFFtdNJXU7VQR64eNrwX9evw-Ca2g8RJkIvWQl1oZaYFvSGmLy7obTZyuedRg2Pn4Xnl1AF2bwixOWsD3waRdElaaYoB9O5oC5aUw53MGb0U9H1tMLpz3ggKD90K51Q","e":"AQAB","kid":"RS256_2048"}"#,
    #"{"kty":"RSA","use":"sig","alg":"PS256","n":"orRRoH0KpfluRVZxUTVQUUqKW0YuvvcXCU-h_ugiJOY3-XRtP3yv0xh42AMltu9aFwD2WQO0aUKeidbqyIRQl7WrOTGJ25JRLtincRoSU_rNIPecFegkfz0-QuRuSMmOJUov6XZTE6A-_48X4aApOXofomqNzib0kO2BKZYV2YFMItphBCjgnH2WWFlCZvXAIdD87KCNlFoSvoLeTR7Oa0wDFFtdNJXU7VQR64eNrwX9evw-Ca2g8RJkIvWQl1oZaYFvSGmLy7obTZyuedRg2Pn4Xnl1AF2bwixOWsD3waRdElaaYoB9O5oC5aUw53MGb0U9H1tMLpz3ggKD90K51Q","e":"AQAB","kid":"PS256_2048"}"#,
  ]

  /// The keys as a JWK Set document.
  public static var jwksDocument: String { #"{"keys":["# + publicJWKs.joined(separator: ",") + "]}" }

  /// The keys, prepared.
  public static let keySet: JWKSet = {
    let set = try! JWKSet(parsing: Array(jwksDocument.utf8))
    precondition(set.skipped.isEmpty && set.keys.count == publicJWKs.count, "a fixed key was refused")
    return set
  }()
}
