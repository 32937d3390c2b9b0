/* RSA key generation as a pure function of the random stream, so that a primary key comes out
 * the same from the same seed and template. Each prime: draw bits/16 bytes, set the top two
 * bits (so n = p * q has exactly `bits` bits) and the low bit, then step by 2 through a window
 * of candidates, sieving by small primes, requiring gcd(p - 1, e) = 1 and passing Miller-Rabin
 * with fixed bases (the first MR_ROUNDS primes, wolfSSL's mp_prime_is_prime): no witness
 * randomness, so nothing but the stream decides the key. Fixed bases are sound here because the
 * candidates are unpredictable, not chosen by an adversary; 8 rounds meet FIPS 186-4 table C.2
 * for primes of 512 bits and more. If the window holds no prime, draw again. */
#include <string.h>

#include "wolf.h"

#define SIEVE_LIMIT 2048
#define MAX_SIEVE_PRIMES 320 /* there are 308 odd primes below 2048 */
#define SEARCH_WINDOW 4096   /* candidates per draw */
#define MAX_DRAWS 64
#define MR_ROUNDS 8
#define DEFAULT_EXPONENT 65537

struct sieve {
	uint16_t prime[MAX_SIEVE_PRIMES];
	uint16_t rem[MAX_SIEVE_PRIMES]; /* candidate mod prime */
	size_t count;
};

static void sieve_primes(struct sieve *s)
{
	uint8_t composite[SIEVE_LIMIT] = { 0 };

	s->count = 0;
	for (unsigned i = 3; i < SIEVE_LIMIT; i += 2) {
		if (composite[i])
			continue;
		s->prime[s->count++] = (uint16_t)i;
		for (unsigned j = i * i; j < SIEVE_LIMIT; j += 2 * i)
			composite[j] = 1;
	}
}

static bool sieve_passes(const struct sieve *s)
{
	for (size_t i = 0; i < s->count; i++)
		if (s->rem[i] == 0)
			return false;
	return true;
}

static void sieve_step(struct sieve *s)
{
	for (size_t i = 0; i < s->count; i++)
		s->rem[i] = (uint16_t)((s->rem[i] + 2) % s->prime[i]);
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

static TPM_RC find_prime(struct crypto_rng *rng, size_t bytes, const mp_int *e,
			 struct sieve *s, mp_int *p, mp_int *tmp)
{
	uint8_t buf[CRYPTO_MAX_RSA_BYTES / 2];
	TPM_RC rc = TPM_RC_NO_RESULT;

	for (int draw = 0; draw < MAX_DRAWS && rc == TPM_RC_NO_RESULT; draw++) {
		rc = rng->read(rng, buf, bytes);
		if (rc != TPM_RC_SUCCESS)
			break;
		buf[0] |= 0xc0;
		buf[bytes - 1] |= 1;
		rc = mp_read_unsigned_bin(p, buf, (word32)bytes) == MP_OKAY ? TPM_RC_NO_RESULT :
									     TPM_RC_FAILURE;
		for (size_t i = 0; i < s->count && rc == TPM_RC_NO_RESULT; i++) {
			mp_digit r;

			if (mp_mod_d(p, s->prime[i], &r) != MP_OKAY)
				rc = TPM_RC_FAILURE;
			s->rem[i] = (uint16_t)r;
		}
		for (int step = 0; step < SEARCH_WINDOW && rc == TPM_RC_NO_RESULT; step++) {
			if (mp_count_bits(p) != (int)bytes * 8)
				break; /* stepped past the top: draw again */
			if (sieve_passes(s))
				rc = check_candidate(p, e, tmp);
			if (rc == TPM_RC_NO_RESULT && mp_add_d(p, 2, p) != MP_OKAY)
				rc = TPM_RC_FAILURE;
			sieve_step(s);
		}
	}
	crypto_wipe(buf, sizeof(buf));
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
	struct sieve s;
	TPM_RC rc;

	sieve_primes(&s);
	rc = find_prime(rng, (size_t)bits / 16, e, &s, p, tmp);
	for (int tries = 0; rc == TPM_RC_SUCCESS; tries++) {
		if (tries == MAX_DRAWS) {
			rc = TPM_RC_NO_RESULT;
			break;
		}
		rc = find_prime(rng, (size_t)bits / 16, e, &s, q, tmp);
		if (rc != TPM_RC_SUCCESS || !far_apart(p, q, tmp, bits))
			continue;
		if (mp_mul(p, q, n) != MP_OKAY)
			rc = TPM_RC_FAILURE;
		else if (mp_count_bits(n) == bits)
			break;
	}
	crypto_wipe(&s, sizeof(s)); /* the residues say something about the primes */
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
