/*
 * pqtpm's side of tests/integration/pq_crosscheck.sh (the other side is tests/crosscheck/pq.mjs,
 * same line format, kept in step with it):
 *
 *   pq_tool gen     for each 64-byte hex seed on stdin, one line per parameter set:
 *                     dsa SET SEED PK SIG_DETERMINISTIC SIG_HEDGED
 *                     kem SET SEED EK CT SS
 *   pq_tool check   for each such line of the other implementation on stdin, `ok ...` or `FAIL ...`:
 *                   both signatures verify (and not under another context), and decapsulating CT
 *                   with this side's key from SEED gives SS
 *
 * ML-DSA: xi = SEED[0..32), rnd = SEED[32..64), message = SEED, context "pqtpm".
 * ML-KEM: d || z = SEED, m = SEED[16..48). SET is 1, 2, 3 (44/65/87, 512/768/1024).
 *
 * tests/run-integration.sh also runs every program built from the C files in tests/integration,
 * with a TCTI argument this one has no use for; called that way it checks keygen/sign/verify and
 * keygen/encaps/decaps round trips of every set and prints `N passed, M failed`.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crypto/mldsa.h"
#include "crypto/mlkem.h"

#define SEED_BYTES 64

static const uint8_t context[] = { 'p', 'q', 't', 'p', 'm' };
static const uint8_t other_context[] = { 'p', 'q', 't', 'p', 'n' };

static uint8_t pk[MLDSA_MAX_PK_BYTES], sk[MLDSA_MAX_SK_BYTES], sig[MLDSA_MAX_SIG_BYTES],
	sig2[MLDSA_MAX_SIG_BYTES], ek[MLKEM_MAX_EK_BYTES], dk[MLKEM_MAX_DK_BYTES], ct[MLKEM_MAX_CT_BYTES];

static void print_hex(const uint8_t *b, size_t len)
{
	size_t i;

	putchar(' ');
	for (i = 0; i < len; i++)
		printf("%02x", b[i]);
}

/* exactly 2 * len hex digits; returns 0 on success */
static int parse_hex(uint8_t *out, size_t len, const char *hex)
{
	size_t i;
	unsigned v;

	if (!hex || strlen(hex) != 2 * len)
		return -1;
	for (i = 0; i < len; i++) {
		if (sscanf(hex + 2 * i, "%2x", &v) != 1)
			return -1;
		out[i] = (uint8_t)v;
	}
	return 0;
}

static int gen(const uint8_t seed[SEED_BYTES])
{
	uint8_t ss[MLKEM_SS_BYTES];
	int set;

	for (set = MLDSA_44; set <= MLDSA_87; set++) {
		if (mldsa_keygen(set, seed, pk, sk)
		    || mldsa_sign(set, sk, seed, SEED_BYTES, context, sizeof(context), NULL, sig)
		    || mldsa_sign(set, sk, seed, SEED_BYTES, context, sizeof(context), seed + 32, sig2))
			return -1;
		printf("dsa %d", set);
		print_hex(seed, SEED_BYTES);
		print_hex(pk, mldsa_pk_bytes(set));
		print_hex(sig, mldsa_sig_bytes(set));
		print_hex(sig2, mldsa_sig_bytes(set));
		putchar('\n');
	}
	for (set = MLKEM_512; set <= MLKEM_1024; set++) {
		if (mlkem_keygen(set, seed, seed + 32, ek, dk) || mlkem_encaps(set, ek, seed + 16, ct, ss))
			return -1;
		printf("kem %d", set);
		print_hex(seed, SEED_BYTES);
		print_hex(ek, mlkem_ek_bytes(set));
		print_hex(ct, mlkem_ct_bytes(set));
		print_hex(ss, sizeof(ss));
		putchar('\n');
	}
	return 0;
}

