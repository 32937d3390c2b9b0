/* Post-quantum benchmark: ML-DSA-44/65/87 keygen, sign, verify and ML-KEM-512/768/1024 keygen,
 * encaps, decaps in C (core/crypto) and through @noble/post-quantum (tests/crosscheck/pq.mjs,
 * node) in the same run, with the ratio; then the TPM round trip over MSSIM (client library,
 * include/pqtpm/tss.h) for an ML-DSA-65 sign sequence (Start + Complete), SignDigest (external
 * mu), and ML-KEM-768 Encapsulate and Decapsulate.
 *
 *   pq_bench [HOST PORT]
 * With HOST PORT it measures the MSSIM server there (powered on and started by it); without, it
 * starts BUILD/bin/pqtpm-server (next to this program's BUILD/bench/) on free loopback ports
 * with a fresh state directory, pinned to CPU 1 with itself on CPU 0 when there are two CPUs,
 * and stops it at the end. Environment: BENCH_QUICK=1 for fewer iterations; PQ_BENCH_NODE=0 to
 * leave out noble; PQTPM_ROOT for the repository (default: the working directory, then
 * BUILD/..). Figures are medians in microseconds.
 *
 * Output: a table per part, plus one machine-readable line per figure as tpm_bench prints:
 *   RESULT<TAB>key<TAB>label<TAB>us<TAB>median<TAB>-<TAB>samples
 * Exits non-zero if a measurement failed.
 */
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <netinet/in.h>
#include <time.h>
#include <unistd.h>

#include <pqtpm/tss.h>

#include "crypto/crypto.h"
#include "crypto/mldsa.h"
#include "crypto/mlkem.h"

#include "common/bench.h"

#define MAX_SAMPLES 2000

static unsigned iters;
static int failed;

static void result(const char *key, const char *label, double median, unsigned n)
{
	printf("RESULT\t%s\t%s\tus\t%.1f\t-\t%u\n", key, label, median, n);
}

/* ---- C ---- */

static double c_dsa[4][3], c_kem[4][3]; /* [set][keygen, sign|encaps, verify|decaps] */

#define TIME(n, stmt)                                                  \
	({                                                             \
		static double t_[MAX_SAMPLES];                         \
		for (unsigned i_ = 0; i_ < (n); i_++) {                \
			double s_ = bench_now_us();                    \
			if (stmt)                                      \
				failed = 1;                            \
			t_[i_] = bench_now_us() - s_;                  \
		}                                                      \
		bench_median(t_, (int)(n));                            \
	})

/* Signing loops until a candidate passes (rejection sampling), a different number of times for
 * each randomness: fresh randomness per signature, as the TPM signs, for a representative
 * median. */
static int sign_fresh(int set, const uint8_t *sk, const uint8_t *msg, size_t len, uint8_t *sig)
{
	static uint32_t counter;
	uint8_t rnd[32] = { 0 };

	counter++;
	memcpy(rnd, &counter, sizeof(counter));
	return mldsa_sign(set, sk, msg, len, NULL, 0, rnd, sig);
}

static void bench_c(void)
{
	static uint8_t pk[MLDSA_MAX_PK_BYTES], sk[MLDSA_MAX_SK_BYTES], sig[MLDSA_MAX_SIG_BYTES];
	static uint8_t ek[MLKEM_MAX_EK_BYTES], dk[MLKEM_MAX_DK_BYTES], ct[MLKEM_MAX_CT_BYTES];
	uint8_t seed[64], msg[32], rnd[32], ss[32];

	memset(seed, 7, sizeof(seed));
	memset(msg, 1, sizeof(msg));
	memset(rnd, 3, sizeof(rnd));
	for (int set = 1; set <= 3; set++) {
		size_t siglen = mldsa_sig_bytes(set);

		c_dsa[set][0] = TIME(iters, mldsa_keygen(set, seed, pk, sk));
		c_dsa[set][1] = TIME(iters, sign_fresh(set, sk, msg, sizeof(msg), sig));
		c_dsa[set][2] =
			TIME(iters, mldsa_verify(set, pk, msg, sizeof(msg), NULL, 0, sig, siglen));
	}
	for (int set = 1; set <= 3; set++) {
		c_kem[set][0] = TIME(iters, mlkem_keygen(set, seed, seed + 32, ek, dk));
		c_kem[set][1] = TIME(iters, mlkem_encaps(set, ek, rnd, ct, ss));
		c_kem[set][2] = TIME(iters, mlkem_decaps(set, dk, ct, ss));
	}
}

