/* pqtpm_tss_rc_decode prints what tpm2_rc_decode (tpm2-tools, a dependency) prints: the tool is
 * run for every code of the table and the two texts compared. The table covers format-one
 * codes with parameter, handle and session numbers (including the tool's 3-bit numbering),
 * format-zero errors and warnings, TPM 1.2 and vendor codes, unassigned numbers, the TSS
 * layers with this library's own codes, and layers without a decoder. */
#include <stdio.h>
#include <string.h>

#include <CUnit/Basic.h>

#include <pqtpm/tss.h>

#include "unit_main.h"

static const TPM_RC codes[] = {
	0x0,	    0x1d5,	0x9a2,	    0x98e,	0x922,	    0x101,     0x902,	 0x100,
	0x3,	    0x84,	0x1c4,	    0x2c4,	0x3c4,	    0x4c4,     0x8c4,	 0x9c4,
	0xac4,	    0xfc4,	0x1df,	    0x9d,	0x80,	    0x81,      0xbf,	 0x180,
	0x8a2,	    0xfa2,	0x7a2,	    0x880,	0x17f,	    0x140,     0x400,	 0x500,
	0x900,	    0x901,	0x923,	    0x929,	0xa01,	    0xd01,     0x800,	 0xfff,
	0x1ff,	    0x1a6,	0x12f,	    0x131,	0x143,	    0x14c,     0x155,	 0x91e,
	0x920,	    0x921,	0xaa,	    0x1ab,	0x2ac,	    0x5ad,     0x1000000, 0xff000001,
	0x80001,    0x7000a,	0x60005,    0x90017,	0xa0000,    0xa0032,   0xa00ff,	 0xa0100,
	0xb0000,    0xb0084,	0xb0922,    0xc0001,	0xd0005,    0x10000,   0x40080,	 0x7f0000,
	0x1050001,
	PQTPM_TSS_RC_IO, PQTPM_TSS_RC_BAD_VALUE, PQTPM_TSS_RC_MALFORMED, PQTPM_TSS_RC_FORKED,
};

/* The tool's line for rc, without its newline; 0 if it could not be run. */
static int tool(TPM_RC rc, char *out, size_t len)
{
	char cmd[64];
	FILE *p;
	size_t n;
	int st;

	snprintf(cmd, sizeof(cmd), "tpm2_rc_decode 0x%x 2>/dev/null", rc);
	p = popen(cmd, "r");
	if (!p)
		return 0;
	n = fread(out, 1, len - 1, p);
	st = pclose(p);
	out[n] = '\0';
	if (n && out[n - 1] == '\n')
		out[n - 1] = '\0';
	return st == 0 && n > 0;
}

static void test_against_tool(void)
{
	char want[512], got[512];

	for (size_t i = 0; i < sizeof(codes) / sizeof(codes[0]); i++) {
		if (!tool(codes[i], want, sizeof(want))) {
			printf("tpm2_rc_decode 0x%x did not run (tpm2-tools installed?)\n", codes[i]);
			CU_FAIL("tpm2_rc_decode");
			continue;
		}
		pqtpm_tss_rc_decode(codes[i], got, sizeof(got));
		if (strcmp(want, got) != 0) {
			printf("0x%x: tool \"%s\", library \"%s\"\n", codes[i], want, got);
			CU_FAIL("text differs");
		}
	}
}

/* Every format-one number and every format-zero number, as a parameter, handle and session. */
static void test_every_number(void)
{
	char want[512], got[512];
	unsigned bad = 0;

	for (TPM_RC e = 0; e < 0x80; e++) {
		TPM_RC rcs[] = { 0x80 | e, 0x1C0 | (e & 0x3F), 0xA80 | (e & 0x3F), 0x100 | e,
				 0x900 | e };

		for (size_t i = 0; i < sizeof(rcs) / sizeof(rcs[0]); i++) {
			if (!tool(rcs[i], want, sizeof(want))) {
				CU_FAIL("tpm2_rc_decode");
				return;
			}
			pqtpm_tss_rc_decode(rcs[i], got, sizeof(got));
			if (strcmp(want, got) != 0 && bad++ < 10)
				printf("0x%x: tool \"%s\", library \"%s\"\n", rcs[i], want, got);
		}
	}
	CU_ASSERT_EQUAL(bad, 0);
}

/* A short buffer gets a truncated, terminated text; no buffer gives "". */
static void test_short_buffer(void)
{
	char b[8];

	CU_ASSERT_PTR_EQUAL(pqtpm_tss_rc_decode(0x9a2, b, sizeof(b)), b);
	CU_ASSERT_STRING_EQUAL(b, "tpm:ses");
	CU_ASSERT_STRING_EQUAL(pqtpm_tss_rc_decode(0x9a2, NULL, 0), "");
	CU_ASSERT_STRING_EQUAL(pqtpm_tss_rc_decode(0x9a2, b, 3), "tp");
}

int main(void)
{
	static const struct unit_test tests[] = {
		{ "the table against tpm2_rc_decode", test_against_tool },
		{ "every number against tpm2_rc_decode", test_every_number },
		{ "short buffers", test_short_buffer },
	};

	return UNIT_RUN("tss_rc", tests, NULL, NULL);
}
