#ifndef HEARTH_CCRC32C_H
#define HEARTH_CCRC32C_H

#include <stddef.h>
#include <stdint.h>

/// Whether this CPU computes CRC-32C in hardware (x86-64 with SSE 4.2, or 64-bit ARM with the CRC
/// extension); checked once with the CPU's own feature bits.
int hearth_crc32c_hardware(void);

/// Continues a CRC-32C over `count` bytes at `data` from `crc` (the running, pre-inverted state),
/// with the CPU's CRC instruction. Only call it when `hearth_crc32c_hardware()` is 1.
uint32_t hearth_crc32c_update(uint32_t crc, const void *data, size_t count);

#endif
