/* PKCS#11 benchmark: our module (libpqtpm-pkcs11.so, an embedded TPM on a fresh state directory)
 * and SoftHSMv2 (Debian's softhsm2, a fresh token directory) driven by the same code in the same
 * run, with the ratio: C_Sign ops/s with one thread and with two (each thread its own session
 * and its own key) for RSA-2048 PKCS#1 v1.5 (CKM_RSA_PKCS over a SHA-256 DigestInfo), ECDSA
 * P-256 (CKM_ECDSA over a digest) and ML-DSA-65 (CKM_ML_DSA, ours only: SoftHSMv2 2.6 has no
 * ML-DSA); C_GenerateKeyPair per key type; C_Login; C_GenerateRandom of 32 bytes.
 *
 *   p11_bench [MODULE [PEER_MODULE]]
 * MODULE defaults to BUILD/lib/libpqtpm-pkcs11.so next to this program's BUILD/bench/,
 * PEER_MODULE to /usr/lib/softhsm/libsofthsm2.so. Environment: BENCH_QUICK=1 for shorter runs;
 * P11_BENCH_PEER=0 to leave the peer out.
 *
 * Output: a table, the issue's targets met or missed, and one line per figure as the other
 * bench programs print them (run.sh collects them):
 *   RESULT<TAB>p11_KEY<TAB>label<TAB>unit<TAB>median<TAB>p99<TAB>samples   (ours)
 *   RESULT<TAB>p11_peer_KEY<TAB>...                                        (SoftHSMv2)
 * ops/s figures are the median of several timed windows (no p99), and for one thread the CPU
 * time per signature too (the thread's CPU clock: what other load on the machine hardly
 * changes). Exits non-zero if a measurement of our module failed. */
#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "pk3.h"

#include "common/bench.h"

#define SO_PIN "bench-so-pin"
#define USER_PIN "bench-user"
#define WINDOWS 5
#define MAX_SAMPLES 4000

static const uint8_t OID_P256[] = { 0x06, 0x08, 0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x03, 0x01, 0x07 };
static const uint8_t OID_P384[] = { 0x06, 0x05, 0x2B, 0x81, 0x04, 0x00, 0x22 };
/* SHA-256 DigestInfo prefix (RFC 8017 9.2) and a digest */
static const uint8_t DIGEST_INFO[19 + 32] = { 0x30, 0x31, 0x30, 0x0d, 0x06, 0x09, 0x60,
					      0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02,
					      0x01, 0x05, 0x00, 0x04, 0x20, 0x5a };
static CK_BBOOL yes = CK_TRUE, no = CK_FALSE;

static int quick;
static int errors;

enum kind { RSA2048, RSA3072, P256, P384, MLDSA44, MLDSA65, MLDSA87, KINDS };
static const struct {
	const char *key, *label;
	unsigned gens, quick_gens; /* key generations to time */
} kinds[KINDS] = {
	{ "rsa2048", "RSA-2048", 6, 2 },   { "rsa3072", "RSA-3072", 3, 1 },
	{ "p256", "EC P-256", 30, 8 },	   { "p384", "EC P-384", 30, 8 },
	{ "mldsa44", "ML-DSA-44", 30, 8 }, { "mldsa65", "ML-DSA-65", 30, 8 },
	{ "mldsa87", "ML-DSA-87", 30, 8 },
};

/* The signatures measured: key kind, mechanism, what is signed. */
static const struct {
	const char *key, *label;
	enum kind kind;
	CK_MECHANISM_TYPE mech;
	const uint8_t *data;
	size_t len;
} signs[] = {
	{ "rsa2048", "RSA-2048 PKCS#1 v1.5", RSA2048, CKM_RSA_PKCS, DIGEST_INFO,
	  sizeof(DIGEST_INFO) },
	{ "ecdsa_p256", "ECDSA P-256", P256, CKM_ECDSA, DIGEST_INFO + 19, 32 },
	{ "mldsa65", "ML-DSA-65", MLDSA65, CKM_ML_DSA, DIGEST_INFO + 19, 32 },
};
#define SIGNS (sizeof(signs) / sizeof(signs[0]))

