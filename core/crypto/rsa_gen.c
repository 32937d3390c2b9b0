/* RSA key generation as a pure function of the random stream, so that a primary key comes out
 * the same from the same seed and template. Each prime: draw bits/16 bytes, set the top two
 * bits (so n = p * q has exactly `bits` bits) and the low bit, then step by 2 through a window
 * of candidates, requiring gcd(p - 1, e) = 1 and passing Miller-Rabin with fixed bases (the
 * first MR_ROUNDS primes, wolfSSL's mp_prime_is_prime): no witness randomness, so nothing but
 * the stream decides the key. Fixed bases are sound here because the candidates are
 * unpredictable, not chosen by an adversary; 8 rounds meet FIPS 186-4 table C.2 for primes of
 * 512 bits and more. If the window holds no prime, draw again.
 *
 * Before Miller-Rabin, the whole window is sieved with the odd primes below 2^16: a candidate
 * with such a factor is composite and skipped. That leaves about a third fewer candidates for
 * Miller-Rabin than sieving to 2^11 did, and never changes which candidate is accepted (it only
 * skips ones Miller-Rabin rejects), so the same stream still gives the same key. */
#include <pthread.h>
#include <string.h>

#include "wolf.h"

#define SIEVE_LIMIT 65536u
#define MAX_SIEVE_PRIMES 6542 /* there are 6541 odd primes below 2^16 */
#define SEARCH_WINDOW 4096    /* candidates per draw */
#define MAX_DRAWS 64
#define MR_ROUNDS 8
#define DEFAULT_EXPONENT 65537

/* The odd primes below SIEVE_LIMIT, made once. */
static uint16_t sieve_prime[MAX_SIEVE_PRIMES];
static size_t sieve_count;
static pthread_once_t sieve_once = PTHREAD_ONCE_INIT;

static void sieve_primes(void)
{
	static uint8_t composite[SIEVE_LIMIT / 2]; /* odd i at i / 2; only here, only once */

	for (uint32_t i = 3; i < SIEVE_LIMIT; i += 2) {
		if (composite[i / 2])
			continue;
		sieve_prime[sieve_count++] = (uint16_t)i;
		for (uint32_t j = i * i; j < SIEVE_LIMIT; j += 2 * i)
			composite[j / 2] = 1;
	}
}

/* Mark the candidates p + 2k (k < SEARCH_WINDOW) that a sieve prime divides. p > 2^16, so a
 * candidate with such a factor is never the prime itself. */
static TPM_RC sieve_window(const mp_int *p, uint8_t marked[SEARCH_WINDOW])
{
	memset(marked, 0, SEARCH_WINDOW);
	for (size_t i = 0; i < sieve_count; i++) {
		uint32_t q = sieve_prime[i], k;
		mp_digit r;

		if (mp_mod_d(p, q, &r) != MP_OKAY)
			return TPM_RC_FAILURE;
		/* p + 2k = 0 (mod q): k = -r / 2 = (q - r) * (q + 1) / 2 (mod q) */
		k = (uint32_t)(((uint64_t)((q - (uint32_t)r) % q) * ((q + 1) / 2)) % q);
		for (; k < SEARCH_WINDOW; k += q)
			marked[k] = 1;
	}
	return TPM_RC_SUCCESS;
}

/* TPM_RC_SUCCESS if gcd(p - 1, e) = 1 and p is probably prime, TPM_RC_NO_RESULT if not. */
static TPM_RC check_candidate(const mp_int *p, const mp_int *e, mp_int *tmp)
{
	int prime = MP_NO;

	if (mp_sub_d(p, 1, tmp) != MP_OKAY || mp_gcd(tmp, e, tmp) != MP_OKAY)
		return TPM_RC_FAILURE;
	if (!mp_isone(tmp))
		return TPM_RC_NO_RESULT;
	if (mp_prime_is_prime(p, MR_ROUNDS, &prime) != MP_OKAY)
		return TPM_RC_FAILURE;
	return prime == MP_YES ? TPM_RC_SUCCESS : TPM_RC_NO_RESULT;
}

