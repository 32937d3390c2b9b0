/* Test vectors (vectors.c): the reader of the NIST ACVP vector files in tests/vectors (records
 * of 'key = value' lines separated by blank lines, '#' lines are comments), and hex strings. */
#ifndef PQTPM_TEST_VECTORS_H
#define PQTPM_TEST_VECTORS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define VEC_MAX_FIELDS 32

struct vec_record {
	int n;
	char *key[VEC_MAX_FIELDS];
	char *val[VEC_MAX_FIELDS];
};

/* tests/vectors/name, or $PQTPM_VECTORS/name; NULL (with a message) if it cannot be opened. */
FILE *vec_open(const char *name);
/* 1 when a record was read, 0 at the end of the file. */
int vec_read(FILE *f, struct vec_record *r);
void vec_free(struct vec_record *r);
/* The value of key, NULL if the record has none. */
const char *vec_field(const struct vec_record *r, const char *key);
/* Whether key is present with exactly this value. */
int vec_is(const struct vec_record *r, const char *key, const char *want);
/* The field as bytes (malloc'd, at least one byte so an empty string is not NULL); a missing
 * field fails the test. */
uint8_t *vec_bytes(const struct vec_record *r, const char *key, size_t *len);
/* The bytes of a hex string (two digits a byte) into out; returns how many. */
size_t vec_unhex(const char *hex, uint8_t *out);

#endif
