/*
 * Declassification points for the constant-time check (tests/ct/ct_check.c). That check builds
 * the ML-DSA and ML-KEM sources with PQTPM_CT_CHECK, marks secret inputs undefined for
 * valgrind's memcheck, and fails on any branch or memory index that depends on them. Where an
 * algorithm makes a value public on purpose (a public seed derived from a secret one, a
 * rejection-sampling decision), CT_DECLASSIFY says so at that line; each use explains why.
 * In every other build it is nothing.
 */
#ifndef PQTPM_CRYPTO_CT_H
#define PQTPM_CRYPTO_CT_H

#ifdef PQTPM_CT_CHECK
#include <valgrind/memcheck.h>
#define CT_DECLASSIFY(p, n) ((void)VALGRIND_MAKE_MEM_DEFINED((p), (n)))
#else
#define CT_DECLASSIFY(p, n) ((void)0)
#endif

#endif
