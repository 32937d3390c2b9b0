/* Stateless challenges of pqtpm-attest serve: a nonce carries its own expiry and an HMAC under
 * the key the verifier processes share, so none of them needs to remember what it issued. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "crypto/crypto.h"
#include "marshal.h"
#include "serve.h"

static const char label[] = "pqtpm-attest serve challenge 1";

static int read_key(int fd, const char *path, uint8_t key[SERVE_KEY_LEN])
{
	struct stat st;
	size_t got = 0;
	ssize_t n;

	if (fstat(fd, &st))
		return cli_error("serve: --key %s: %s", path, strerror(errno));
	if (!S_ISREG(st.st_mode) || st.st_size != SERVE_KEY_LEN)
		return cli_error("serve: --key %s: not a key file of %d bytes", path, SERVE_KEY_LEN);
	if (st.st_mode & 077)
		return cli_error("serve: --key %s: others may read it (chmod 600)", path);
	while (got < SERVE_KEY_LEN) {
		n = read(fd, key + got, SERVE_KEY_LEN - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return cli_error("serve: --key %s: %s", path, n ? strerror(errno) : "short read");
		got += (size_t)n;
	}
	return EXIT_OK;
}

static int make_key(const char *path, uint8_t key[SERVE_KEY_LEN])
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	size_t put = 0;
	ssize_t n;

	if (fd < 0)
		return -errno;
	if (crypto_random(key, SERVE_KEY_LEN) != TPM_RC_SUCCESS) {
		close(fd);
		unlink(path);
		return cli_error("serve: no random bytes for a key");
	}
	while (put < SERVE_KEY_LEN) {
		n = write(fd, key + put, SERVE_KEY_LEN - put);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		put += (size_t)n;
	}
	if (put < SERVE_KEY_LEN || fsync(fd) || close(fd)) {
		int e = errno;

		unlink(path);
		return cli_error("serve: --key %s: %s", path, strerror(e));
	}
	return EXIT_OK;
}

int serve_key_file(const char *path, uint8_t key[SERVE_KEY_LEN])
{
	/* two tries: a serve process starting beside this one may create the file in between */
	for (int i = 0; i < 2; i++) {
		int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC), ret;

		if (fd >= 0) {
			ret = read_key(fd, path, key);
			close(fd);
			return ret;
		}
		if (errno != ENOENT)
			return cli_error("serve: --key %s: %s", path, strerror(errno));
		ret = make_key(path, key);
		if (ret != -EEXIST)
			return ret < 0 ? cli_error("serve: --key %s: %s", path, strerror(-ret)) : ret;
	}
	return cli_error("serve: --key %s: made and removed meanwhile", path);
}

static int tag(const uint8_t key[SERVE_KEY_LEN], const uint8_t *msg, uint8_t out[32])
{
	struct crypto_hmac_ctx h;

	return crypto_hmac_start(&h, TPM_ALG_SHA256, key, SERVE_KEY_LEN) ||
			       crypto_hmac_update(&h, label, sizeof(label)) ||
			       crypto_hmac_update(&h, msg, CHALLENGE_RANDOM + 8) ||
			       crypto_hmac_finish(&h, out)
		       ? -1
		       : 0;
}

int serve_challenge_make(const uint8_t key[SERVE_KEY_LEN], int64_t now,
			 uint8_t out[CHALLENGE_LEN], int64_t *expires)
{
	uint8_t *random, *mac;
	struct wr w;

	*expires = now + CHALLENGE_TTL;
	wr_init(&w, out, CHALLENGE_LEN);
	if (wr_reserve(&w, CHALLENGE_RANDOM, &random) ||
	    crypto_random(random, CHALLENGE_RANDOM) != TPM_RC_SUCCESS ||
	    wr_u64(&w, (uint64_t)*expires) || wr_reserve(&w, 32, &mac))
		return -1;
	return tag(key, out, mac);
}

const char *serve_challenge_check(const uint8_t key[SERVE_KEY_LEN], const uint8_t *nonce,
				  size_t len, int64_t now)
{
	uint8_t want[32];
	uint64_t expires;
	struct rd r;
	bool good;

	if (len != CHALLENGE_LEN)
		return "the nonce is not a challenge of this verifier (its size)";
	if (tag(key, nonce, want))
		return "the challenge could not be checked";
	good = crypto_ct_equal(want, nonce + CHALLENGE_RANDOM + 8, sizeof(want));
	crypto_wipe(want, sizeof(want));
	if (!good)
		return "the nonce is not a challenge of this verifier (its HMAC)";
	rd_init(&r, nonce + CHALLENGE_RANDOM, 8);
	if (rd_u64(&r, &expires) != TPM_RC_SUCCESS || expires > (uint64_t)INT64_MAX ||
	    (int64_t)expires <= now)
		return "the challenge has expired";
	return NULL;
}
