/* The part of a command that runs under the engine lock (issue 14), in instructions: what
 * bounds the scaling of clients that share an engine (Amdahl: with a share s under the lock,
 * two clients reach at most 2 / (1 + s) times one). Instruction counts, not time: the same on
 * a loaded machine, run after run.
 *
 *   lock_share       runs itself under valgrind --tool=callgrind and prints, for each command
 *                    (GetRandom, PCR_Extend, ECDSA P-256 Sign, HashML-DSA-65 SignDigest, an
 *                    ML-DSA-65 signature through SignSequenceStart + SignSequenceComplete),
 *                    without and with a state directory: the instructions the engine runs per
 *                    command (pqtpm_engine_execute, inclusive), those while the engine lock is
 *                    held, the share and its bound for two clients
 *   lock_share --child N  the loops, under callgrind: N commands of each kind (fewer of the
 *                    ML-DSA ones), each loop twice, once counting the engine's instructions,
 *                    once only those under the engine lock
 *
 * One client in process, through the client library, with a password session (empty auth)
 * for the commands that authorize (the keys are DA-protected primaries of the owner). callgrind
 * counts a rep-prefixed string instruction once per element: the child runs with glibc's
 * rep movsb/stosb thresholds out of reach, so that a memcpy counts about what it costs. The
 * engine's calls to pthread_mutex_lock/unlock and the
 * client library's to pqtpm_engine_execute are wrapped at link time (-Wl,--wrap, the
 * Makefile's rule for this program) to switch callgrind's collection on and off. BENCH_QUICK=1:
 * fewer commands. Needs valgrind (scripts/install-deps.sh installs it). */
#include <ftw.h>
#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <valgrind/callgrind.h>

#include <pqtpm/engine.h>
#include <pqtpm/tss.h>

#include "common/bench.h"
#include "engine_int.h"

#define WIDTH 44
#define DIGEST 32
#define MAX_DUMPS 32

enum work { GET_RANDOM, PCR_EXTEND, ECDSA_SIGN, HASHMLDSA_SIGN_DIGEST, MLDSA_SEQUENCE, WORKS };
static const char *const work_key[WORKS] = { "getrandom", "pcrextend", "ecdsa", "hashmldsa",
					     "mldsaseq" };
static const char *const work_label[WORKS] = { "GetRandom(32)", "PCR_Extend SHA-256",
					       "Sign ECDSA P-256", "SignDigest HashML-DSA-65",
					       "ML-DSA-65 sequence (2 cmds)" };
/* the ML-DSA loops run 1/ML_DIVISOR as many: 20-30 times the instructions of an ECDSA one */
#define ML_DIVISOR 20
/* and the cheap ones ten times as many as the ECDSA loop */
#define CHEAP_FACTOR 10

/* Commands of kind w in a loop of a run with n ECDSA signatures. */
static int loop_count(enum work w, int n)
{
	int count = w == HASHMLDSA_SIGN_DIGEST || w == MLDSA_SEQUENCE ? n / ML_DIVISOR
		  : w == ECDSA_SIGN				       ? n
								       : n * CHEAP_FACTOR;

	return count > 0 ? count : 1;
}

/* ---- the child: wrappers that switch callgrind's collection ---- */

enum mode { OFF, ENGINE, LOCKED };
static enum mode mode;
static const pthread_mutex_t *engine_lock;

int __real_pthread_mutex_lock(pthread_mutex_t *m);
int __real_pthread_mutex_unlock(pthread_mutex_t *m);
int __real_pqtpm_engine_execute(struct pqtpm_client *c, uint8_t locality, const uint8_t *cmd,
				size_t cmd_len, uint8_t *rsp, size_t rsp_cap, size_t *rsp_len);

int __wrap_pthread_mutex_lock(pthread_mutex_t *m)
{
	int rc = __real_pthread_mutex_lock(m);

	if (mode == LOCKED && m == engine_lock)
		CALLGRIND_TOGGLE_COLLECT;
	return rc;
}

int __wrap_pthread_mutex_unlock(pthread_mutex_t *m)
{
	if (mode == LOCKED && m == engine_lock)
		CALLGRIND_TOGGLE_COLLECT;
	return __real_pthread_mutex_unlock(m);
}