/* One module under test. */
struct module {
	const char *name, *prefix; /* "pqtpm", "p11_"; "SoftHSMv2", "p11_peer_" */
	int peer;		   /* its failures do not fail the run */
	void *lib;
	CK_FUNCTION_LIST *f;
	CK_FUNCTION_LIST_3_2 *f32; /* the PKCS#11 3.2 interface, if the module has it */
	CK_SLOT_ID slot;
	CK_SESSION_HANDLE s;
	/* figures, for the comparison: NAN-free, 0 when not measured */
	double sign1[SIGNS], sign2[SIGNS], gen[KINDS], login, random, encaps, decaps;
	double cpu1[SIGNS];   /* CPU time per signature of the one-thread run, us */
	double waits2[SIGNS]; /* sleeps per signature of the two-thread run */
};

static void result(const struct module *m, const char *key, const char *label, const char *unit,
		   double median, double p99, unsigned n)
{
	int digits = strcmp(unit, "ops/s") && strcmp(unit, "us") ? 2 : 1;

	if (p99 > 0)
		printf("RESULT\t%s%s\t%s\t%s\t%.*f\t%.*f\t%u\n", m->prefix, key, label, unit,
		       digits, median, digits, p99, n);
	else
		printf("RESULT\t%s%s\t%s\t%s\t%.*f\t-\t%u\n", m->prefix, key, label, unit, digits,
		       median, n);
}

static double p99_of(double *t, int n)
{
	int i = (int)(0.99 * (n - 1) + 0.5);

	bench_median(t, n); /* sorts */
	return t[i];
}

static int check(const struct module *m, CK_RV rv, const char *what)
{
	if (rv == CKR_OK)
		return 0;
	fprintf(stderr, "p11_bench: %s: %s: CK_RV 0x%lx\n", m->name, what, (unsigned long)rv);
	return -1;
}

/* ---- token ---- */

static int open_module(struct module *m, const char *path)
{
	CK_C_INITIALIZE_ARGS args = { .flags = CKF_OS_LOCKING_OK };
	CK_RV (*get_iface)(CK_UTF8CHAR_PTR, CK_VERSION_PTR, CK_INTERFACE_PTR_PTR, CK_FLAGS);
	CK_RV (*get)(CK_FUNCTION_LIST_PTR_PTR);
	CK_VERSION v32 = { 3, 2 };
	CK_INTERFACE *iface;
	CK_SLOT_ID slots[16];
	CK_ULONG n = 16;
	CK_UTF8CHAR label[32];
	CK_SESSION_HANDLE so;

	m->lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!m->lib) {
		fprintf(stderr, "p11_bench: %s: %s\n", m->name, dlerror());
		return -1;
	}
	get = (CK_RV(*)(CK_FUNCTION_LIST_PTR_PTR))dlsym(m->lib, "C_GetFunctionList");
	if (!get || get(&m->f) != CKR_OK) {
		fprintf(stderr, "p11_bench: %s: no function list\n", m->name);
		return -1;
	}
	get_iface = (CK_RV(*)(CK_UTF8CHAR_PTR, CK_VERSION_PTR, CK_INTERFACE_PTR_PTR,
			      CK_FLAGS))dlsym(m->lib, "C_GetInterface");
	if (get_iface && get_iface((CK_UTF8CHAR *)"PKCS 11", &v32, &iface, 0) == CKR_OK)
		m->f32 = iface->pFunctionList;
	memset(label, ' ', sizeof(label));
	memcpy(label, "bench", 5);
	if (check(m, m->f->C_Initialize(&args), "C_Initialize") ||
	    check(m, m->f->C_GetSlotList(CK_FALSE, slots, &n), "C_GetSlotList") || !n)
		return -1;
	m->slot = slots[n - 1]; /* the empty slot of both */
	if (check(m, m->f->C_InitToken(m->slot, (CK_UTF8CHAR *)SO_PIN, strlen(SO_PIN), label),
		  "C_InitToken"))
		return -1;
	/* SoftHSMv2 moves a new token to a new slot: find it by its label */
	n = 16;
	if (check(m, m->f->C_GetSlotList(CK_TRUE, slots, &n), "C_GetSlotList"))
		return -1;
	for (CK_ULONG i = 0; i < n; i++) {
		CK_TOKEN_INFO ti;

		if (m->f->C_GetTokenInfo(slots[i], &ti) == CKR_OK &&
		    !memcmp(ti.label, label, sizeof(label)) && (ti.flags & CKF_TOKEN_INITIALIZED))
			m->slot = slots[i];
	}
	if (check(m, m->f->C_OpenSession(m->slot, CKF_SERIAL_SESSION | CKF_RW_SESSION, NULL, NULL,
					  &so),
		  "C_OpenSession") ||
	    check(m, m->f->C_Login(so, CKU_SO, (CK_UTF8CHAR *)SO_PIN, strlen(SO_PIN)), "SO login") ||
	    check(m, m->f->C_InitPIN(so, (CK_UTF8CHAR *)USER_PIN, strlen(USER_PIN)), "C_InitPIN") ||
	    check(m, m->f->C_Logout(so), "C_Logout") ||
	    check(m, m->f->C_Login(so, CKU_USER, (CK_UTF8CHAR *)USER_PIN, strlen(USER_PIN)),
		  "C_Login"))
		return -1;
	m->s = so;
	return 0;
}

