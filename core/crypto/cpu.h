/*
 * Which instruction-set extensions the post-quantum code may use (ML-DSA's NTT and Keccak have
 * AVX2 versions, core/crypto/mldsa/ntt_avx2.c and core/crypto/keccak_x4_avx2.c). Detected once
 * from cpuid (and the operating system's support for the YMM state); PQTPM_NO_AVX2=1 in the
 * environment at the first call turns the AVX2 code off, so that the portable code can be measured
 * or used on purpose. Safe to call from any thread.
 */
#ifndef PQTPM_CRYPTO_CPU_H
#define PQTPM_CRYPTO_CPU_H

#include <stdbool.h>

/* AVX2 (with BMI1 and BMI2, which every AVX2 CPU has) is there and allowed */
bool crypto_cpu_avx2(void);

/* Tests: false makes crypto_cpu_avx2() answer false until called with true, so that both paths
 * run the same vectors; true cannot turn on what the CPU lacks. */
void crypto_cpu_allow_avx2(bool allow);

#endif