/* ---- noble ---- */

static double js_dsa[4][3], js_kem[4][3];

static const char *root_dir(const char *argv0, char *buf, size_t len)
{
	const char *env = getenv("PQTPM_ROOT");
	const char *slash = strrchr(argv0, '/');

	if (env)
		return env;
	if (access("tests/crosscheck/pq.mjs", R_OK) == 0)
		return ".";
	snprintf(buf, len, "%.*s/../..", slash ? (int)(slash - argv0) : 1, slash ? argv0 : ".");
	return buf;
}

static int bench_noble(const char *root)
{
	static const char *ops[] = { "keygen", "sign", "verify", "keygen", "encaps", "decaps" };
	char cmd[4400], line[256], op[32];
	unsigned n = iters > 200 ? 200 : iters, set;
	double med;
	FILE *p;
	int got = 0;

	/* the pinned package, installed as pq_crosscheck.sh installs it if make check has not */
	snprintf(cmd, sizeof(cmd),
		 "cd '%s/tests/crosscheck' && { [ -d node_modules/@noble/post-quantum ] || "
		 "npm ci --no-audit --no-fund >/dev/null 2>&1; } && node pq.mjs bench %u",
		 root, n);
	p = popen(cmd, "r");
	if (!p)
		return -1;
	while (fgets(line, sizeof(line), p)) {
		if (sscanf(line, "noble %31s %u %lf", op, &set, &med) != 3 || set < 1 || set > 3)
			continue;
		for (int i = 0; i < 6; i++) {
			char want[32];

			snprintf(want, sizeof(want), "%s-%s", i < 3 ? "mldsa" : "mlkem", ops[i]);
			if (strcmp(op, want) == 0) {
				(i < 3 ? js_dsa : js_kem)[set][i % 3] = med;
				got++;
			}
		}
	}
	return pclose(p) == 0 && got == 18 ? 0 : -1;
}

static void print_algorithms(int with_noble)
{
	static const char *dsa_ops[] = { "keygen", "sign", "verify" };
	static const char *kem_ops[] = { "keygen", "encaps", "decaps" };
	static const char *dsa_names[] = { "", "ML-DSA-44", "ML-DSA-65", "ML-DSA-87" };
	static const char *kem_names[] = { "", "ML-KEM-512", "ML-KEM-768", "ML-KEM-1024" };
	char key[64], label[64];

	printf("\n%-12s %-7s %12s %12s %8s\n", "algorithm", "op", "pqtpm (us)", "noble (us)",
	       "ratio");
	for (int k = 0; k < 2; k++) {
		for (int set = 1; set <= 3; set++) {
			for (int o = 0; o < 3; o++) {
				double c = k ? c_kem[set][o] : c_dsa[set][o];
				double j = k ? js_kem[set][o] : js_dsa[set][o];
				const char *name = k ? kem_names[set] : dsa_names[set];
				const char *op = k ? kem_ops[o] : dsa_ops[o];

				if (with_noble)
					printf("%-12s %-7s %12.1f %12.1f %7.1fx\n", name, op, c, j,
					       j / c);
				else
					printf("%-12s %-7s %12.1f %12s %8s\n", name, op, c, "-", "-");
				snprintf(key, sizeof(key), "c_%s_%s", name, op);
				snprintf(label, sizeof(label), "%s %s (C)", name, op);
				result(key, label, c, iters);
				if (with_noble) {
					snprintf(key, sizeof(key), "noble_%s_%s", name, op);
					snprintf(label, sizeof(label), "%s %s (noble)", name, op);
					result(key, label, j, iters > 200 ? 200 : iters);
				}
			}
		}
	}
}