static void close_module(struct module *m)
{
	if (m->f)
		m->f->C_Finalize(NULL);
	if (m->lib)
		dlclose(m->lib);
	m->f = NULL;
	m->lib = NULL;
}

/* A key pair of kind k in session s (session objects). */
static CK_RV gen(const struct module *m, CK_SESSION_HANDLE s, enum kind k, CK_OBJECT_HANDLE *pub,
		 CK_OBJECT_HANDLE *priv)
{
	CK_ULONG bits = k == RSA3072 ? 3072 : 2048;
	CK_ULONG set = k == MLDSA44 ? CKP_ML_DSA_44 : k == MLDSA65 ? CKP_ML_DSA_65 : CKP_ML_DSA_87;
	CK_BYTE e[] = { 1, 0, 1 };
	CK_MECHANISM mech = { CKM_RSA_PKCS_KEY_PAIR_GEN, NULL, 0 };
	CK_ATTRIBUTE pt[4] = { { CKA_TOKEN, &no, sizeof(no) }, { CKA_VERIFY, &yes, sizeof(yes) } };
	CK_ATTRIBUTE kt[] = { { CKA_TOKEN, &no, sizeof(no) },
			      { CKA_SIGN, &yes, sizeof(yes) },
			      { CKA_PRIVATE, &yes, sizeof(yes) },
			      { CKA_SENSITIVE, &yes, sizeof(yes) } };
	CK_ULONG npt = 2;

	switch (k) {
	case RSA2048:
	case RSA3072:
		pt[npt++] = (CK_ATTRIBUTE){ CKA_MODULUS_BITS, &bits, sizeof(bits) };
		pt[npt++] = (CK_ATTRIBUTE){ CKA_PUBLIC_EXPONENT, e, sizeof(e) };
		break;
	case P256:
	case P384:
		mech.mechanism = CKM_EC_KEY_PAIR_GEN;
		pt[npt++] = k == P256 ? (CK_ATTRIBUTE){ CKA_EC_PARAMS, (void *)OID_P256,
							sizeof(OID_P256) }
				      : (CK_ATTRIBUTE){ CKA_EC_PARAMS, (void *)OID_P384,
							sizeof(OID_P384) };
		break;
	default:
		mech.mechanism = CKM_ML_DSA_KEY_PAIR_GEN;
		pt[npt++] = (CK_ATTRIBUTE){ CKA_PARAMETER_SET, &set, sizeof(set) };
	}
	return m->f->C_GenerateKeyPair(s, &mech, pt, npt, kt, 4, pub, priv);
}

/* Whether the module offers the mechanism (SoftHSMv2: no ML-DSA). */
static int has_mech(const struct module *m, CK_MECHANISM_TYPE t)
{
	CK_MECHANISM_INFO info;

	return m->f->C_GetMechanismInfo(m->slot, t, &info) == CKR_OK;
}

/* ---- key generation, login, random ---- */

