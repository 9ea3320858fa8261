#ifndef XID_CLIBFUZZER_H
#define XID_CLIBFUZZER_H

#include <stddef.h>
#include <stdint.h>

/// libFuzzer's driver (compiler-rt, linked by `-sanitize=fuzzer`): parses libFuzzer's flags from
/// `argv` and runs `callback` on each input, as libFuzzer's own `main` would.
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));

#endif
