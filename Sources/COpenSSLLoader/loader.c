// OpenSSL 3's libcrypto, opened on the first call that needs it (see include/COpenSSLLoader.h).
//
// Every libcrypto function that XidJOSE (and Sources/COpenSSL/shim.h) calls is defined here, with the
// prototype of OpenSSL's header, as a hidden function of the same name that forwards to the library's
// own: the compiler checks each prototype against the header, the linker resolves Xid's calls to
// these definitions, and none is exported, so other users of libcrypto in the process (libcurl) call
// the library directly. A function used but not listed fails the link with "undefined reference to"
// its name: add it to XID_LIBCRYPTO_FUNCTIONS.
//
// If the library cannot be opened, the functions return their failure value (NULL, 0 or -1 as OpenSSL
// documents it) and xid_libcrypto_load_error() says why; XidJOSE turns that into a typed error.
#if defined(__linux__)

#include "COpenSSLLoader.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

#include <openssl/bn.h>
#include <openssl/ec.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/kdf.h>
#include <openssl/opensslv.h>
#include <openssl/params.h>
#include <openssl/param_build.h>
#include <openssl/rand.h>
#include <openssl/rsa.h>

#define XID_STRING_(x) #x
#define XID_STRING(x) XID_STRING_(x)
/// The library the headers belong to, as the link editor would have recorded it (DT_NEEDED).
#define XID_LIBCRYPTO "libcrypto.so." XID_STRING(OPENSSL_VERSION_MAJOR)

