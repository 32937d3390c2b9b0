/* The engine-wide DRBG: one wolfSSL Hash_DRBG seeded from the OS, created on first use and
 * serialized by a mutex (a WC_RNG is not thread-safe). It is created under that mutex rather
 * than with pthread_once so that it can be seeded again: after fork (wolfSSL does not notice,
 * and a child replaying its parent's stream would reuse ECDSA nonces) and after crypto_cleanup.
 *
 * StirRandom: Debian's wolfSSL exports no reseed with additional input (wc_RNG_DRBG_Reseed is
 * internal), so stirred data is hashed into a 64-byte SHA-512 pool, and once anything has been
 * stirred every output is XORed with HMAC-SHA-512(pool, counter). The output is then at least
 * as unpredictable as the DRBG's and depends on everything stirred in. */
#include <pthread.h>
#include <string.h>

#include "wolf.h"

static pthread_mutex_t drbg_lock = PTHREAD_MUTEX_INITIALIZER;
static WC_RNG drbg;
static bool drbg_ready, drbg_forked, wolf_ready, atfork_ready;

static uint8_t pool[WC_SHA512_DIGEST_SIZE];
static bool pool_stirred;
static uint64_t pool_counter;

/* Nobody holds the lock across fork, and the child seeds afresh. */
static void before_fork(void)
{
	pthread_mutex_lock(&drbg_lock);
}

static void after_fork_parent(void)
{
	pthread_mutex_unlock(&drbg_lock);
}

static void after_fork_child(void)
{
	drbg_forked = true;
	pthread_mutex_unlock(&drbg_lock);
}

/* Caller holds the lock. */
static bool drbg_seed(void)
{
	if (drbg_ready && !drbg_forked)
		return true;
	if (drbg_ready)
		(void)wc_FreeRng(&drbg); /* the parent's state: nothing to do if freeing fails */
	drbg_ready = drbg_forked = false;
	if (!wolf_ready)
		wolf_ready = wolfCrypt_Init() == 0;
	if (!atfork_ready)
		atfork_ready =
			pthread_atfork(before_fork, after_fork_parent, after_fork_child) == 0;
	drbg_ready = wolf_ready && atfork_ready && wc_InitRng(&drbg) == 0;
	return drbg_ready;
}

WC_RNG *crypto_wolf_rng_acquire(void)
{
	pthread_mutex_lock(&drbg_lock);
	if (drbg_seed())
		return &drbg;
	pthread_mutex_unlock(&drbg_lock);
	return NULL;
}

void crypto_wolf_rng_release(void)
{
	pthread_mutex_unlock(&drbg_lock);
}

/* XORs HMAC-SHA-512(pool, counter) blocks over out; caller holds the lock. */
static TPM_RC mix_pool(uint8_t *out, size_t len)
{
	uint8_t block[WC_SHA512_DIGEST_SIZE], counter[8];
	TPM_RC rc = TPM_RC_SUCCESS;

	while (len && rc == TPM_RC_SUCCESS) {
		size_t n = len < sizeof(block) ? len : sizeof(block);

		pool_counter++;
		for (int i = 0; i < 8; i++)
			counter[i] = (uint8_t)(pool_counter >> (56 - 8 * i));
		rc = crypto_hmac(TPM_ALG_SHA512, pool, sizeof(pool), counter, sizeof(counter),
				 block);
		for (size_t i = 0; i < n; i++)
			out[i] ^= block[i];
		out += n;
		len -= n;
	}
	crypto_wipe(block, sizeof(block));
	return rc;
}

/*
 * Fuzz builds (tests/fuzz/run.sh) only: with PQTPM_FUZZ_DETERMINISTIC_RNG, crypto_random is
 * HMAC-SHA-512("pqtpm fuzz", counter), the counter set back to zero by crypto_fuzz_rng_reset()
 * at the start of every fuzz input, so that a crash input replays exactly: the same seeds,
 * proofs, nonces, keys. (wolfSSL's own DRBG, for ECDSA nonces and RSA padding and blinding,
 * stays seeded from the OS: Debian's wolfSSL has no seed callback. Nothing the engine decides
 * depends on those values.) Every key such a build makes is public, hence the guard.
 */
