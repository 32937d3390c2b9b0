/* pqtpm-attest serve: stateless challenges (serve_challenge.c), requests answered as JSON
 * (serve_request.c) and the HTTP daemon (cmd_serve.c). */
#ifndef PQTPM_ATTEST_SERVE_H
#define PQTPM_ATTEST_SERVE_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#define SERVE_KEY_LEN 32
/* A challenge nonce: random bytes, the expiry (Unix seconds, big-endian) and
 * HMAC-SHA256(key, label || random || expiry), so that any process holding the key can check
 * it without shared state. 56 bytes: a Quote's qualifyingData takes them. */
#define CHALLENGE_RANDOM 16
#define CHALLENGE_LEN (CHALLENGE_RANDOM + 8 + 32)
#define CHALLENGE_TTL 300 /* seconds a challenge may be answered */
#define SERVE_MAX_BODY (1u << 20)

/* The key of --key FILE: read (exactly SERVE_KEY_LEN bytes, a regular file nobody else can
 * read), or made with random bytes, 0600, when FILE does not exist. 0, or EXIT_ERROR after a
 * message naming the file. */
int serve_key_file(const char *path, uint8_t key[SERVE_KEY_LEN]);

/* A new challenge valid until now + CHALLENGE_TTL (*expires). 0 or -1 (no randomness). */
int serve_challenge_make(const uint8_t key[SERVE_KEY_LEN], int64_t now,
			 uint8_t out[CHALLENGE_LEN], int64_t *expires);
/* NULL when nonce is a challenge made with key and not expired at now, else why not. */
const char *serve_challenge_check(const uint8_t key[SERVE_KEY_LEN], const uint8_t *nonce,
				  size_t len, int64_t now);

/* The answers, as (HTTP status, JSON document; the caller frees it). NULL when out of
 * memory. */
json_t *serve_challenge_json(const uint8_t key[SERVE_KEY_LEN], int64_t now, unsigned *status);
json_t *serve_verify_json(const uint8_t key[SERVE_KEY_LEN], const char *body, size_t len,
			  int64_t now, unsigned *status);
json_t *serve_error_json(const char *text);

#endif
