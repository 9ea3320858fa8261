// What ECIES needs from OpenSSL 3 libcrypto (ECDH on P-256, the ANSI X9.63 KDF, AES-GCM with any IV
// length), as small helpers over the EVP API: OSSL_PARAM arrays and cipher controls do not import well
// into Swift. Only non-deprecated EVP-level APIs are used. As for shim.h, every libcrypto function
// called here is forwarded by Sources/COpenSSLLoader/loader.c, which opens the library on first use.
#ifndef XID_COPENSSL_ECIES_H
#define XID_COPENSSL_ECIES_H

#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/kdf.h>

/// Whether the private and public halves of `pkey` belong together (and the point is on the curve).
static inline int xid_pkey_pairwise_check(EVP_PKEY *pkey) {
  EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new_from_pkey(NULL, pkey, NULL);
  int ok = ctx != NULL && EVP_PKEY_pairwise_check(ctx) == 1;
  EVP_PKEY_CTX_free(ctx);
  return ok;
}

/// The ECDH shared secret (the x coordinate) of `priv` and `peer`, validating the peer's key, into
/// `out` (at least `cap` bytes). Returns its length, or -1.
static inline int xid_ecdh_derive(EVP_PKEY *priv, EVP_PKEY *peer, unsigned char *out, size_t cap) {
  EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new_from_pkey(NULL, priv, NULL);
  size_t len = cap;
  int ok = ctx != NULL && EVP_PKEY_derive_init(ctx) == 1 && EVP_PKEY_derive_set_peer_ex(ctx, peer, 1) == 1 &&
           EVP_PKEY_derive(ctx, out, &len) == 1;
  EVP_PKEY_CTX_free(ctx);
  return ok ? (int)len : -1;
}

/// The ANSI X9.63 KDF with SHA-256 (SEC 1 §3.6.1) of `secret` and `info`, `out_len` bytes into `out`.
/// Returns 1 on success.
static inline int xid_x963kdf_sha256(const unsigned char *secret, size_t secret_len, const unsigned char *info,
                                     size_t info_len, unsigned char *out, size_t out_len) {
  EVP_KDF *kdf = EVP_KDF_fetch(NULL, "X963KDF", NULL);
  EVP_KDF_CTX *ctx = kdf ? EVP_KDF_CTX_new(kdf) : NULL;
  OSSL_PARAM params[4];
  params[0] = OSSL_PARAM_construct_utf8_string(OSSL_KDF_PARAM_DIGEST, (char *)"SHA2-256", 0);
  params[1] = OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_KEY, (void *)secret, secret_len);
  params[2] = OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_INFO, (void *)info, info_len);
  params[3] = OSSL_PARAM_construct_end();
  int ok = ctx != NULL && EVP_KDF_derive(ctx, out, out_len, params) == 1;
  EVP_KDF_CTX_free(ctx);
  EVP_KDF_free(kdf);
  return ok;
}

/// AES-GCM (AES-128 or AES-256 by `key_len`) with an IV of `iv_len` bytes, no additional data and a
/// 16-byte tag. Encrypting writes `in_len` bytes to `out` and the tag to `tag`; decrypting checks
/// `tag` and writes the plaintext. Returns 1 on success, 0 when decryption finds the tag wrong.
static inline int xid_aes_gcm(int encrypt, const unsigned char *key, size_t key_len, const unsigned char *iv,
                              size_t iv_len, const unsigned char *in, size_t in_len, unsigned char *out,
                              unsigned char *tag) {
  const char *name = key_len == 16 ? "AES-128-GCM" : key_len == 32 ? "AES-256-GCM" : NULL;
  EVP_CIPHER *cipher = name ? EVP_CIPHER_fetch(NULL, name, NULL) : NULL;
  EVP_CIPHER_CTX *ctx = cipher ? EVP_CIPHER_CTX_new() : NULL;
  int len = 0, ok = ctx != NULL && in_len <= 0x7fffffff;
  ok = ok && EVP_CipherInit_ex2(ctx, cipher, NULL, NULL, encrypt, NULL) == 1;
  ok = ok && EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_SET_IVLEN, (int)iv_len, NULL) == 1;
  ok = ok && EVP_CipherInit_ex2(ctx, NULL, key, iv, encrypt, NULL) == 1;
  if (ok && in_len > 0) ok = EVP_CipherUpdate(ctx, out, &len, in, (int)in_len) == 1;
  if (ok && !encrypt) ok = EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_SET_TAG, 16, tag) == 1;
  ok = ok && EVP_CipherFinal_ex(ctx, out + len, &len) == 1;
  if (ok && encrypt) ok = EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_GET_TAG, 16, tag) == 1;
  EVP_CIPHER_CTX_free(ctx);
  EVP_CIPHER_free(cipher);
  return ok;
}

#endif
