// libFuzzer itself comes with `-sanitize=fuzzer`; this target declares its driver (see the header)
// and gives LeakSanitizer the suppressions the fuzz targets need.
#include "CLibFuzzer.h"

// LeakSanitizer finds a pointer only where it is stored whole. Swift keeps the case of a
// multi-payload enum in the spare bits of its payload's pointers (JWK's key material is such an
// enum), so a long-lived value like the fixed key set of FuzzJWS, created during the first input and
// kept for the whole run, reads as leaked. Only its creation is suppressed: any other allocation that
// outlives an input is still a leak.
const char *__lsan_default_suppressions(void) { return "leak:FuzzSupport9FixedKeys\n"; }
