/* The system DRBG: one wolfSSL Hash_DRBG per thread, seeded from the OS at the thread's first
 * use, so that a long computation (an ECDSA signature, an RSA private operation with its
 * blinding) holds no lock that another thread's command waits for (docs/engine-concurrency.md).
 * Each instance is seeded on its own, so no two threads share a stream. It is seeded again
 * after fork (wolfSSL does not notice, and a child replaying its parent's stream would reuse
 * ECDSA nonces): the child's handler bumps a generation that every instance compares with
 * its own. A thread's instance is freed when it exits (a pthread key's destructor), by
 * crypto_thread_cleanup or crypto_cleanup.
 *
 * StirRandom: Debian's wolfSSL exports no reseed with additional input (wc_RNG_DRBG_Reseed is
 * internal), so stirred data is hashed into a 64-byte SHA-512 pool, and once anything has been
 * stirred every output of crypto_random is XORed with HMAC-SHA-512(pool, counter). The output
 * is then at least as unpredictable as the DRBG's and depends on everything stirred in. The
 * pool is engine-wide, behind its own mutex, taken only for the pool's bytes. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "wolf.h"

struct thread_drbg {
	WC_RNG rng;
	unsigned generation;	/* the fork generation it was seeded in */
};

/* init_lock: wolfCrypt_Init, the fork handlers and the thread key, taken when a thread seeds */
static pthread_mutex_t init_lock = PTHREAD_MUTEX_INITIALIZER;
static bool wolf_ready, atfork_ready, key_ready;
static pthread_key_t drbg_key;
static unsigned fork_generation; /* atomic */
static _Thread_local struct thread_drbg *mine;

static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;
static uint8_t pool[WC_SHA512_DIGEST_SIZE];
static bool pool_stirred; /* atomic: read without the lock on the way to it */
static uint64_t pool_counter;

/* Nobody holds a lock across fork; the child's instances seed afresh. */
static void before_fork(void)
{
	pthread_mutex_lock(&init_lock);
	pthread_mutex_lock(&pool_lock);
}

static void after_fork_parent(void)
{
	pthread_mutex_unlock(&pool_lock);
	pthread_mutex_unlock(&init_lock);
}

static void after_fork_child(void)
{
	__atomic_add_fetch(&fork_generation, 1, __ATOMIC_RELAXED);
	pthread_mutex_unlock(&pool_lock);
	pthread_mutex_unlock(&init_lock);
}

static void drbg_free(struct thread_drbg *d)
{
	if (!d)
		return;
	(void)wc_FreeRng(&d->rng); /* nothing to do if freeing fails */
	crypto_wipe(d, sizeof(*d));
	free(d);
}

static void drbg_exit(void *d)
{
	drbg_free(d);
}

/* The calling thread's instance goes (a fork, crypto_thread_cleanup, crypto_cleanup). A
 * thread that has one made the thread key before it. */
static void drbg_forget(void)
{
	if (!mine)
		return;
	drbg_free(mine);
	mine = NULL;
	(void)pthread_setspecific(drbg_key, NULL);
}

/* wolfCrypt, the fork handlers and the thread key, once (again after crypto_cleanup). */
static bool init_once(void)
{
	bool ok;

	pthread_mutex_lock(&init_lock);
	if (!wolf_ready)
		wolf_ready = wolfCrypt_Init() == 0;
	if (!atfork_ready)
		atfork_ready =
			pthread_atfork(before_fork, after_fork_parent, after_fork_child) == 0;
	if (!key_ready)
		key_ready = pthread_key_create(&drbg_key, drbg_exit) == 0;
	ok = wolf_ready && atfork_ready && key_ready;
	pthread_mutex_unlock(&init_lock);
	return ok;
}

/* The calling thread's instance, seeded anew if it was seeded before the last fork. */
static bool drbg_seed(void)
{
	unsigned generation = __atomic_load_n(&fork_generation, __ATOMIC_RELAXED);

	if (mine && mine->generation == generation)
		return true;
	drbg_forget();
	if (!init_once())
		return false;
	mine = calloc(1, sizeof(*mine));
	if (!mine)
		return false;
	if (wc_InitRng(&mine->rng) != 0) {
		free(mine);
		mine = NULL;
		return false;
	}
	mine->generation = generation;
	(void)pthread_setspecific(drbg_key, mine); /* if it fails, the thread's exit leaks it */
	return true;
}

WC_RNG *crypto_wolf_rng(void)
{
	return drbg_seed() ? &mine->rng : NULL;
}

/* XORs HMAC-SHA-512(pool, counter) blocks over out; caller holds pool_lock. */
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
	pthread_mutex_lock(&pool_lock);
	fuzz_counter = pool_counter = 0;
	crypto_wipe(pool, sizeof(pool));
	__atomic_store_n(&pool_stirred, false, __ATOMIC_RELAXED);
	pthread_mutex_unlock(&pool_lock);
}

/* Caller holds pool_lock. */
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
	WC_RNG *rng = crypto_wolf_rng();
	TPM_RC rc = TPM_RC_SUCCESS;

	if (!rng)
		return TPM_RC_FAILURE;
#ifdef PQTPM_FUZZ_DETERMINISTIC_RNG
	pthread_mutex_lock(&pool_lock);
	rc = fuzz_stream(out, len);
	pthread_mutex_unlock(&pool_lock);
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
	if (rc == TPM_RC_SUCCESS && __atomic_load_n(&pool_stirred, __ATOMIC_RELAXED)) {
		pthread_mutex_lock(&pool_lock);
		rc = mix_pool(out, len);
		pthread_mutex_unlock(&pool_lock);
	}
	if (rc != TPM_RC_SUCCESS)
		crypto_wipe(out, len);
	return rc;
}

TPM_RC crypto_stir_random(const uint8_t *data, size_t len)
{
	struct crypto_hash_ctx h;
	TPM_RC rc;

	pthread_mutex_lock(&pool_lock);
	rc = crypto_hash_start(&h, TPM_ALG_SHA512);
	if (rc == TPM_RC_SUCCESS)
		rc = crypto_hash_update(&h, pool, sizeof(pool));
	if (rc == TPM_RC_SUCCESS)
		rc = crypto_hash_update(&h, data, len);
	if (rc == TPM_RC_SUCCESS)
		rc = crypto_hash_finish(&h, pool);
	if (rc == TPM_RC_SUCCESS)
		__atomic_store_n(&pool_stirred, true, __ATOMIC_RELAXED);
	crypto_wipe(&h, sizeof(h));
	pthread_mutex_unlock(&pool_lock);
	return rc;
}

void crypto_thread_cleanup(void)
{
	wc_ecc_fp_free();
	drbg_forget();
}

void crypto_cleanup(void)
{
	crypto_thread_cleanup();
	pthread_mutex_lock(&pool_lock);
	crypto_wipe(pool, sizeof(pool));
	__atomic_store_n(&pool_stirred, false, __ATOMIC_RELAXED);
	pthread_mutex_unlock(&pool_lock);
	/* at teardown a failure leaves nothing to do */
	pthread_mutex_lock(&init_lock);
	if (wolf_ready)
		(void)wolfCrypt_Cleanup();
	wolf_ready = false;
	pthread_mutex_unlock(&init_lock);
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