int __wrap_pqtpm_engine_execute(struct pqtpm_client *c, uint8_t locality, const uint8_t *cmd,
				size_t cmd_len, uint8_t *rsp, size_t rsp_cap, size_t *rsp_len)
{
	int rc;

	if (mode == ENGINE)
		CALLGRIND_TOGGLE_COLLECT;
	rc = __real_pqtpm_engine_execute(c, locality, cmd, cmd_len, rsp, rsp_cap, rsp_len);
	if (mode == ENGINE)
		CALLGRIND_TOGGLE_COLLECT;
	return rc;
}

struct keys {
	struct pqtpm_tss_key ecdsa, hashmldsa, mldsa;
};

static TPM_RC make_key(struct pqtpm_tss *t, TPM_ALG_ID type, struct pqtpm_tss_key *key)
{
	static struct pqtpm_tss_public pub;
	struct pqtpm_tss_template tm = {
		.type = type,
		.attributes = TPMA_OBJECT_SIGN_ENCRYPT | TPMA_OBJECT_FIXEDTPM |
			      TPMA_OBJECT_FIXEDPARENT | TPMA_OBJECT_SENSITIVEDATAORIGIN |
			      TPMA_OBJECT_USERWITHAUTH,
		.scheme = type == TPM_ALG_ECC ? TPM_ALG_ECDSA : 0,
		.scheme_hash = type == TPM_ALG_ECC ? TPM_ALG_SHA256 : 0,
		.parameter_set = type == TPM_ALG_ECC ? 0 : TPM_MLDSA_65,
		.pre_hash = type == TPM_ALG_HASH_MLDSA ? TPM_ALG_SHA256 : 0,
	};

	if (pqtpm_tss_template_public(&tm, &pub) != TPM_RC_SUCCESS)
		return PQTPM_TSS_RC_BAD_VALUE;
	return pqtpm_tss_create_primary(t, TPM_RH_OWNER, "", &pub, "", key);
}

static TPM_RC one(struct pqtpm_tss *t, const struct keys *k, enum work w)
{
	static struct pqtpm_tss_signature sig;
	static const uint8_t digest[DIGEST] = { 1, 2, 3 };
	static const uint8_t msg[100] = { 1 };
	uint8_t random[32];

	switch (w) {
	case GET_RANDOM:
		return pqtpm_tss_get_random(t, random, sizeof(random));
	case PCR_EXTEND:
		return pqtpm_tss_pcr_extend(t, 16, TPM_ALG_SHA256, digest, sizeof(digest));
	case ECDSA_SIGN:
		return pqtpm_tss_sign(t, k->ecdsa.handle, "", digest, sizeof(digest), TPM_ALG_NULL,
				      TPM_ALG_NULL, NULL, &sig);
	case HASHMLDSA_SIGN_DIGEST:
		return pqtpm_tss_sign_digest(t, k->hashmldsa.handle, "", NULL, 0, digest,
					     sizeof(digest), &sig);
	case MLDSA_SEQUENCE:
		return pqtpm_tss_sign_message(t, k->mldsa.handle, "", NULL, 0, msg, sizeof(msg),
					      &sig);
	default:
		return PQTPM_TSS_RC_BAD_VALUE;
	}
}

static int loops(struct pqtpm_tss *t, const struct keys *k, enum work w, int n, const char *dir)
{
	static const char *const mode_key[] = { "", "engine", "locked" };
	char label[128];

	/* once outside the count: the key's forms built, the DRBG seeded */
	if (one(t, k, w) != TPM_RC_SUCCESS)
		return -1;
	for (enum mode m = ENGINE; m <= LOCKED; m++) {
		CALLGRIND_ZERO_STATS;
		mode = m;
		for (int i = 0; i < n; i++) {
			if (one(t, k, w) != TPM_RC_SUCCESS) {
				mode = OFF;
				return -1;
			}
		}
		mode = OFF;
		snprintf(label, sizeof(label), "%s/%s/%s/%d", work_key[w], dir, mode_key[m], n);
		CALLGRIND_DUMP_STATS_AT(label);
	}
	return 0;
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	return remove(path);
}