/* ---- the TPM over MSSIM ---- */

static pid_t server_pid = -1;
static char state_dir[] = "/tmp/pq_bench.XXXXXX";

static int port_free(unsigned port)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port),
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	int fd = socket(AF_INET, SOCK_STREAM, 0), ok;

	if (fd < 0)
		return 0;
	ok = bind(fd, (struct sockaddr *)&a, sizeof(a)) == 0;
	close(fd);
	return ok;
}

static void pin(pid_t pid, int cpu)
{
	cpu_set_t set;

	if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
		return;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	sched_setaffinity(pid, sizeof(set), &set);
}

static int start_server(const char *argv0, unsigned *port)
{
	char bin[4096], portarg[16];
	const char *slash = strrchr(argv0, '/');

	snprintf(bin, sizeof(bin), "%.*s/../bin/pqtpm-server", slash ? (int)(slash - argv0) : 1,
		 slash ? argv0 : ".");
	if (access(bin, X_OK) != 0 || !mkdtemp(state_dir))
		return -1;
	srand((unsigned)getpid());
	do
		*port = 20000 + (unsigned)rand() % 40000;
	while (!port_free(*port) || !port_free(*port + 1));
	snprintf(portarg, sizeof(portarg), "%u", *port);
	fflush(stdout);
	server_pid = fork();
	if (server_pid < 0)
		return -1;
	if (server_pid == 0) {
		freopen("/dev/null", "w", stdout);
		execl(bin, bin, "--port", portarg, "--state-dir", state_dir, "--log-level", "error",
		      (char *)NULL);
		_exit(127);
	}
	pin(server_pid, 1);
	pin(0, 0);
	return 0;
}

static void stop_server(void)
{
	char cmd[256];

	if (server_pid <= 0)
		return;
	kill(server_pid, SIGTERM);
	waitpid(server_pid, NULL, 0);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", state_dir);
	if (system(cmd) != 0)
		fprintf(stderr, "pq_bench: could not remove %s\n", state_dir);
}

static struct pqtpm_tss *connect_tpm(const char *host, unsigned port)
{
	struct pqtpm_tss *t = NULL;

	/* a server we started may need a moment to listen */
	for (int i = 0; i < 100; i++) {
		if (pqtpm_tss_open_mssim(&t, host, port) == 0)
			break;
		usleep(50000);
	}
	if (!t || pqtpm_tss_power_on(t) != 0 || pqtpm_tss_startup(t, TPM_SU_CLEAR) != 0) {
		pqtpm_tss_close(t);
		return NULL;
	}
	return t;
}

static TPM_RC primary(struct pqtpm_tss *t, TPM_ALG_ID type, uint16_t set, uint32_t attrs,
		      struct pqtpm_tss_key *k)
{
	struct pqtpm_tss_template tm = {
		.type = type,
		.attributes = TPMA_OBJECT_FIXEDTPM | TPMA_OBJECT_FIXEDPARENT |
			      TPMA_OBJECT_SENSITIVEDATAORIGIN | TPMA_OBJECT_USERWITHAUTH | attrs,
		.parameter_set = set,
		.allow_external_mu = type == TPM_ALG_MLDSA,
	};
	static struct pqtpm_tss_public pub;
	TPM_RC rc = pqtpm_tss_template_public(&tm, &pub);

	return rc ? rc : pqtpm_tss_create_primary(t, TPM_RH_OWNER, "", &pub, "", k);
}

static TPM_RC sign_sequence(struct pqtpm_tss *t, TPM_HANDLE key, const uint8_t *msg)
{
	static struct pqtpm_tss_signature sig;
	TPM_HANDLE seq;
	TPM_RC rc = pqtpm_tss_sign_sequence_start(t, key, "", NULL, 0, &seq);

	return rc ? rc : pqtpm_tss_sign_sequence_complete(t, seq, "", key, "", msg, 32, &sig);
}

