/* The one command table: every family file exports a 0-terminated array of cmd_def; this
 * file lists the families and builds a sorted index once. */
#include <pthread.h>
#include <stdlib.h>

#include "engine_int.h"

#define FAMILIES(X)                                                                        \
	X(startup) X(testing) X(random) X(capability) X(clock) X(pcr) X(hash) X(object)   \
	X(primary) X(sign) X(rsa) X(ecc) X(sym) X(context) X(evict) X(hierarchy)      \
	X(session) X(policy) X(policy_auth) X(da)                                       \
	X(nv_define) X(nv_readpublic) X(nv_read) X(nv_write) X(nv_increment) X(nv_extend) \
	X(nv_setbits) X(nv_lock) X(nv_changeauth) X(policy_nv)                                       \
	X(pq_sequence) X(pq_digest) X(pq_kem) X(credential) X(duplicate) X(attest) X(nv_certify) \
	X(audit) X(command_audit) X(pcr_auth) X(pp) X(ecc_commit) X(ecc_encrypt)

#define DECLARE(f) extern const struct cmd_def cmds_##f[];
FAMILIES(DECLARE)
#define LIST(f) cmds_##f,
static const struct cmd_def *const families[] = { FAMILIES(LIST) };

#define MAX_COMMANDS 256
static const struct cmd_def *sorted[MAX_COMMANDS];
static size_t nsorted;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static int by_code(const void *a, const void *b)
{
	TPM_CC x = (*(const struct cmd_def *const *)a)->code;
	TPM_CC y = (*(const struct cmd_def *const *)b)->code;

	return x < y ? -1 : x > y;
}

static void build_index(void)
{
	for (size_t f = 0; f < sizeof(families) / sizeof(families[0]); f++)
		for (const struct cmd_def *d = families[f]; d->code && nsorted < MAX_COMMANDS; d++)
			sorted[nsorted++] = d;
	qsort(sorted, nsorted, sizeof(sorted[0]), by_code);
}

const struct cmd_def *cmd_lookup(TPM_CC code)
{
	size_t lo = 0, hi;

	pthread_once(&once, build_index);
	hi = nsorted;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (sorted[mid]->code == code)
			return sorted[mid];
		if (sorted[mid]->code < code)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

size_t cmd_count(void)
{
	pthread_once(&once, build_index);
	return nsorted;
}

const struct cmd_def *cmd_at(size_t i)
{
	pthread_once(&once, build_index);
	return i < nsorted ? sorted[i] : NULL;
}
