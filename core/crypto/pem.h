/* PEM (RFC 7468) text of a DER structure. */
#ifndef PQTPM_CRYPTO_PEM_H
#define PQTPM_CRYPTO_PEM_H

#include <stddef.h>
#include <stdint.h>

/* "-----BEGIN label-----", base64 in lines of 64, "-----END label-----", each line ending in
 * '\n', NUL-terminated. Returns the length without the NUL, or 0 if cap is too small. */
size_t pem_encode(const char *label, const uint8_t *der, size_t len, char *out, size_t cap);

#endif