#ifdef PQTPM_FUZZ_DETERMINISTIC_RNG
#ifndef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
#error "PQTPM_FUZZ_DETERMINISTIC_RNG makes every secret predictable: for fuzz builds only"
#endif
static uint64_t fuzz_counter;

void crypto_fuzz_rng_reset(void)
{
	if (!crypto_wolf_rng_acquire())
		return; /* then crypto_random fails anyway */
	fuzz_counter = pool_counter = 0;
	crypto_wipe(pool, sizeof(pool));
	pool_stirred = false;
	crypto_wolf_rng_release();
}

/* Caller holds the lock. */
static TPM_RC fuzz_stream(uint8_t *out, size_t len)
{
	static const char key[] = "pqtpm fuzz";
	uint8_t block[WC_SHA512_DIGEST_SIZE], counter[8];
	TPM_RC rc = TPM_RC_SUCCESS;

	while (len && rc == TPM_RC_SUCCESS) {
		size_t n = len < sizeof(block) ? len : sizeof(block);

		fuzz_counter++;
		for (int i = 0; i < 8; i++)
			counter[i] = (uint8_t)(fuzz_counter >> (56 - 8 * i));
		rc = crypto_hmac(TPM_ALG_SHA512, (const uint8_t *)key, sizeof(key) - 1, counter,
				 sizeof(counter), block);
		memcpy(out, block, n);
		out += n;
		len -= n;
	}
	return rc;
}
#endif

TPM_RC crypto_random(uint8_t *out, size_t len)
{
	WC_RNG *rng = crypto_wolf_rng_acquire();
	TPM_RC rc = TPM_RC_SUCCESS;

	if (!rng)
		return TPM_RC_FAILURE;
#ifdef PQTPM_FUZZ_DETERMINISTIC_RNG
	rc = fuzz_stream(out, len);
#else
	uint8_t *p = out;
	size_t left = len;

	while (left && rc == TPM_RC_SUCCESS) {
		size_t n = left < RNG_MAX_BLOCK_LEN ? left : RNG_MAX_BLOCK_LEN;

		if (wc_RNG_GenerateBlock(rng, p, (word32)n) != 0)
			rc = TPM_RC_FAILURE;
		p += n;
		left -= n;
	}
#endif
	if (rc == TPM_RC_SUCCESS && pool_stirred)
		rc = mix_pool(out, len);
	crypto_wolf_rng_release();
	if (rc != TPM_RC_SUCCESS)
		crypto_wipe(out, len);
	return rc;
}

TPM_RC crypto_stir_random(const uint8_t *data, size_t len)
{
	struct crypto_hash_ctx h;
	TPM_RC rc;

	if (!crypto_wolf_rng_acquire())
		return TPM_RC_FAILURE;
	rc = crypto_hash_start(&h, TPM_ALG_SHA512);
	if (rc == TPM_RC_SUCCESS)
		rc = crypto_hash_update(&h, pool, sizeof(pool));
	if (rc == TPM_RC_SUCCESS)
		rc = crypto_hash_update(&h, data, len);
	if (rc == TPM_RC_SUCCESS)
		rc = crypto_hash_finish(&h, pool);
	if (rc == TPM_RC_SUCCESS)
		pool_stirred = true;
	crypto_wipe(&h, sizeof(h));
	crypto_wolf_rng_release();
	return rc;
}

void crypto_cleanup(void)
{
	pthread_mutex_lock(&drbg_lock);
	/* at teardown a failure leaves nothing to do */
	if (drbg_ready)
		(void)wc_FreeRng(&drbg);
	if (wolf_ready)
		(void)wolfCrypt_Cleanup();
	drbg_ready = wolf_ready = false;
	crypto_wipe(pool, sizeof(pool));
	pool_stirred = false;
	pthread_mutex_unlock(&drbg_lock);
	crypto_thread_cleanup();
}

static TPM_RC system_read(struct crypto_rng *rng, uint8_t *out, size_t len)
{
	return crypto_random(out, len);
}

static struct crypto_rng system_rng = { .read = system_read };

struct crypto_rng *crypto_system_rng(void)
{
	return &system_rng;
}