static void bench_gen(struct module *m)
{
	static double t[64];

	for (int k = 0; k < KINDS; k++) {
		unsigned n = quick ? kinds[k].quick_gens : kinds[k].gens, ok = 0;
		char key[64], label[96];

		if (!has_mech(m, k <= RSA3072 ? CKM_RSA_PKCS_KEY_PAIR_GEN
				 : k <= P384  ? CKM_EC_KEY_PAIR_GEN
					      : CKM_ML_DSA_KEY_PAIR_GEN))
			continue;
		for (unsigned i = 0; i < n; i++) {
			CK_OBJECT_HANDLE pub, priv;
			double s = bench_now_us();
			CK_RV rv = gen(m, m->s, (enum kind)k, &pub, &priv);

			if (rv != CKR_OK) {
				check(m, rv, kinds[k].label);
				break;
			}
			t[ok++] = bench_now_us() - s;
			m->f->C_DestroyObject(m->s, pub);
			m->f->C_DestroyObject(m->s, priv);
		}
		snprintf(key, sizeof(key), "keygen_%s", kinds[k].key);
		snprintf(label, sizeof(label), "C_GenerateKeyPair %s", kinds[k].label);
		if (!ok) {
			errors += !m->peer;
			continue;
		}
		m->gen[k] = bench_median(t, (int)ok);
		result(m, key, label, "us", m->gen[k], p99_of(t, (int)ok), ok);
	}
}

static void bench_login_random(struct module *m)
{
	static double t[MAX_SAMPLES];
	unsigned n = quick ? 100 : 400, ok = 0;
	uint8_t r[32];

	for (unsigned i = 0; i < n; i++) {
		double s;
		CK_RV rv = m->f->C_Logout(m->s);

		s = bench_now_us();
		if (rv == CKR_OK)
			rv = m->f->C_Login(m->s, CKU_USER, (CK_UTF8CHAR *)USER_PIN, strlen(USER_PIN));
		if (check(m, rv, "C_Logout / C_Login"))
			break;
		t[ok++] = bench_now_us() - s;
	}
	if (ok) {
		m->login = bench_median(t, (int)ok);
		result(m, "login", "C_Login (user)", "us", m->login, p99_of(t, (int)ok), ok);
	} else {
		errors += !m->peer;
	}
	n = quick ? 1000 : MAX_SAMPLES;
	for (ok = 0; ok < n; ok++) {
		double s = bench_now_us();

		if (check(m, m->f->C_GenerateRandom(m->s, r, sizeof(r)), "C_GenerateRandom"))
			break;
		t[ok] = bench_now_us() - s;
	}
	if (ok) {
		m->random = bench_median(t, (int)ok);
		result(m, "random", "C_GenerateRandom 32 bytes", "us", m->random,
		       p99_of(t, (int)ok), ok);
	} else {
		errors += !m->peer;
	}
}

/* ML-KEM-768 (PKCS#11 3.2: C_EncapsulateKey, C_DecapsulateKey), each making a session key of
 * the shared secret; only a module with the 3.2 interface and the mechanism. */
static void bench_kem(struct module *m)
{
	static double te[MAX_SAMPLES], td[MAX_SAMPLES];
	static uint8_t ct[1600];
	CK_MECHANISM gen_m = { CKM_ML_KEM_KEY_PAIR_GEN, NULL, 0 }, kem = { CKM_ML_KEM, NULL, 0 };
	CK_ULONG set = CKP_ML_KEM_768, cls = CKO_SECRET_KEY, kt = CKK_GENERIC_SECRET;
	CK_ATTRIBUTE pt[] = { { CKA_PARAMETER_SET, &set, sizeof(set) } };
	CK_ATTRIBUTE t[] = { { CKA_CLASS, &cls, sizeof(cls) }, { CKA_KEY_TYPE, &kt, sizeof(kt) } };
	unsigned n = quick ? 200 : 1000, ok = 0;
	CK_OBJECT_HANDLE pub, priv;

	if (!m->f32 || !has_mech(m, CKM_ML_KEM))
		return;
	if (check(m, m->f->C_GenerateKeyPair(m->s, &gen_m, pt, 1, NULL, 0, &pub, &priv),
		  "ML-KEM-768 key pair")) {
		errors += !m->peer;
		return;
	}
	for (; ok < n; ok++) {
		CK_OBJECT_HANDLE a, b;
		CK_ULONG len = sizeof(ct);
		double s = bench_now_us();

		if (check(m, m->f32->C_EncapsulateKey(m->s, &kem, pub, t, 2, ct, &len, &a),
			  "C_EncapsulateKey"))
			break;
		te[ok] = bench_now_us() - s;
		s = bench_now_us();
		if (check(m, m->f32->C_DecapsulateKey(m->s, &kem, priv, t, 2, ct, len, &b),
			  "C_DecapsulateKey"))
			break;
		td[ok] = bench_now_us() - s;
		m->f->C_DestroyObject(m->s, a);
		m->f->C_DestroyObject(m->s, b);
	}
	if (ok < n) {
		errors += !m->peer;
		return;
	}
	m->encaps = bench_median(te, (int)n);
	result(m, "encaps_mlkem768", "C_EncapsulateKey ML-KEM-768 (a session key of the secret)",
	       "us", m->encaps, p99_of(te, (int)n), n);
	m->decaps = bench_median(td, (int)n);
	result(m, "decaps_mlkem768", "C_DecapsulateKey ML-KEM-768 (a session key of the secret)",
	       "us", m->decaps, p99_of(td, (int)n), n);
}

