// Loads OpenSSL 3's libcrypto on the first cryptographic operation instead of at the program's start
// (Linux): XidJOSE's calls into libcrypto go through the functions of loader.c, which open the library
// once and forward. A program that never verifies, signs, hashes or draws random bytes (one that reads
// a stored token) never maps libcrypto; see docs/performance.md, "Cold start".
#ifndef XID_COPENSSL_LOADER_H
#define XID_COPENSSL_LOADER_H

/// Loads libcrypto if this has not been done yet. Returns NULL when it is loaded, otherwise why it
/// could not be (the file name and the loader's message), the same text on every later call.
const char *xid_libcrypto_load_error(void);

#endif
