// The parts of OpenSSL 3 libcrypto that XidJOSE uses on Linux, plus small helpers for what does not
// import into Swift (OSSL_PARAM arrays that keep pointers to caller buffers, variadic functions).
// Only non-deprecated EVP-level APIs are used. libcrypto is not linked: every function called here or
// from XidJOSE is forwarded by Sources/COpenSSLLoader/loader.c, which opens the library on first use;
// a function missing from its list fails the link with "undefined reference".
#ifndef XID_COPENSSL_SHIM_H
#define XID_COPENSSL_SHIM_H

#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/ec.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/param_build.h>
#include <openssl/rand.h>
#include <openssl/rsa.h>

/// Builds an EVP_PKEY from OSSL_PARAMs made by `bld`, then frees `bld`. `selection` is an
/// EVP_PKEY_PUBLIC_KEY or EVP_PKEY_KEYPAIR. Returns NULL on failure.
static inline EVP_PKEY *xid_pkey_from_params(const char *type, OSSL_PARAM_BLD *bld, int selection) {
  EVP_PKEY *pkey = NULL;
  OSSL_PARAM *params = bld ? OSSL_PARAM_BLD_to_param(bld) : NULL;
  EVP_PKEY_CTX *ctx = params ? EVP_PKEY_CTX_new_from_name(NULL, type, NULL) : NULL;
  if (ctx == NULL || EVP_PKEY_fromdata_init(ctx) <= 0 ||
      EVP_PKEY_fromdata(ctx, &pkey, selection, params) <= 0) {
    EVP_PKEY_free(pkey);
    pkey = NULL;
  }
  EVP_PKEY_CTX_free(ctx);
  OSSL_PARAM_free(params);
  OSSL_PARAM_BLD_free(bld);
  return pkey;
}

/// Checks a public key with the provider's own validation (point on the curve, RSA sanity).
static inline int xid_pkey_public_check(EVP_PKEY *pkey) {
  EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new_from_pkey(NULL, pkey, NULL);
  int ok = ctx != NULL && EVP_PKEY_public_check(ctx) == 1;
  EVP_PKEY_CTX_free(ctx);
  return ok;
}

/// A P-256 key from its uncompressed point (0x04 || x || y) and, for a key pair, the private scalar.
static inline EVP_PKEY *xid_pkey_p256(const unsigned char *point, size_t point_len,
                                      const unsigned char *d, size_t d_len) {
  OSSL_PARAM_BLD *bld = OSSL_PARAM_BLD_new();
  BIGNUM *priv = d ? BN_bin2bn(d, (int)d_len, NULL) : NULL;
  int ok = bld != NULL &&
           OSSL_PARAM_BLD_push_utf8_string(bld, OSSL_PKEY_PARAM_GROUP_NAME, "prime256v1", 0) &&
           OSSL_PARAM_BLD_push_octet_string(bld, OSSL_PKEY_PARAM_PUB_KEY, point, point_len) &&
           (d == NULL || (priv != NULL && OSSL_PARAM_BLD_push_BN(bld, OSSL_PKEY_PARAM_PRIV_KEY, priv)));
  EVP_PKEY *pkey = ok ? xid_pkey_from_params("EC", bld, d ? EVP_PKEY_KEYPAIR : EVP_PKEY_PUBLIC_KEY) : NULL;
  if (!ok) OSSL_PARAM_BLD_free(bld);
  BN_clear_free(priv);
  return pkey;
}

