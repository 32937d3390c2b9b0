/*
 * ML-KEM (FIPS 203): key generation, encapsulation and decapsulation for ML-KEM-512/768/1024.
 * Every function returns 0 on success and -1 on failure (unknown parameter set, key that fails
 * its input check). The shared secret is always 32 bytes.
 */
#ifndef PQTPM_CRYPTO_MLKEM_H
#define PQTPM_CRYPTO_MLKEM_H

#include <stddef.h>
#include <stdint.h>

/* parameter sets use the TPM 2.0 v1.85 numbering */
enum { MLKEM_512 = 1, MLKEM_768 = 2, MLKEM_1024 = 3 };

#define MLKEM_SS_BYTES 32
#define MLKEM_MAX_EK_BYTES 1568
#define MLKEM_MAX_DK_BYTES 3168
#define MLKEM_MAX_CT_BYTES 1568

/* 0 for an unknown set */
size_t mlkem_ek_bytes(int set);
size_t mlkem_dk_bytes(int set);
size_t mlkem_ct_bytes(int set);

/* Alg. 16 KeyGen_internal(d, z); dk is the expanded FIPS 203 encoding */
int mlkem_keygen(int set, const uint8_t d[32], const uint8_t z[32], uint8_t *ek, uint8_t *dk);
/* Alg. 17 Encaps_internal with randomness m; checks ek first (section 7.2) */
int mlkem_encaps(int set, const uint8_t *ek, const uint8_t m[32], uint8_t *ct, uint8_t ss[32]);
/*
 * Alg. 18 Decaps_internal; checks dk first (section 7.3). A ciphertext that does not re-encrypt
 * gives the implicit-rejection key J(z || c) and still returns 0.
 */
int mlkem_decaps(int set, const uint8_t *dk, const uint8_t *ct, uint8_t ss[32]);

/* FIPS 203 section 7.2 (length, modulus check) and 7.3 (length, hash check) */
int mlkem_check_ek(int set, const uint8_t *ek, size_t len);
int mlkem_check_dk(int set, const uint8_t *dk, size_t len);

#endif