static int bench_tpm(struct pqtpm_tss *t)
{
	static struct pqtpm_tss_key dsa, kem;
	static struct pqtpm_tss_signature sig;
	static struct pqtpm_tss_ciphertext ct;
	struct pqtpm_tss_digest ss;
	uint8_t msg[32] = { 1 }, mu[64] = { 2 };
	unsigned n = iters > 500 ? 500 : iters;
	double seq, dig, enc, dec, rnd;

	if (primary(t, TPM_ALG_MLDSA, TPM_MLDSA_65, TPMA_OBJECT_SIGN_ENCRYPT, &dsa) ||
	    primary(t, TPM_ALG_MLKEM, TPM_MLKEM_768, TPMA_OBJECT_DECRYPT, &kem) ||
	    pqtpm_tss_encapsulate(t, kem.handle, &ss, &ct))
		return -1;
	rnd = TIME(n, pqtpm_tss_get_random(t, msg, 16));
	seq = TIME(n, sign_sequence(t, dsa.handle, msg));
	dig = TIME(n, pqtpm_tss_sign_digest(t, dsa.handle, "", NULL, 0, mu, 64, &sig));
	enc = TIME(n, pqtpm_tss_encapsulate(t, kem.handle, &ss, &ct));
	dec = TIME(n, pqtpm_tss_decapsulate(t, kem.handle, "", &ct, &ss));
	printf("\nTPM round trip over MSSIM (median of %u)          us\n", n);
	printf("  GetRandom(16), for scale                      %8.1f\n", rnd);
	printf("  ML-DSA-65 sign sequence (Start + Complete)    %8.1f\n", seq);
	printf("  ML-DSA-65 SignDigest (external mu)            %8.1f\n", dig);
	printf("  ML-KEM-768 Encapsulate                        %8.1f\n", enc);
	printf("  ML-KEM-768 Decapsulate                        %8.1f\n", dec);
	result("tpm_getrandom", "GetRandom(16) round trip", rnd, n);
	result("tpm_mldsa65_sign_sequence", "ML-DSA-65 sign sequence (2 commands)", seq, n);
	result("tpm_mldsa65_sign_digest", "ML-DSA-65 SignDigest", dig, n);
	result("tpm_mlkem768_encapsulate", "ML-KEM-768 Encapsulate", enc, n);
	result("tpm_mlkem768_decapsulate", "ML-KEM-768 Decapsulate", dec, n);
	pqtpm_tss_flush(t, dsa.handle);
	pqtpm_tss_flush(t, kem.handle);
	return failed ? -1 : 0;
}

int main(int argc, char **argv)
{
	const char *quick = getenv("BENCH_QUICK"), *node = getenv("PQ_BENCH_NODE");
	const char *host = "127.0.0.1";
	char rootbuf[4096];
	int with_noble = !(node && strcmp(node, "0") == 0);
	unsigned port = 0;
	struct pqtpm_tss *t;
	int rc = 0;

	iters = quick && strcmp(quick, "0") ? 20 : 300;
	printf("pq_bench: post-quantum algorithms in C and noble, and the TPM over MSSIM\n");
	bench_c();
	if (with_noble && bench_noble(root_dir(argv[0], rootbuf, sizeof(rootbuf))) != 0) {
		fprintf(stderr, "pq_bench: noble measurements failed (node, npm ci in "
				"tests/crosscheck?)\n");
		with_noble = 0;
		rc = 1;
	}
	print_algorithms(with_noble);
	if (argc == 3) {
		host = argv[1];
		port = (unsigned)strtoul(argv[2], NULL, 10);
	} else if (start_server(argv[0], &port) != 0) {
		fprintf(stderr, "pq_bench: cannot start pqtpm-server\n");
		return 1;
	}
	t = connect_tpm(host, port);
	if (!t || bench_tpm(t) != 0) {
		fprintf(stderr, "pq_bench: TPM measurements failed\n");
		rc = 1;
	}
	pqtpm_tss_close(t);
	stop_server();
	crypto_cleanup();
	return rc || failed;
}