static TPM_RC find_prime(struct crypto_rng *rng, size_t bytes, const mp_int *e, mp_int *p,
			 mp_int *tmp, mp_int *start)
{
	uint8_t buf[CRYPTO_MAX_RSA_BYTES / 2], marked[SEARCH_WINDOW];
	TPM_RC rc = TPM_RC_NO_RESULT;

	for (int draw = 0; draw < MAX_DRAWS && rc == TPM_RC_NO_RESULT; draw++) {
		rc = rng->read(rng, buf, bytes);
		if (rc != TPM_RC_SUCCESS)
			break;
		buf[0] |= 0xc0;
		buf[bytes - 1] |= 1;
		if (mp_read_unsigned_bin(start, buf, (word32)bytes) != MP_OKAY) {
			rc = TPM_RC_FAILURE;
			break;
		}
		rc = sieve_window(start, marked);
		if (rc != TPM_RC_SUCCESS)
			break;
		rc = TPM_RC_NO_RESULT;
		for (int k = 0; k < SEARCH_WINDOW && rc == TPM_RC_NO_RESULT; k++) {
			if (marked[k])
				continue;
			if (mp_add_d(start, (mp_digit)(2 * k), p) != MP_OKAY) {
				rc = TPM_RC_FAILURE;
				break;
			}
			/* past the top: so is every later candidate; draw again */
			if (mp_count_bits(p) != (int)bytes * 8)
				break;
			rc = check_candidate(p, e, tmp);
		}
	}
	crypto_wipe(buf, sizeof(buf));
	crypto_wipe(marked, sizeof(marked)); /* says something about the prime */
	return rc;
}

/* FIPS 186-4 B.3.3: |p - q| > 2^(bits/2 - 100) */
static bool far_apart(const mp_int *p, const mp_int *q, mp_int *tmp, int bits)
{
	int rc = mp_cmp(p, q) == MP_GT ? mp_sub(p, q, tmp) : mp_sub(q, p, tmp);

	return rc == MP_OKAY && mp_count_bits(tmp) > bits / 2 - 100;
}

static TPM_RC generate(struct crypto_rng *rng, int bits, mp_int *e, mp_int *p, mp_int *q,
		       mp_int *n, mp_int *tmp)
{
	mp_int start;
	TPM_RC rc;

	if (pthread_once(&sieve_once, sieve_primes) != 0 || mp_init(&start) != MP_OKAY)
		return TPM_RC_FAILURE;
	rc = find_prime(rng, (size_t)bits / 16, e, p, tmp, &start);
	for (int tries = 0; rc == TPM_RC_SUCCESS; tries++) {
		if (tries == MAX_DRAWS) {
			rc = TPM_RC_NO_RESULT;
			break;
		}
		rc = find_prime(rng, (size_t)bits / 16, e, q, tmp, &start);
		if (rc != TPM_RC_SUCCESS || !far_apart(p, q, tmp, bits))
			continue;
		if (mp_mul(p, q, n) != MP_OKAY)
			rc = TPM_RC_FAILURE;
		else if (mp_count_bits(n) == bits)
			break;
	}
	mp_forcezero(&start);
	return rc;
}

TPM_RC crypto_rsa_generate(struct crypto_rng *rng, uint16_t bits, uint32_t e, uint8_t *n,
			   uint8_t *p)
{
	mp_int em, pm, qm, nm, tmp;
	TPM_RC rc;

	if (bits < 1024 || bits > CRYPTO_MAX_RSA_BYTES * 8 || bits % 16)
		return TPM_RC_KEY_SIZE;
	if (e == 0)
		e = DEFAULT_EXPONENT;
	if (e < 3 || !(e & 1))
		return TPM_RC_VALUE;
	if (mp_init_multi(&em, &pm, &qm, &nm, &tmp, NULL) != MP_OKAY)
		return TPM_RC_FAILURE;
	rc = mp_set_int(&em, e) == MP_OKAY ? generate(rng, bits, &em, &pm, &qm, &nm, &tmp) :
					     TPM_RC_FAILURE;
	if (rc == TPM_RC_SUCCESS && (mp_to_unsigned_bin_len(&nm, n, bits / 8) != MP_OKAY ||
				     mp_to_unsigned_bin_len(&pm, p, bits / 16) != MP_OKAY))
		rc = TPM_RC_FAILURE;
	mp_clear(&em);
	mp_forcezero(&pm);
	mp_forcezero(&qm);
	mp_clear(&nm);
	mp_forcezero(&tmp);
	return rc;
}