static int child_engine(int n, bool with_dir)
{
	struct pqtpm_engine_config cfg = { .log_level = PQTPM_LOG_ERROR, .auto_startup = 1 };
	char dir[] = "/tmp/pqtpm-lock-share-XXXXXX", err[256];
	struct pqtpm_engine *e = NULL;
	struct pqtpm_tss *t = NULL;
	struct keys k;
	int rc = -1;

	if (with_dir) {
		if (!mkdtemp(dir)) {
			perror("mkdtemp");
			return -1;
		}
		cfg.state_dir = dir;
	}
	if (pqtpm_engine_open(&e, &cfg, err, sizeof(err)) != 0) {
		fprintf(stderr, "lock_share: engine: %s\n", err);
		goto out;
	}
	engine_lock = &e->lock;
	if (pqtpm_tss_open_engine(&t, e) != 0 || make_key(t, TPM_ALG_ECC, &k.ecdsa) != 0 ||
	    make_key(t, TPM_ALG_HASH_MLDSA, &k.hashmldsa) != 0 ||
	    make_key(t, TPM_ALG_MLDSA, &k.mldsa) != 0) {
		fprintf(stderr, "lock_share: cannot make the keys\n");
		goto out;
	}
	rc = 0;
	for (enum work w = 0; w < WORKS && rc == 0; w++) {
		rc = loops(t, &k, w, loop_count(w, n), with_dir ? "dir" : "nodir");
		if (rc)
			fprintf(stderr, "lock_share: %s failed\n", work_label[w]);
	}
out:
	pqtpm_tss_close(t);
	pqtpm_engine_close(e);
	if (with_dir)
		(void)nftw(dir, remove_entry, 8, FTW_DEPTH | FTW_PHYS);
	return rc;
}

/* ---- the parent: callgrind's dumps read back ---- */

struct dump {
	char label[128];
	uint64_t instr;
};

/* The label (the client request's) and the total of one dump file. */
static int read_dump(const char *path, struct dump *d)
{
	static const char trigger[] = "desc: Trigger: Client Request: ";
	char line[512];
	bool have_label = false, have_total = false;
	FILE *f = fopen(path, "re");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long v;

		if (strncmp(line, trigger, sizeof(trigger) - 1) == 0) {
			char *label = line + sizeof(trigger) - 1;

			label[strcspn(label, "\n")] = '\0';
			if (strlen(label) >= sizeof(d->label))
				continue;
			memcpy(d->label, label, strlen(label) + 1);
			have_label = true;
		} else if (sscanf(line, "totals: %llu", &v) == 1 ||
			   sscanf(line, "summary: %llu", &v) == 1) {
			d->instr = v;
			have_total = true;
		}
	}
	(void)fclose(f); /* read only */
	return have_label && have_total ? 0 : -1;
}

static const struct dump *find(const struct dump *d, int nd, const char *label)
{
	for (int i = 0; i < nd; i++)
		if (strcmp(d[i].label, label) == 0)
			return &d[i];
	return NULL;
}