/* ---- signatures: ops/s with one and two threads ---- */

struct signer {
	const struct module *m;
	unsigned which;	    /* signs[] */
	CK_SESSION_HANDLE s; /* its own session */
	CK_OBJECT_HANDLE key;
	double seconds;	    /* how long to sign */
	pthread_barrier_t *start;
	unsigned done;
	double cpu_us; /* the thread's CPU time in the window */
	long waits;    /* ... and how often it slept before its time was up (a lock, mostly) */
	CK_RV bad;
};

static long thread_waits(void)
{
	struct rusage u;

	getrusage(RUSAGE_THREAD, &u);
	return u.ru_nvcsw;
}

static double thread_cpu_us(void)
{
	struct timespec t;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

static void *sign_loop(void *arg)
{
	struct signer *w = arg;
	CK_MECHANISM mech = { signs[w->which].mech, NULL, 0 };
	uint8_t sig[5000];
	double end;

	double cpu;

	long waits;

	pthread_barrier_wait(w->start);
	cpu = thread_cpu_us();
	waits = thread_waits();
	end = bench_now_us() + w->seconds * 1e6;
	while (bench_now_us() < end) {
		CK_ULONG n = sizeof(sig);
		CK_RV rv = w->m->f->C_SignInit(w->s, &mech, w->key);

		if (rv == CKR_OK)
			rv = w->m->f->C_Sign(w->s, (CK_BYTE *)signs[w->which].data,
					     signs[w->which].len, sig, &n);
		if (rv != CKR_OK) {
			w->bad = rv;
			break;
		}
		w->done++;
	}
	w->cpu_us = thread_cpu_us() - cpu;
	w->waits = thread_waits() - waits;
	return NULL;
}

/* One timed window of `threads` of the signers w: signatures per second of them together, CPU
 * time per signature (all threads' CPU time over all their signatures) and sleeps per
 * signature (how often a thread slept before its time slice was up: on a lock, mostly; a
 * module whose threads take turns sleeps about once per signature, one whose threads run side
 * by side hardly ever, however many CPUs the machine gives it). 0 if a signature failed. */
static double window(const struct module *m, struct signer *w, unsigned threads, double *cpu,
		     double *sleeps)
{
	pthread_barrier_t start;
	pthread_t th[2];
	unsigned total = 0, t;
	double s, used = 0, slept = 0;

	pthread_barrier_init(&start, NULL, threads + 1);
	for (t = 0; t < threads; t++) {
		w[t].done = 0;
		w[t].start = &start;
		pthread_create(&th[t], NULL, sign_loop, &w[t]);
	}
	pthread_barrier_wait(&start);
	s = bench_now_us();
	for (t = 0; t < threads; t++) {
		pthread_join(th[t], NULL);
		total += w[t].done;
		used += w[t].cpu_us;
		slept += w[t].waits;
		if (w[t].bad) {
			check(m, w[t].bad, "C_Sign");
			total = 0;
		}
	}
	pthread_barrier_destroy(&start);
	*cpu = total ? used / total : 0;
	*sleeps = total ? slept / total : 0;
	return total / ((bench_now_us() - s) / 1e6);
}

/* Signatures per second with one thread and with two (each its own session and key), their
 * windows taken in turns so that the machine's changing load falls on both alike: the medians
 * of WINDOWS windows each, the one-thread run's CPU time per signature and the two-thread
 * run's sleeps per signature, into m (0 if a signature failed). */
static void sign_rates(struct module *m, unsigned which)
{
	double r1[WINDOWS], r2[WINDOWS], c1[WINDOWS], w2[WINDOWS], unused;
	CK_OBJECT_HANDLE pub;
	struct signer w[2];
	unsigned t, i;

	memset(w, 0, sizeof(w));
	for (t = 0; t < 2; t++) {
		w[t].m = m;
		w[t].which = which;
		w[t].seconds = quick ? 0.3 : 1.0;
		if (check(m, m->f->C_OpenSession(m->slot, CKF_SERIAL_SESSION, NULL, NULL, &w[t].s),
			  "C_OpenSession") ||
		    check(m, gen(m, w[t].s, signs[which].kind, &pub, &w[t].key),
			  "C_GenerateKeyPair"))
			return;
	}
	for (i = 0; i < WINDOWS; i++) {
		r1[i] = window(m, w, 1, &c1[i], &unused);
		r2[i] = window(m, w, 2, &unused, &w2[i]);
		if (!r1[i] || !r2[i])
			break;
	}
	if (i == WINDOWS) {
		m->sign1[which] = bench_median(r1, WINDOWS);
		m->sign2[which] = bench_median(r2, WINDOWS);
		m->cpu1[which] = bench_median(c1, WINDOWS);
		m->waits2[which] = bench_median(w2, WINDOWS);
	}
	for (t = 0; t < 2; t++)
		m->f->C_CloseSession(w[t].s);
}

/* ---- what the machine gives two threads ----
 * Two-thread figures mean little on a machine whose other load leaves this process one CPU's
 * worth: busy loops of one and of two threads, in the same run, tell how much two threads can
 * get at all. */

static atomic_bool busy_stop;

static void *busy_loop(void *arg)
{
	unsigned long *n = arg;
	volatile unsigned long x = 0;

	while (!atomic_load(&busy_stop)) {
		for (unsigned i = 0; i < 100000; i++)
			x += i;
		(*n)++;
	}
	return NULL;
}

static double busy_rate(unsigned threads)
{
	const struct timespec window = { 0, 300000000 };
	double rates[WINDOWS];

	for (unsigned i = 0; i < WINDOWS; i++) {
		unsigned long n[2] = { 0, 0 };
		pthread_t th[2];
		double s = bench_now_us();

		atomic_store(&busy_stop, false);
		for (unsigned t = 0; t < threads; t++)
			pthread_create(&th[t], NULL, busy_loop, &n[t]);
		nanosleep(&window, NULL);
		atomic_store(&busy_stop, true);
		for (unsigned t = 0; t < threads; t++)
			pthread_join(th[t], NULL);
		rates[i] = (n[0] + n[1]) / ((bench_now_us() - s) / 1e6);
	}
	return bench_median(rates, WINDOWS);
}

static double machine_scaling;

static void bench_machine(struct module *m)
{
	double one = busy_rate(1);

	machine_scaling = one > 0 ? busy_rate(2) / one : 0;
	result(m, "machine_scaling", "busy loops: 2 threads / 1 thread (what the machine gives now)", "x",
	       machine_scaling, 0, WINDOWS);
}

static void bench_sign(struct module *m)
{
	for (unsigned i = 0; i < SIGNS; i++) {
		char key[64], label[96];

		if (!has_mech(m, signs[i].mech) ||
		    (signs[i].mech == CKM_ML_DSA && !has_mech(m, CKM_ML_DSA_KEY_PAIR_GEN)))
			continue;
		sign_rates(m, i);
		snprintf(key, sizeof(key), "sign_%s_1t", signs[i].key);
		snprintf(label, sizeof(label), "C_Sign %s, 1 thread", signs[i].label);
		if (m->sign1[i] > 0)
			result(m, key, label, "ops/s", m->sign1[i], 0, WINDOWS);
		snprintf(key, sizeof(key), "sign_%s_cpu", signs[i].key);
		snprintf(label, sizeof(label), "C_Sign %s, CPU time per signature (1 thread)",
			 signs[i].label);
		if (m->sign1[i] > 0)
			result(m, key, label, "us", m->cpu1[i], 0, WINDOWS);
		snprintf(key, sizeof(key), "sign_%s_2t", signs[i].key);
		snprintf(label, sizeof(label), "C_Sign %s, 2 threads (a key each)", signs[i].label);
		if (m->sign2[i] > 0)
			result(m, key, label, "ops/s", m->sign2[i], 0, WINDOWS);
		snprintf(key, sizeof(key), "sign_%s_2t_waits", signs[i].key);
		snprintf(label, sizeof(label), "C_Sign %s, 2 threads: sleeps per signature",
			 signs[i].label);
		if (m->sign2[i] > 0)
			result(m, key, label, "per op", m->waits2[i], 0, WINDOWS);
		if ((m->sign1[i] <= 0 || m->sign2[i] <= 0) && !m->peer)
			errors++;
	}
}

static int run(struct module *m, const char *path)
{
	printf("== %s (%s)\n", m->name, path);
	fflush(stdout);
	if (open_module(m, path) != 0) {
		close_module(m);
		return -1;
	}
	bench_login_random(m);
	if (!m->peer)
		bench_machine(m);
	bench_sign(m);
	bench_kem(m);
	bench_gen(m);
	close_module(m);
	return 0;
}

/* ---- the comparison ---- */

static void ratio_line(const char *what, double ours, double peer, int higher_better)
{
	char r[32] = "n/a";

	if (ours > 0 && peer > 0)
		snprintf(r, sizeof(r), "%.2fx", higher_better ? ours / peer : peer / ours);
	printf("| %-44s | %12.1f | %12.1f | %8s |\n", what, ours, peer, r);
}

static void target(const char *what, int met_known, int met, const char *figure)
{
	printf("- %s: %s (%s)\n", what, figure, !met_known ? "n/a" : met ? "met" : "missed");
}

static void compare(const struct module *o, const struct module *p)
{
	char fig[128];
	double r;

	printf("\n| figure (median) | %12s | %12s | pqtpm vs peer |\n", o->name, p->name);
	printf("| --- | ---: | ---: | ---: |\n");
	for (unsigned i = 0; i < SIGNS; i++) {
		char what[96];

		snprintf(what, sizeof(what), "C_Sign %s 1 thread ops/s", signs[i].label);
		ratio_line(what, o->sign1[i], p->sign1[i], 1);
		snprintf(what, sizeof(what), "C_Sign %s 2 threads ops/s", signs[i].label);
		ratio_line(what, o->sign2[i], p->sign2[i], 1);
		snprintf(what, sizeof(what), "C_Sign %s CPU us per signature", signs[i].label);
		ratio_line(what, o->cpu1[i], p->cpu1[i], 0);
	}
	for (int k = 0; k < KINDS; k++) {
		char what[96];

		snprintf(what, sizeof(what), "C_GenerateKeyPair %s us", kinds[k].label);
		ratio_line(what, o->gen[k], p->gen[k], 0);
	}
	ratio_line("C_EncapsulateKey ML-KEM-768 us", o->encaps, p->encaps, 0);
	ratio_line("C_DecapsulateKey ML-KEM-768 us", o->decaps, p->decaps, 0);
	ratio_line("C_Login us", o->login, p->login, 0);
	ratio_line("C_GenerateRandom 32 bytes us", o->random, p->random, 0);

	printf("\nTargets (issue 13):\n");
	r = p->sign1[1] > 0 ? o->sign1[1] / p->sign1[1] : 0;
	snprintf(fig, sizeof(fig), "%.2fx (%.0f against %.0f ops/s; by CPU time per signature %.2fx)",
		 r, o->sign1[1], p->sign1[1], o->cpu1[1] > 0 ? p->cpu1[1] / o->cpu1[1] : 0);
	target("ECDSA P-256 1 thread >= 1.4x SoftHSMv2", r > 0, r >= 1.4, fig);
	r = p->sign1[0] > 0 ? o->sign1[0] / p->sign1[0] : 0;
	snprintf(fig, sizeof(fig), "%.2fx (%.0f against %.0f ops/s; by CPU time per signature %.2fx)",
		 r, o->sign1[0], p->sign1[0], o->cpu1[0] > 0 ? p->cpu1[0] / o->cpu1[0] : 0);
	target("RSA-2048 1 thread >= 1.2x SoftHSMv2", r > 0, r >= 1.2, fig);
	for (unsigned i = 0; i < SIGNS; i++) {
		char what[96];

		r = o->sign1[i] > 0 ? o->sign2[i] / o->sign1[i] : 0;
		snprintf(what, sizeof(what), "%s two threads >= 1.8x one thread", signs[i].label);
		snprintf(fig, sizeof(fig),
			 "%.2fx; busy loops got %.2fx in this run; %.2f sleeps per signature", r,
			 machine_scaling, o->waits2[i]);
		target(what, r > 0, r >= 1.8, fig);
	}
	snprintf(fig, sizeof(fig), "%.0f ops/s; %.0f us CPU per signature", o->sign1[2],
		 o->cpu1[2]);
	target("ML-DSA-65 >= 2,000 signatures/s on one thread", o->sign1[2] > 0,
	       o->sign1[2] >= 2000, fig);
	snprintf(fig, sizeof(fig), "%.0f us", o->login);
	target("C_Login under 1 ms", o->login > 0, o->login < 1000, fig);
}

/* ---- main ---- */

static char tmp[] = "/tmp/pqtpm-p11-bench-XXXXXX";

static void cleanup(void)
{
	char cmd[PATH_MAX + 16];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmp);
	if (system(cmd) != 0)
		fprintf(stderr, "p11_bench: could not remove %s\n", tmp);
}