/* one line of the other side's gen output; 1 if it checks out */
static int check(char *line)
{
	char *kind = strtok(line, " "), *set_s = strtok(NULL, " "), *seed_s = strtok(NULL, " "),
		*a = strtok(NULL, " "), *b = strtok(NULL, " "), *c = strtok(NULL, " ");
	uint8_t seed[SEED_BYTES], ss[MLKEM_SS_BYTES], want[MLKEM_SS_BYTES];
	int set = set_s ? atoi(set_s) : 0;
	size_t siglen = mldsa_sig_bytes(set);

	if (!kind || parse_hex(seed, sizeof(seed), seed_s))
		return 0;
	if (strcmp(kind, "dsa") == 0) {
		if (!siglen || parse_hex(pk, mldsa_pk_bytes(set), a) || parse_hex(sig, siglen, b)
		    || parse_hex(sig2, siglen, c))
			return 0;
		return mldsa_verify(set, pk, seed, SEED_BYTES, context, sizeof(context), sig, siglen) == 0
			&& mldsa_verify(set, pk, seed, SEED_BYTES, context, sizeof(context), sig2, siglen) == 0
			&& mldsa_verify(set, pk, seed, SEED_BYTES, other_context, sizeof(other_context),
				sig, siglen) == -1;
	}
	if (strcmp(kind, "kem") == 0) {
		if (!mlkem_ct_bytes(set) || parse_hex(ct, mlkem_ct_bytes(set), b) || parse_hex(want, sizeof(want), c))
			return 0;
		return mlkem_keygen(set, seed, seed + 32, ek, dk) == 0 && mlkem_decaps(set, dk, ct, ss) == 0
			&& memcmp(ss, want, sizeof(ss)) == 0;
	}
	return 0;
}

/* the mode run-integration.sh gets: round trips through this build's library */
static int self_test(void)
{
	uint8_t seed[SEED_BYTES], ss[MLKEM_SS_BYTES], ss2[MLKEM_SS_BYTES];
	unsigned pass = 0, fail = 0, i;
	int set;

	for (i = 0; i < 4; i++) {
		memset(seed, (int)(0x11 * (i + 1)), sizeof(seed));
		for (set = 1; set <= 3; set++) {
			int ok = mldsa_keygen(set, seed, pk, sk) == 0
				&& mldsa_sign(set, sk, seed, SEED_BYTES, context, sizeof(context), seed + 32, sig) == 0
				&& mldsa_verify(set, pk, seed, SEED_BYTES, context, sizeof(context), sig,
					mldsa_sig_bytes(set)) == 0;

			printf("%s ML-DSA set %d round trip %u\n", ok ? "ok  " : "FAIL", set, i);
			ok ? pass++ : fail++;
			ok = mlkem_keygen(set, seed, seed + 32, ek, dk) == 0
				&& mlkem_encaps(set, ek, seed + 16, ct, ss) == 0
				&& mlkem_decaps(set, dk, ct, ss2) == 0 && memcmp(ss, ss2, sizeof(ss)) == 0;
			printf("%s ML-KEM set %d round trip %u\n", ok ? "ok  " : "FAIL", set, i);
			ok ? pass++ : fail++;
		}
	}
	printf("%u passed, %u failed\n", pass, fail);
	return fail ? 1 : 0;
}

int main(int argc, char **argv)
{
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	int gen_mode, failed = 0;

	if (argc != 2 || (strcmp(argv[1], "gen") && strcmp(argv[1], "check")))
		return self_test();
	gen_mode = strcmp(argv[1], "gen") == 0;
	while ((len = getline(&line, &cap, stdin)) >= 0) {
		uint8_t seed[SEED_BYTES];
		char kind[4] = "", seed_start[17] = "";
		int set = 0;

		while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
			line[--len] = '\0';
		if (len == 0)
			continue;
		if (gen_mode) {
			if (parse_hex(seed, sizeof(seed), line) || gen(seed)) {
				fprintf(stderr, "pq_tool: cannot handle seed '%s'\n", line);
				failed = 1;
			}
			continue;
		}
		/* the report names kind, set and the start of the seed, read before strtok cuts the line */
		if (sscanf(line, "%3s %d %16s", kind, &set, seed_start) != 3)
			strcpy(kind, "?");
		printf("%s %s-%s set %d seed %s\n", check(line) ? "ok" : "FAIL", kind,
			strcmp(kind, "dsa") == 0 ? "verify" : "decaps", set, seed_start);
	}
	free(line);
	return failed;
}