/// An RSA public key from its big-endian modulus and exponent.
static inline EVP_PKEY *xid_pkey_rsa_public(const unsigned char *n, size_t n_len,
                                            const unsigned char *e, size_t e_len) {
  OSSL_PARAM_BLD *bld = OSSL_PARAM_BLD_new();
  BIGNUM *bn_n = BN_bin2bn(n, (int)n_len, NULL);
  BIGNUM *bn_e = BN_bin2bn(e, (int)e_len, NULL);
  int ok = bld != NULL && bn_n != NULL && bn_e != NULL &&
           OSSL_PARAM_BLD_push_BN(bld, OSSL_PKEY_PARAM_RSA_N, bn_n) &&
           OSSL_PARAM_BLD_push_BN(bld, OSSL_PKEY_PARAM_RSA_E, bn_e);
  EVP_PKEY *pkey = ok ? xid_pkey_from_params("RSA", bld, EVP_PKEY_PUBLIC_KEY) : NULL;
  if (!ok) OSSL_PARAM_BLD_free(bld);
  BN_free(bn_n);
  BN_free(bn_e);
  return pkey;
}

/// An Ed25519 key from its 32-byte public key and, for a key pair, its 32-byte seed.
static inline EVP_PKEY *xid_pkey_ed25519(const unsigned char *pub, const unsigned char *seed) {
  OSSL_PARAM_BLD *bld = OSSL_PARAM_BLD_new();
  int ok = bld != NULL && OSSL_PARAM_BLD_push_octet_string(bld, OSSL_PKEY_PARAM_PUB_KEY, pub, 32) &&
           (seed == NULL || OSSL_PARAM_BLD_push_octet_string(bld, OSSL_PKEY_PARAM_PRIV_KEY, seed, 32));
  EVP_PKEY *pkey = ok ? xid_pkey_from_params("ED25519", bld, seed ? EVP_PKEY_KEYPAIR : EVP_PKEY_PUBLIC_KEY) : NULL;
  if (!ok) OSSL_PARAM_BLD_free(bld);
  return pkey;
}

/// Reads a BIGNUM parameter of a key as big-endian bytes, left-padded to `len` when `len` > 0.
/// Returns the number of bytes written, or -1.
static inline int xid_pkey_get_bn(const EVP_PKEY *pkey, const char *name, unsigned char *out, int cap, int len) {
  BIGNUM *bn = NULL;
  if (EVP_PKEY_get_bn_param(pkey, name, &bn) != 1) return -1;
  int n = BN_num_bytes(bn);
  int want = len > 0 ? len : n;
  int r = (want <= cap && n <= want) ? BN_bn2binpad(bn, out, want) : -1;
  BN_clear_free(bn);
  return r;
}

/// Converts a DER ECDSA signature to raw r || s, each left-padded to `half` bytes. Returns 1 on success.
static inline int xid_ecdsa_der_to_raw(const unsigned char *der, long der_len, unsigned char *raw, int half) {
  const unsigned char *p = der;
  ECDSA_SIG *sig = d2i_ECDSA_SIG(NULL, &p, der_len);
  if (sig == NULL) return 0;
  const BIGNUM *r = NULL, *s = NULL;
  ECDSA_SIG_get0(sig, &r, &s);
  int ok = BN_bn2binpad(r, raw, half) == half && BN_bn2binpad(s, raw + half, half) == half;
  ECDSA_SIG_free(sig);
  return ok;
}

/// Generates a key of `type` ("EC" with group P-256, "RSA" with `bits`, or "ED25519").
static inline EVP_PKEY *xid_pkey_generate(const char *type, unsigned int bits) {
  EVP_PKEY *pkey = NULL;
  EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new_from_name(NULL, type, NULL);
  int ok = ctx != NULL && EVP_PKEY_keygen_init(ctx) > 0;
  if (ok && type[0] == 'E' && type[1] == 'C') ok = EVP_PKEY_CTX_set_group_name(ctx, "prime256v1") > 0;
  if (ok && type[0] == 'R') ok = EVP_PKEY_CTX_set_rsa_keygen_bits(ctx, (int)bits) > 0;
  if (!ok || EVP_PKEY_generate(ctx, &pkey) <= 0) {
    EVP_PKEY_free(pkey);
    pkey = NULL;
  }
  EVP_PKEY_CTX_free(ctx);
  return pkey;
}

#endif
