// CRC-32C with the CPU's instruction: SSE 4.2's crc32 on x86-64, the CRC extension's crc32c on
// 64-bit ARM. A feature check decides at run time; without it the Swift caller uses its tables.

#include "CCRC32C.h"
#include <string.h>

#if defined(__x86_64__)
#include <cpuid.h>

int hearth_crc32c_hardware(void) {
    unsigned int a, b, c, d;
    if (!__get_cpuid(1, &a, &b, &c, &d)) return 0;
    return (c & bit_SSE4_2) != 0;
}

__attribute__((target("sse4.2")))
uint32_t hearth_crc32c_update(uint32_t crc, const void *data, size_t count) {
    const unsigned char *p = data;
    uint64_t crc64 = crc;
    while (count >= 8) {
        uint64_t word;
        memcpy(&word, p, 8);
        crc64 = __builtin_ia32_crc32di(crc64, word);
        p += 8;
        count -= 8;
    }
    uint32_t crc32 = (uint32_t)crc64;
    while (count > 0) {
        crc32 = __builtin_ia32_crc32qi(crc32, *p);
        p += 1;
        count -= 1;
    }
    return crc32;
}

#elif defined(__aarch64__) && defined(__linux__)
#include <sys/auxv.h>
#ifndef HWCAP_CRC32
#define HWCAP_CRC32 (1 << 7)
#endif

int hearth_crc32c_hardware(void) { return (getauxval(AT_HWCAP) & HWCAP_CRC32) != 0; }

__attribute__((target("crc")))
uint32_t hearth_crc32c_update(uint32_t crc, const void *data, size_t count) {
    const unsigned char *p = data;
    while (count >= 8) {
        uint64_t word;
        memcpy(&word, p, 8);
        crc = __builtin_arm_crc32cd(crc, word);
        p += 8;
        count -= 8;
    }
    while (count > 0) {
        crc = __builtin_arm_crc32cb(crc, *p);
        p += 1;
        count -= 1;
    }
    return crc;
}

#else

int hearth_crc32c_hardware(void) { return 0; }

uint32_t hearth_crc32c_update(uint32_t crc, const void *data, size_t count) {
    (void)data;
    (void)count;
    return crc;
}

#endif