// F(return type, name, parameters, arguments, value returned when libcrypto is missing) for functions
// that return a value; V(name, parameters, arguments) for those that return nothing: they free or
// clear what only a loaded libcrypto could have made, so they do nothing (and load nothing) before.
#define XID_LIBCRYPTO_FUNCTIONS(F, V)                                                                      \
  F(BIGNUM *, BN_bin2bn, (const unsigned char *s, int len, BIGNUM *ret), (s, len, ret), NULL)            \
  F(int, BN_bn2binpad, (const BIGNUM *a, unsigned char *to, int tolen), (a, to, tolen), -1)              \
  V(BN_clear_free, (BIGNUM * a), (a))                                                                    \
  V(BN_free, (BIGNUM * a), (a))                                                                          \
  F(int, BN_num_bits, (const BIGNUM *a), (a), 0)                                                         \
  V(ECDSA_SIG_free, (ECDSA_SIG * sig), (sig))                                                            \
  V(ECDSA_SIG_get0, (const ECDSA_SIG *sig, const BIGNUM **pr, const BIGNUM **ps), (sig, pr, ps))         \
  V(ERR_clear_error, (void), ())                                                                         \
  F(int, EVP_Digest,                                                                                     \
    (const void *data, size_t count, unsigned char *md, unsigned int *size, const EVP_MD *type,          \
     ENGINE *impl),                                                                                      \
    (data, count, md, size, type, impl), 0)                                                              \
  F(int, EVP_DigestFinal_ex, (EVP_MD_CTX * ctx, unsigned char *md, unsigned int *s), (ctx, md, s), 0)     \
  F(int, EVP_DigestInit_ex2, (EVP_MD_CTX * ctx, const EVP_MD *type, const OSSL_PARAM params[]),          \
    (ctx, type, params), 0)                                                                              \
  F(int, EVP_DigestSign,                                                                                 \
    (EVP_MD_CTX * ctx, unsigned char *sigret, size_t *siglen, const unsigned char *tbs, size_t tbslen),  \
    (ctx, sigret, siglen, tbs, tbslen), 0)                                                               \
  F(int, EVP_DigestSignInit_ex,                                                                          \
    (EVP_MD_CTX * ctx, EVP_PKEY_CTX * *pctx, const char *mdname, OSSL_LIB_CTX *libctx, const char *props, \
     EVP_PKEY *pkey, const OSSL_PARAM params[]),                                                         \
    (ctx, pctx, mdname, libctx, props, pkey, params), 0)                                                 \
  F(int, EVP_DigestUpdate, (EVP_MD_CTX * ctx, const void *d, size_t cnt), (ctx, d, cnt), 0)             \
  F(int, EVP_DigestVerify,                                                                               \
    (EVP_MD_CTX * ctx, const unsigned char *sigret, size_t siglen, const unsigned char *tbs,             \
     size_t tbslen),                                                                                     \
    (ctx, sigret, siglen, tbs, tbslen), -1)                                                              \
  F(int, EVP_DigestVerifyInit_ex,                                                                        \
    (EVP_MD_CTX * ctx, EVP_PKEY_CTX * *pctx, const char *mdname, OSSL_LIB_CTX *libctx, const char *props, \
     EVP_PKEY *pkey, const OSSL_PARAM params[]),                                                         \
    (ctx, pctx, mdname, libctx, props, pkey, params), 0)                                                 \
  F(int, EVP_MD_CTX_copy_ex, (EVP_MD_CTX * out, const EVP_MD_CTX *in), (out, in), 0)                     \
  V(EVP_MD_CTX_free, (EVP_MD_CTX * ctx), (ctx))                                                          \
  F(EVP_MD_CTX *, EVP_MD_CTX_new, (void), (), NULL)                                                      \
  F(EVP_MD *, EVP_MD_fetch, (OSSL_LIB_CTX * ctx, const char *algorithm, const char *properties),         \
    (ctx, algorithm, properties), NULL)                                                                  \
  F(EVP_PKEY_CTX *, EVP_PKEY_CTX_dup, (const EVP_PKEY_CTX *ctx), (ctx), NULL)                            \
  V(EVP_PKEY_CTX_free, (EVP_PKEY_CTX * ctx), (ctx))                                                      \
  F(EVP_PKEY_CTX *, EVP_PKEY_CTX_new_from_name, (OSSL_LIB_CTX * libctx, const char *name,                \
                                                 const char *propquery),                                 \
    (libctx, name, propquery), NULL)                                                                     \
  F(EVP_PKEY_CTX *, EVP_PKEY_CTX_new_from_pkey, (OSSL_LIB_CTX * libctx, EVP_PKEY * pkey,                 \
                                                 const char *propquery),                                 \
    (libctx, pkey, propquery), NULL)                                                                     \
  F(int, EVP_PKEY_CTX_set_group_name, (EVP_PKEY_CTX * ctx, const char *name), (ctx, name), 0)            \
  F(int, EVP_PKEY_CTX_set_rsa_keygen_bits, (EVP_PKEY_CTX * ctx, int bits), (ctx, bits), 0)               \
  F(int, EVP_PKEY_CTX_set_rsa_mgf1_md, (EVP_PKEY_CTX * ctx, const EVP_MD *md), (ctx, md), 0)             \
  F(int, EVP_PKEY_CTX_set_rsa_padding, (EVP_PKEY_CTX * ctx, int pad_mode), (ctx, pad_mode), 0)           \
  F(int, EVP_PKEY_CTX_set_rsa_pss_saltlen, (EVP_PKEY_CTX * ctx, int saltlen), (ctx, saltlen), 0)         \
  F(int, EVP_PKEY_CTX_set_signature_md, (EVP_PKEY_CTX * ctx, const EVP_MD *md), (ctx, md), 0)            \
  V(EVP_PKEY_free, (EVP_PKEY * pkey), (pkey))                                                            \
  F(EVP_PKEY *, EVP_PKEY_new_raw_private_key_ex,                                                         \
    (OSSL_LIB_CTX * libctx, const char *keytype, const char *propq, const unsigned char *priv, size_t len), \
    (libctx, keytype, propq, priv, len), NULL)                                                           \
  F(int, EVP_PKEY_fromdata, (EVP_PKEY_CTX * ctx, EVP_PKEY * *ppkey, int selection, OSSL_PARAM param[]),  \
    (ctx, ppkey, selection, param), 0)                                                                   \
  F(int, EVP_PKEY_fromdata_init, (EVP_PKEY_CTX * ctx), (ctx), 0)                                         \
  F(int, EVP_PKEY_generate, (EVP_PKEY_CTX * ctx, EVP_PKEY * *ppkey), (ctx, ppkey), 0)                    \
  F(int, EVP_PKEY_get_bn_param, (const EVP_PKEY *pkey, const char *key_name, BIGNUM **bn),               \
    (pkey, key_name, bn), 0)                                                                             \
  F(int, EVP_PKEY_get_raw_public_key, (const EVP_PKEY *pkey, unsigned char *pub, size_t *len),           \
    (pkey, pub, len), 0)                                                                                 \
  F(int, EVP_PKEY_keygen_init, (EVP_PKEY_CTX * ctx), (ctx), 0)                                           \
  F(int, EVP_PKEY_public_check, (EVP_PKEY_CTX * ctx), (ctx), 0)                                          \
  F(int, EVP_PKEY_sign,                                                                                  \
    (EVP_PKEY_CTX * ctx, unsigned char *sig, size_t *siglen, const unsigned char *tbs, size_t tbslen),   \
    (ctx, sig, siglen, tbs, tbslen), 0)                                                                  \
  F(int, EVP_PKEY_sign_init, (EVP_PKEY_CTX * ctx), (ctx), 0)                                             \
  F(int, EVP_PKEY_verify,                                                                                \
    (EVP_PKEY_CTX * ctx, const unsigned char *sig, size_t siglen, const unsigned char *tbs,              \
     size_t tbslen),                                                                                     \
    (ctx, sig, siglen, tbs, tbslen), -1)                                                                 \
  F(int, EVP_PKEY_verify_init, (EVP_PKEY_CTX * ctx), (ctx), 0)                                           \
  F(int, EVP_PKEY_pairwise_check, (EVP_PKEY_CTX * ctx), (ctx), 0)                                        \
  F(int, EVP_PKEY_derive_init, (EVP_PKEY_CTX * ctx), (ctx), 0)                                           \
  F(int, EVP_PKEY_derive_set_peer_ex, (EVP_PKEY_CTX * ctx, EVP_PKEY * peer, int validate_peer),          \
    (ctx, peer, validate_peer), 0)                                                                       \
  F(int, EVP_PKEY_derive, (EVP_PKEY_CTX * ctx, unsigned char *key, size_t *keylen), (ctx, key, keylen), 0) \
  F(EVP_KDF *, EVP_KDF_fetch, (OSSL_LIB_CTX * libctx, const char *algorithm, const char *properties),    \
    (libctx, algorithm, properties), NULL)                                                               \
  F(EVP_KDF_CTX *, EVP_KDF_CTX_new, (EVP_KDF * kdf), (kdf), NULL)                                        \
  F(int, EVP_KDF_derive, (EVP_KDF_CTX * ctx, unsigned char *key, size_t keylen, const OSSL_PARAM params[]), \
    (ctx, key, keylen, params), 0)                                                                       \
  V(EVP_KDF_CTX_free, (EVP_KDF_CTX * ctx), (ctx))                                                        \
  V(EVP_KDF_free, (EVP_KDF * kdf), (kdf))                                                                \
  F(EVP_CIPHER *, EVP_CIPHER_fetch, (OSSL_LIB_CTX * ctx, const char *algorithm, const char *properties), \
    (ctx, algorithm, properties), NULL)                                                                  \
  F(EVP_CIPHER_CTX *, EVP_CIPHER_CTX_new, (void), (), NULL)                                              \
  F(int, EVP_CipherInit_ex2,                                                                             \
    (EVP_CIPHER_CTX * ctx, const EVP_CIPHER *cipher, const unsigned char *key, const unsigned char *iv,  \
     int enc, const OSSL_PARAM params[]),                                                                \
    (ctx, cipher, key, iv, enc, params), 0)                                                              \
  F(int, EVP_CIPHER_CTX_ctrl, (EVP_CIPHER_CTX * ctx, int type, int arg, void *ptr), (ctx, type, arg, ptr), 0) \
  F(int, EVP_CipherUpdate,                                                                               \
    (EVP_CIPHER_CTX * ctx, unsigned char *out, int *outl, const unsigned char *in, int inl),             \
    (ctx, out, outl, in, inl), 0)                                                                        \
  F(int, EVP_CipherFinal_ex, (EVP_CIPHER_CTX * ctx, unsigned char *outm, int *outl), (ctx, outm, outl), 0) \
  V(EVP_CIPHER_CTX_free, (EVP_CIPHER_CTX * c), (c))                                                      \
  V(EVP_CIPHER_free, (EVP_CIPHER * cipher), (cipher))                                                    \
  F(OSSL_PARAM, OSSL_PARAM_construct_utf8_string, (const char *key, char *buf, size_t bsize),           \
    (key, buf, bsize), (OSSL_PARAM){0})                                                                  \
  F(OSSL_PARAM, OSSL_PARAM_construct_octet_string, (const char *key, void *buf, size_t bsize),          \
    (key, buf, bsize), (OSSL_PARAM){0})                                                                  \
  F(OSSL_PARAM, OSSL_PARAM_construct_end, (void), (), (OSSL_PARAM){0})                                   \
  V(OSSL_PARAM_BLD_free, (OSSL_PARAM_BLD * bld), (bld))                                                  \
  F(OSSL_PARAM_BLD *, OSSL_PARAM_BLD_new, (void), (), NULL)                                              \
  F(int, OSSL_PARAM_BLD_push_BN, (OSSL_PARAM_BLD * bld, const char *key, const BIGNUM *bn),              \
    (bld, key, bn), 0)                                                                                   \
  F(int, OSSL_PARAM_BLD_push_octet_string,                                                               \
    (OSSL_PARAM_BLD * bld, const char *key, const void *buf, size_t bsize), (bld, key, buf, bsize), 0)   \
  F(int, OSSL_PARAM_BLD_push_utf8_string,                                                                \
    (OSSL_PARAM_BLD * bld, const char *key, const char *buf, size_t bsize), (bld, key, buf, bsize), 0)   \
  F(OSSL_PARAM *, OSSL_PARAM_BLD_to_param, (OSSL_PARAM_BLD * bld), (bld), NULL)                          \
  V(OSSL_PARAM_free, (OSSL_PARAM * p), (p))                                                              \
  F(int, RAND_bytes, (unsigned char *buf, int num), (buf, num), 0)                                       \
  F(ECDSA_SIG *, d2i_ECDSA_SIG, (ECDSA_SIG * *sig, const unsigned char **pp, long len), (sig, pp, len),  \
    NULL)