int main(int argc, char **argv)
{
	struct module ours = { .name = "pqtpm", .prefix = "p11_" };
	struct module peer = { .name = "SoftHSMv2", .prefix = "p11_peer_", .peer = 1 };
	char self[PATH_MAX], module[PATH_MAX + 32], dir[PATH_MAX + 16], conf[PATH_MAX + 16];
	const char *peer_path = argc > 2 ? argv[2] : "/usr/lib/softhsm/libsofthsm2.so";
	const char *q = getenv("BENCH_QUICK"), *pe = getenv("P11_BENCH_PEER");
	int with_peer = !pe || strcmp(pe, "0") != 0;
	ssize_t n;
	FILE *c;

	quick = q && *q && strcmp(q, "0") != 0;
	if (argc > 1) {
		snprintf(module, sizeof(module), "%s", argv[1]);
	} else {
		n = readlink("/proc/self/exe", self, sizeof(self) - 1);
		if (n <= 0)
			return 1;
		self[n] = '\0';
		*strrchr(self, '/') = '\0'; /* BUILD/bench */
		snprintf(module, sizeof(module), "%s/../lib/libpqtpm-pkcs11.so", self);
	}
	if (!mkdtemp(tmp))
		return 1;
	atexit(cleanup);
	/* ours: an embedded TPM and the token store in a fresh directory */
	snprintf(dir, sizeof(dir), "%s/pqtpm", tmp);
	unsetenv("PQTPM_PKCS11_CONF");
	setenv("PQTPM_STATE_DIR", dir, 1);
	/* SoftHSMv2: a token directory of its own */
	snprintf(dir, sizeof(dir), "%s/softhsm", tmp);
	snprintf(conf, sizeof(conf), "%s/softhsm2.conf", tmp);
	c = fopen(conf, "w");
	if (!c || mkdir(dir, 0700) != 0)
		return 1;
	fprintf(c, "directories.tokendir = %s\nobjectstore.backend = file\nlog.level = ERROR\n",
		dir);
	fclose(c);
	setenv("SOFTHSM2_CONF", conf, 1);

	printf("p11_bench: C_Sign ops/s (%.1f s windows, median of %d), key generation, login, "
	       "random; %s\n",
	       quick ? 0.3 : 1.0, WINDOWS, quick ? "quick" : "full");
	if (run(&ours, module) != 0)
		return 1;
	if (with_peer && access(peer_path, R_OK) == 0) {
		run(&peer, peer_path);
	} else if (with_peer) {
		printf("p11_bench: %s not found (Debian's softhsm2: scripts/install-deps.sh bench)\n",
		       peer_path);
		errors++;
	}
	compare(&ours, &peer);
	return errors ? 1 : 0;
}
