// libFuzzer's entry point for a program with its own `main` (compiler-rt's FuzzerInterface.h). The
// fuzzer runtime, linked by `-sanitize=fuzzer`, defines it.
#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));

// LeakSanitizer (<sanitizer/lsan_interface.h>): what is allocated between the two calls is never
// reported as a leak.
void __lsan_disable(void);
void __lsan_enable(void);