/// The library's own functions, found once.
static struct {
#define XID_POINTER(type, name, parameters, arguments, failure) type(*name) parameters;
#define XID_VOID_POINTER(name, parameters, arguments) void(*name) parameters;
  XID_LIBCRYPTO_FUNCTIONS(XID_POINTER, XID_VOID_POINTER)
#undef XID_POINTER
#undef XID_VOID_POINTER
} libcrypto;

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
/// 1 once every function is found; read without the once after that.
static int loaded;
static char load_error[512];

static void load(void) {
  // RTLD_LOCAL: the functions are reached through this table only. When libcurl has loaded libcrypto
  // already, this returns that same copy.
  void *library = dlopen(XID_LIBCRYPTO, RTLD_NOW | RTLD_LOCAL);
  if (library == NULL) {
    const char *reason = dlerror();
    snprintf(load_error, sizeof load_error, "%s (OpenSSL 3) could not be loaded: %s", XID_LIBCRYPTO,
             reason ? reason : "no reason given");
    return;
  }
#define XID_FIND(name)                                                                                   \
  if ((*(void **)&libcrypto.name = dlsym(library, #name)) == NULL) {                                     \
    snprintf(load_error, sizeof load_error, "%s (OpenSSL 3) lacks the function %s", XID_LIBCRYPTO, #name); \
    return;                                                                                              \
  }
#define XID_FIND_FUNCTION(type, name, parameters, arguments, failure) XID_FIND(name)
#define XID_FIND_VOID_FUNCTION(name, parameters, arguments) XID_FIND(name)
  XID_LIBCRYPTO_FUNCTIONS(XID_FIND_FUNCTION, XID_FIND_VOID_FUNCTION)
#undef XID_FIND
#undef XID_FIND_FUNCTION
#undef XID_FIND_VOID_FUNCTION
  __atomic_store_n(&loaded, 1, __ATOMIC_RELEASE);
}

/// Whether libcrypto is loaded, loading it on the first call.
static inline int libcrypto_ready(void) {
  if (__builtin_expect(__atomic_load_n(&loaded, __ATOMIC_ACQUIRE), 1)) return 1;
  pthread_once(&load_once, load);
  return __atomic_load_n(&loaded, __ATOMIC_ACQUIRE);
}

const char *xid_libcrypto_load_error(void) { return libcrypto_ready() ? NULL : load_error; }

#define XID_FORWARD(type, name, parameters, arguments, failure)                                         \
  __attribute__((visibility("hidden"))) type name parameters {                                           \
    return libcrypto_ready() ? libcrypto.name arguments : failure;                                       \
  }
#define XID_FORWARD_VOID(name, parameters, arguments)                                                    \
  __attribute__((visibility("hidden"))) void name parameters {                                           \
    if (__atomic_load_n(&loaded, __ATOMIC_ACQUIRE)) libcrypto.name arguments;                            \
  }
XID_LIBCRYPTO_FUNCTIONS(XID_FORWARD, XID_FORWARD_VOID)
#undef XID_FORWARD
#undef XID_FORWARD_VOID

#endif