static void report(const struct dump *d, int nd, int n)
{
	static const char *const dirs[] = { "nodir", "dir" };

	printf("%-*s %12s %12s %7s %8s\n", WIDTH, "per command", "engine", "locked", "share",
	       "2 cl. <=");
	for (int di = 0; di < 2; di++) {
		printf("%s\n", di ? "with a state directory:" : "without a state directory:");
		for (enum work w = 0; w < WORKS; w++) {
			int count = loop_count(w, n);
			char label[128], key[96], text[96];
			const struct dump *all, *locked;
			double per_all, per_locked, share;

			snprintf(label, sizeof(label), "%s/%s/engine/%d", work_key[w], dirs[di],
				 count);
			all = find(d, nd, label);
			snprintf(label, sizeof(label), "%s/%s/locked/%d", work_key[w], dirs[di],
				 count);
			locked = find(d, nd, label);
			if (!all || !locked || all->instr == 0) {
				printf("  %-*s missing\n", WIDTH - 2, work_label[w]);
				bench_errors++;
				continue;
			}
			per_all = (double)all->instr / count;
			per_locked = (double)locked->instr / count;
			share = per_locked / per_all;
			printf("  %-*s %12.0f %12.0f %6.2f%% %7.2fx\n", WIDTH - 2, work_label[w],
			       per_all, per_locked, 100 * share, 2 / (1 + share));
			snprintf(key, sizeof(key), "lock_instr_%s_%s", work_key[w], dirs[di]);
			snprintf(text, sizeof(text), "%s, %s: instructions under the lock",
				 work_label[w], dirs[di]);
			printf("RESULT\t%s\t%s\tinstr\t%.0f\t-\t%d\n", key, text, per_locked,
			       count);
			snprintf(key, sizeof(key), "lock_share_%s_%s", work_key[w], dirs[di]);
			snprintf(text, sizeof(text), "%s, %s: share under the lock", work_label[w],
				 dirs[di]);
			printf("RESULT\t%s\t%s\t%%\t%.3f\t-\t%d\n", key, text, 100 * share, count);
		}
	}
}

static int parent(int n)
{
	char dir[] = "/tmp/pqtpm-callgrind-XXXXXX", out[PATH_MAX], path[PATH_MAX + 16];
	char self[PATH_MAX], count[16];
	struct dump d[MAX_DUMPS];
	int nd = 0, status;
	ssize_t len;
	pid_t pid;

	len = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (len < 0 || !mkdtemp(dir)) {
		perror("lock_share");
		return 1;
	}
	self[len] = '\0';
	snprintf(out, sizeof(out), "--callgrind-out-file=%s/cg", dir);
	snprintf(count, sizeof(count), "%d", n);
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		/* callgrind counts a rep-prefixed string instruction once per element: glibc's
		 * memcpy and memset use rep movsb/stosb above a few KB, which would count a 6 KB
		 * copy as 6,000 instructions where its vector loop (and the CPU) takes ~200 */
		setenv("GLIBC_TUNABLES",
		       "glibc.cpu.x86_rep_movsb_threshold=1073741824:"
		       "glibc.cpu.x86_rep_stosb_threshold=1073741824",
		       1);
		execlp("valgrind", "valgrind", "-q", "--tool=callgrind", "--collect-atstart=no",
		       out, self, "--child", count, (char *)NULL);
		perror("lock_share: valgrind");
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) ||
	    WEXITSTATUS(status) != 0) {
		fprintf(stderr, "lock_share: the run under callgrind failed\n");
		bench_errors++;
	}
	for (int i = 1; i <= MAX_DUMPS; i++) {
		snprintf(path, sizeof(path), "%s/cg.%d", dir, i);
		if (nd < MAX_DUMPS && read_dump(path, &d[nd]) == 0)
			nd++;
		(void)unlink(path);
	}
	snprintf(path, sizeof(path), "%s/cg", dir);
	(void)unlink(path);
	(void)rmdir(dir);
	printf("instructions per command, the engine's (pqtpm_engine_execute) and those under its\n"
	       "lock (valgrind --tool=callgrind, one client in process; %d ECDSA signatures,\n"
	       "%d of each ML-DSA kind, %d of the others)\n",
	       n, loop_count(MLDSA_SEQUENCE, n), loop_count(GET_RANDOM, n));
	report(d, nd, n);
	return bench_errors ? 1 : 0;
}

int main(int argc, char **argv)
{
	const char *quick = getenv("BENCH_QUICK");
	int n = quick && *quick && strcmp(quick, "0") != 0 ? 40 : 400;

	if (argc == 3 && strcmp(argv[1], "--child") == 0) {
		n = atoi(argv[2]);
		if (n <= 0 || !RUNNING_ON_VALGRIND) {
			fprintf(stderr, "lock_share --child N: under callgrind only\n");
			return 2;
		}
		return child_engine(n, false) || child_engine(n, true) ? 1 : 0;
	}
	if (argc != 1) {
		fprintf(stderr, "usage: lock_share\n");
		return 2;
	}
	return parent(n);
}
