#ifndef HEARTH_CZLIB_SHIM_H
#define HEARTH_CZLIB_SHIM_H

#include <zlib.h>

/// `inflateInit2` is a macro (it passes zlib's version and `sizeof(z_stream)`): a function Swift can call.
static inline int hearth_inflateInit2(z_streamp stream, int windowBits) {
    return inflateInit2(stream, windowBits);
}

#endif
