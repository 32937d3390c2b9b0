/* GetCapability for every capability (lists, order, paging with moreData, the values that
 * clients rely on) and TestParms with the code for each kind of unsupported parameter
 * (core/cmd/capability.c). */
#include <string.h>

#include <CUnit/Basic.h>

#include "engine_int.h"
#include "harness.h"
#include "unit_main.h"

#define RC_P1(rc) ((rc) | TPM_RC_P | TPM_RC_1)
#define RC_P2(rc) ((rc) | TPM_RC_P | (2 * TPM_RC_1))

static struct harness h;
static struct cmdbuf b;

/* GetCapability; on success r is at the list's count and *more holds moreData. */
static TPM_RC getcap(uint32_t cap, uint32_t property, uint32_t count, struct rd *r,
		     uint8_t *more)
{
	uint32_t echoed = ~0u;
	TPM_RC rc;

	cmd_begin(&b, TPM_CC_GetCapability);
	wr_u32(&b.params, cap);
	wr_u32(&b.params, property);
	wr_u32(&b.params, count);
	rc = harness_run(&h, &b, r, NULL);
	if (rc != TPM_RC_SUCCESS)
		return rc;
	CU_ASSERT_EQUAL(rd_u8(r, more), TPM_RC_SUCCESS);
	CU_ASSERT(*more <= 1);
	CU_ASSERT_EQUAL(rd_u32(r, &echoed), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(echoed, cap);
	return rc;
}

/* A list of u32 items (handles, TPMA_CC); returns the count. */
static uint32_t get_u32_list(uint32_t cap, uint32_t property, uint32_t count, uint32_t *items,
			     uint32_t max, uint8_t *more)
{
	struct rd r;
	uint32_t n = 0;

	CU_ASSERT_EQUAL_FATAL(getcap(cap, property, count, &r, more), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(rd_u32(&r, &n), TPM_RC_SUCCESS);
	CU_ASSERT_FATAL(n <= max);
	for (uint32_t i = 0; i < n; i++)
		CU_ASSERT_EQUAL(rd_u32(&r, &items[i]), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(rd_left(&r), 0);
	return n;
}

static void test_bad_capability(void)
{
	struct rd r;
	uint8_t more;

	harness_open(&h);
	CU_ASSERT_EQUAL(getcap(0xB, 0, 1, &r, &more), RC_P1(TPM_RC_VALUE));
	CU_ASSERT_EQUAL(getcap(TPM_CAP_VENDOR_PROPERTY, 0, 1, &r, &more), RC_P1(TPM_RC_VALUE));
	cmd_begin(&b, TPM_CC_GetCapability);
	wr_u32(&b.params, TPM_CAP_ALGS);
	wr_u32(&b.params, 0);
	CU_ASSERT_EQUAL(harness_run(&h, &b, NULL, NULL),
			TPM_RC_INSUFFICIENT | TPM_RC_P | (3 * TPM_RC_1));
	harness_close(&h);
}

/* ---- ALGS ---- */
static uint32_t read_algs(struct rd *r, uint16_t *ids, uint32_t *attrs, uint32_t max)
{
	uint32_t n = 0;

	CU_ASSERT_EQUAL(rd_u32(r, &n), TPM_RC_SUCCESS);
	CU_ASSERT_FATAL(n <= max);
	for (uint32_t i = 0; i < n; i++) {
		CU_ASSERT_EQUAL(rd_u16(r, &ids[i]), TPM_RC_SUCCESS);
		CU_ASSERT_EQUAL(rd_u32(r, &attrs[i]), TPM_RC_SUCCESS);
	}
	CU_ASSERT_EQUAL(rd_left(r), 0);
	return n;
}

static uint32_t attrs_of(const uint16_t *ids, const uint32_t *attrs, uint32_t n, uint16_t alg)
{
	for (uint32_t i = 0; i < n; i++)
		if (ids[i] == alg)
			return attrs[i];
	return ~0u;
}

static void test_algs(void)
{
	uint16_t ids[128], page_ids[128];
	uint32_t attrs[128], page_attrs[128], n, total = 0, from = 0;
	struct rd r;
	uint8_t more;

	harness_open(&h);
	CU_ASSERT_EQUAL_FATAL(getcap(TPM_CAP_ALGS, 0, 1000, &r, &more), TPM_RC_SUCCESS);
	n = read_algs(&r, ids, attrs, 128);
	CU_ASSERT_EQUAL(more, 0);
	CU_ASSERT(n >= 20);
	for (uint32_t i = 1; i < n; i++)
		CU_ASSERT(ids[i - 1] < ids[i]);
	CU_ASSERT_EQUAL(attrs_of(ids, attrs, n, TPM_ALG_SHA256), TPMA_ALGORITHM_HASH);
	CU_ASSERT_EQUAL(attrs_of(ids, attrs, n, TPM_ALG_RSA),
			TPMA_ALGORITHM_ASYMMETRIC | TPMA_ALGORITHM_OBJECT);
	CU_ASSERT_EQUAL(attrs_of(ids, attrs, n, TPM_ALG_ECDSA),
			TPMA_ALGORITHM_ASYMMETRIC | TPMA_ALGORITHM_SIGNING | TPMA_ALGORITHM_METHOD);
	CU_ASSERT_EQUAL(attrs_of(ids, attrs, n, TPM_ALG_AES), TPMA_ALGORITHM_SYMMETRIC);
	CU_ASSERT_EQUAL(attrs_of(ids, attrs, n, TPM_ALG_CFB),
			TPMA_ALGORITHM_SYMMETRIC | TPMA_ALGORITHM_ENCRYPTING);
	CU_ASSERT_EQUAL(attrs_of(ids, attrs, n, TPM_ALG_NULL), 0);
	CU_ASSERT_EQUAL(attrs_of(ids, attrs, n, TPM_ALG_CAMELLIA), TPMA_ALGORITHM_SYMMETRIC);
	CU_ASSERT_EQUAL(attrs_of(ids, attrs, n, TPM_ALG_TDES), TPMA_ALGORITHM_SYMMETRIC);
	/* wolfSSL 5.5.4 has no SM2, SM3 or SM4 */
	CU_ASSERT_EQUAL(attrs_of(ids, attrs, n, TPM_ALG_SM4), ~0u);
	CU_ASSERT_EQUAL(attrs_of(ids, attrs, n, TPM_ALG_SM3_256), ~0u);
	CU_ASSERT_EQUAL(attrs_of(ids, attrs, n, TPM_ALG_SM2), ~0u);
	/* released (the default): no v1.85 ID in a list that starts below them */
	CU_ASSERT_EQUAL(ids[n - 1], TPM_ALG_ECB);

	/* pages of four, each starting after the last one seen */
	do {
		uint32_t got;

		CU_ASSERT_EQUAL_FATAL(getcap(TPM_CAP_ALGS, from, 4, &r, &more), TPM_RC_SUCCESS);
		got = read_algs(&r, page_ids, page_attrs, 4);
		CU_ASSERT_FATAL(got > 0 || !more);
		for (uint32_t i = 0; i < got && total + i < n; i++)
			CU_ASSERT_EQUAL(page_ids[i], ids[total + i]);
		total += got;
		if (got)
			from = page_ids[got - 1] + 1u;
	} while (more && total <= n);
	CU_ASSERT_EQUAL(total, n);

	CU_ASSERT_EQUAL_FATAL(getcap(TPM_CAP_ALGS, TPM_ALG_SHA256, 1, &r, &more), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(read_algs(&r, page_ids, page_attrs, 1), 1);
	CU_ASSERT_EQUAL(page_ids[0], TPM_ALG_SHA256);
	CU_ASSERT_EQUAL(more, 1);
	harness_close(&h);
}

/* The v1.85 algorithms: asked for from their IDs in either setting, listed from 0 only with
 * PQTPM_CAPS_V185. */
static void check_v185_algs(enum pqtpm_capabilities caps)
{
	const uint32_t mldsa = TPMA_ALGORITHM_ASYMMETRIC | TPMA_ALGORITHM_OBJECT |
			       TPMA_ALGORITHM_SIGNING;
	uint16_t ids[128];
	uint32_t attrs[128], n;
	struct rd r;
	uint8_t more;

	harness_open_caps(&h, NULL, caps);
	CU_ASSERT_EQUAL_FATAL(getcap(TPM_CAP_ALGS, 0, 1000, &r, &more), TPM_RC_SUCCESS);
	n = read_algs(&r, ids, attrs, 128);
	CU_ASSERT_EQUAL(more, 0);
	CU_ASSERT_EQUAL(attrs_of(ids, attrs, n, TPM_ALG_MLDSA),
			caps == PQTPM_CAPS_V185 ? mldsa : ~0u);
	CU_ASSERT_EQUAL(attrs_of(ids, attrs, n, TPM_ALG_MLKEM) != ~0u, caps == PQTPM_CAPS_V185);
	/* released IDs are listed under both settings (issue 15's among them) */
	CU_ASSERT_EQUAL(attrs_of(ids, attrs, n, TPM_ALG_CAMELLIA), TPMA_ALGORITHM_SYMMETRIC);
	CU_ASSERT_EQUAL(attrs_of(ids, attrs, n, TPM_ALG_TDES), TPMA_ALGORITHM_SYMMETRIC);
	CU_ASSERT_EQUAL(attrs_of(ids, attrs, n, TPM_ALG_KDF2),
			TPMA_ALGORITHM_HASH | TPMA_ALGORITHM_METHOD);
	/* a page that ends at the last released ID has more data only when v1.85 IDs follow */
	CU_ASSERT_EQUAL_FATAL(getcap(TPM_CAP_ALGS, TPM_ALG_ECB, 1, &r, &more), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(read_algs(&r, ids, attrs, 1), 1);
	CU_ASSERT_EQUAL(more, caps == PQTPM_CAPS_V185);

	CU_ASSERT_EQUAL_FATAL(getcap(TPM_CAP_ALGS, TPM_ALG_MLKEM, 10, &r, &more),
			      TPM_RC_SUCCESS);
	n = read_algs(&r, ids, attrs, 10);
	CU_ASSERT_EQUAL_FATAL(n, 3);
	CU_ASSERT_EQUAL(ids[0], TPM_ALG_MLKEM);
	CU_ASSERT_EQUAL(ids[1], TPM_ALG_MLDSA);
	CU_ASSERT_EQUAL(attrs[1], mldsa);
	CU_ASSERT_EQUAL(ids[2], TPM_ALG_HASH_MLDSA);
	CU_ASSERT_EQUAL(more, 0);
	harness_close(&h);
}

static void test_v185_algs(void)
{
	check_v185_algs(PQTPM_CAPS_RELEASED);
	check_v185_algs(PQTPM_CAPS_V185);
}

/* ---- HANDLES ---- */
static void test_handles(void)
{
	uint32_t items[256], n;
	struct object *o[3];
	struct pqtpm_client *mine;
	uint8_t more;
	struct rd r;

	harness_open(&h);
	n = get_u32_list(TPM_CAP_HANDLES, 0, 100, items, 256, &more);
	CU_ASSERT_EQUAL(n, 24);
	CU_ASSERT_EQUAL(more, 0);
	for (uint32_t i = 0; i < n; i++)
		CU_ASSERT_EQUAL(items[i], i);
	n = get_u32_list(TPM_CAP_HANDLES, 20, 2, items, 256, &more);
	CU_ASSERT(n == 2 && items[0] == 20 && items[1] == 21 && more == 1);

	n = get_u32_list(TPM_CAP_HANDLES, TPM_HR_PERMANENT, 100, items, 256, &more);
	CU_ASSERT_EQUAL(n, 7);
	CU_ASSERT_EQUAL(items[0], TPM_RH_OWNER);
	CU_ASSERT_EQUAL(items[2], TPM_RS_PW);
	CU_ASSERT_EQUAL(items[6], TPM_RH_PLATFORM_NV);
	for (uint32_t i = 1; i < n; i++)
		CU_ASSERT(items[i - 1] < items[i]);
	n = get_u32_list(TPM_CAP_HANDLES, TPM_RH_LOCKOUT, 100, items, 256, &more);
	CU_ASSERT(n == 4 && items[0] == TPM_RH_LOCKOUT);

	CU_ASSERT_EQUAL(get_u32_list(TPM_CAP_HANDLES, TPM_HR_NV_INDEX, 100, items, 256, &more), 0);
	CU_ASSERT_EQUAL(get_u32_list(TPM_CAP_HANDLES, TPM_HR_HMAC_SESSION, 9, items, 256, &more), 0);
	CU_ASSERT_EQUAL(get_u32_list(TPM_CAP_HANDLES, TPM_HR_PERSISTENT, 9, items, 256, &more), 0);
	CU_ASSERT_EQUAL(get_u32_list(TPM_CAP_HANDLES, TPM_HR_TRANSIENT, 9, items, 256, &more), 0);

	/* transient objects: this client's, ascending, paged */
	for (int i = 0; i < 3; i++)
		CU_ASSERT_EQUAL_FATAL(object_alloc(h.c, OBJ_HASH_SEQ, &o[i]), TPM_RC_SUCCESS);
	n = get_u32_list(TPM_CAP_HANDLES, TPM_HR_TRANSIENT, 100, items, 256, &more);
	CU_ASSERT_EQUAL(n, 3);
	CU_ASSERT(items[0] < items[1] && items[1] < items[2]);
	CU_ASSERT((items[0] >> 24) == TPM_HT_TRANSIENT);
	n = get_u32_list(TPM_CAP_HANDLES, TPM_HR_TRANSIENT, 2, items, 256, &more);
	CU_ASSERT(n == 2 && more == 1);
	n = get_u32_list(TPM_CAP_HANDLES, items[1] + 1, 2, items, 256, &more);
	CU_ASSERT(n == 1 && more == 0 && items[0] == o[2]->handle);

	mine = h.c;
	h.c = pqtpm_client_new(h.e);
	CU_ASSERT_FATAL(h.c != NULL);
	CU_ASSERT_EQUAL(get_u32_list(TPM_CAP_HANDLES, TPM_HR_TRANSIENT, 9, items, 256, &more), 0);
	pqtpm_client_free(h.c);
	h.c = mine;

	CU_ASSERT_EQUAL(getcap(TPM_CAP_HANDLES, 0x20000000, 1, &r, &more), RC_P2(TPM_RC_HANDLE));
	harness_close(&h);
}

/* ---- COMMANDS, PP_COMMANDS, AUDIT_COMMANDS ---- */
static void test_commands(void)
{
	uint32_t items[256], all[512], n, total = 0;
	TPM_CC from = 0;
	uint8_t more;

	harness_open(&h);
	CU_ASSERT_FATAL(cmd_count() > 10);
	do {
		n = get_u32_list(TPM_CAP_COMMANDS, from, 7, items, 7, &more);
		CU_ASSERT_FATAL(total + n <= 512);
		memcpy(all + total, items, n * sizeof(items[0]));
		total += n;
		if (n)
			from = (items[n - 1] & TPMA_CC_COMMANDINDEX_MASK) + 1;
	} while (more && n);
	CU_ASSERT_EQUAL(total, cmd_count());
	for (uint32_t i = 0; i < total && i < cmd_count(); i++) {
		const struct cmd_def *d = cmd_at(i);
		uint32_t a = all[i];

		CU_ASSERT_EQUAL(a & TPMA_CC_COMMANDINDEX_MASK, d->code & 0xFFFF);
		CU_ASSERT_EQUAL((a & TPMA_CC_CHANDLES_MASK) >> TPMA_CC_CHANDLES_SHIFT, d->handles);
		CU_ASSERT_EQUAL(!!(a & TPMA_CC_RHANDLE), !!(d->flags & CMD_RHANDLE));
		CU_ASSERT_EQUAL(a & (TPMA_CC_V | TPMA_CC_RES_MASK), 0);
		if (d->code == TPM_CC_PCR_Extend)
			CU_ASSERT_EQUAL(a, 0x182u | TPMA_CC_NV | 1u << TPMA_CC_CHANDLES_SHIFT);
		if (d->code == TPM_CC_PCR_Read)
			CU_ASSERT_EQUAL(a, 0x17Eu);
	}
	n = get_u32_list(TPM_CAP_COMMANDS, TPM_CC_PCR_Read, 1, items, 1, &more);
	CU_ASSERT(n == 1 && (items[0] & 0xFFFF) == TPM_CC_PCR_Read && more == 1);
	/* a count beyond the TSS's list size is cut to it */
	n = get_u32_list(TPM_CAP_COMMANDS, 0, 100000, items, 256, &more);
	CU_ASSERT_EQUAL(n, cmd_count() < 254 ? cmd_count() : 254);

	/* by default only PP_Commands needs physical presence, only SetCommandCodeAuditStatus
	 * is audited */
	CU_ASSERT_EQUAL(get_u32_list(TPM_CAP_PP_COMMANDS, 0, 100, items, 256, &more), 1);
	CU_ASSERT_EQUAL(items[0], TPM_CC_PP_Commands);
	CU_ASSERT_EQUAL(more, 0);
	CU_ASSERT_EQUAL(get_u32_list(TPM_CAP_AUDIT_COMMANDS, 0, 100, items, 256, &more), 1);
	CU_ASSERT_EQUAL(items[0], TPM_CC_SetCommandCodeAuditStatus);
	CU_ASSERT_EQUAL(more, 0);
	CU_ASSERT_EQUAL(get_u32_list(TPM_CAP_AUDIT_COMMANDS, TPM_CC_SetCommandCodeAuditStatus + 1,
				     100, items, 256, &more), 0);
	harness_close(&h);
}

/* ---- PCRS ---- */
static void test_pcrs(void)
{
	static const uint16_t algs[] = { TPM_ALG_SHA1, TPM_ALG_SHA256, TPM_ALG_SHA384,
					 TPM_ALG_SHA512 };
	static const uint8_t fill[] = { 0xFF, 0xFF, 0x00, 0x00 };
	struct rd r;
	uint32_t n;
	uint8_t more;

	harness_open(&h);
	CU_ASSERT_EQUAL_FATAL(getcap(TPM_CAP_PCRS, 0, 1, &r, &more), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(more, 0);
	CU_ASSERT_EQUAL(rd_u32(&r, &n), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(n, 4);
	for (size_t i = 0; i < 4; i++) {
		uint16_t alg;
		uint8_t size, sel[3];

		CU_ASSERT_EQUAL(rd_u16(&r, &alg), TPM_RC_SUCCESS);
		CU_ASSERT_EQUAL(rd_u8(&r, &size), TPM_RC_SUCCESS);
		CU_ASSERT_EQUAL(rd_bytes(&r, sel, 3), TPM_RC_SUCCESS);
		CU_ASSERT_EQUAL(alg, algs[i]);
		CU_ASSERT_EQUAL(size, 3);
		CU_ASSERT(sel[0] == fill[i] && sel[1] == fill[i] && sel[2] == fill[i]);
	}
	CU_ASSERT_EQUAL(rd_left(&r), 0);
	CU_ASSERT_EQUAL(getcap(TPM_CAP_PCRS, 1, 1, &r, &more), RC_P2(TPM_RC_VALUE));
	harness_close(&h);
}

/* ---- TPM_PROPERTIES ---- */
static uint32_t get_props(uint32_t from, uint32_t count, uint32_t *tags, uint32_t *values,
			  uint8_t *more)
{
	struct rd r;
	uint32_t n = 0;

	CU_ASSERT_EQUAL_FATAL(getcap(TPM_CAP_TPM_PROPERTIES, from, count, &r, more),
			      TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(rd_u32(&r, &n), TPM_RC_SUCCESS);
	CU_ASSERT_FATAL(n <= count && n <= 127);
	for (uint32_t i = 0; i < n; i++) {
		CU_ASSERT_EQUAL(rd_u32(&r, &tags[i]), TPM_RC_SUCCESS);
		CU_ASSERT_EQUAL(rd_u32(&r, &values[i]), TPM_RC_SUCCESS);
	}
	CU_ASSERT_EQUAL(rd_left(&r), 0);
	return n;
}

static uint32_t prop(uint32_t pt)
{
	uint32_t tag = 0, value = 0;
	uint8_t more;

	CU_ASSERT_EQUAL(get_props(pt, 1, &tag, &value, &more), 1);
	CU_ASSERT_EQUAL(tag, pt);
	return value;
}

static void test_tpm_properties(void)
{
	uint32_t tags[128], values[128], n, seen = 0, last = 0, from = TPM_PT_FAMILY_INDICATOR;
	struct object *o;
	uint8_t more;

	harness_open(&h);
	CU_ASSERT_EQUAL(prop(TPM_PT_FAMILY_INDICATOR), 0x322E3000u);
	CU_ASSERT_EQUAL(prop(TPM_PT_MANUFACTURER), 0x53572020u);
	CU_ASSERT_EQUAL(prop(TPM_PT_VENDOR_STRING_1), 0x70717470u);
	CU_ASSERT_EQUAL(prop(TPM_PT_REVISION), 159);
	CU_ASSERT_EQUAL(prop(TPM_PT_MAX_COMMAND_SIZE), 8192);
	CU_ASSERT_EQUAL(prop(TPM_PT_MAX_RESPONSE_SIZE), 8192);
	CU_ASSERT_EQUAL(prop(TPM_PT_INPUT_BUFFER), 1024);
	CU_ASSERT_EQUAL(prop(TPM_PT_PCR_COUNT), 24);
	CU_ASSERT_EQUAL(prop(TPM_PT_PCR_SELECT_MIN), 3);
	CU_ASSERT_EQUAL(prop(TPM_PT_MAX_DIGEST), 64);
	CU_ASSERT_EQUAL(prop(TPM_PT_CONTEXT_HASH), TPM_ALG_SHA256);
	CU_ASSERT_EQUAL(prop(TPM_PT_TOTAL_COMMANDS), cmd_count());
	CU_ASSERT_EQUAL(prop(TPM_PT_MAX_CAP_BUFFER), 1024);
	CU_ASSERT_EQUAL(prop(TPM_PT_PS_FAMILY_INDICATOR), TPM_PS_PC);
	CU_ASSERT_EQUAL(prop(TPM_PT_STARTUP_CLEAR) & 0xF, 0xF);
	CU_ASSERT_EQUAL(prop(TPM_PT_PERMANENT) & TPMA_PERMANENT_OWNERAUTHSET, 0);
	CU_ASSERT_EQUAL(prop(TPM_PT_MAX_AUTH_FAIL), 3);
	CU_ASSERT_EQUAL(prop(TPM_PT_LOADED_CURVES), 3);

	/* variable values follow the state */
	h.e->ps.hier[HIER_OWNER].auth.size = 4;
	CU_ASSERT_EQUAL(prop(TPM_PT_PERMANENT) & TPMA_PERMANENT_OWNERAUTHSET,
			TPMA_PERMANENT_OWNERAUTHSET);
	CU_ASSERT_EQUAL(prop(TPM_PT_HR_TRANSIENT_AVAIL), MAX_CLIENT_OBJECTS);
	CU_ASSERT_EQUAL_FATAL(object_alloc(h.c, OBJ_HASH_SEQ, &o), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(prop(TPM_PT_HR_TRANSIENT_AVAIL), MAX_CLIENT_OBJECTS - 1);

	/* an unused number answers the next property */
	n = get_props(0x115, 1, tags, values, &more);
	CU_ASSERT(n == 1 && tags[0] == TPM_PT_NV_COUNTERS_MAX && more == 1);

	/* all of them, ten at a time: ascending, fixed then variable, ending with moreData NO */
	do {
		n = get_props(from, 10, tags, values, &more);
		for (uint32_t i = 0; i < n; i++) {
			CU_ASSERT(tags[i] > last || seen == 0);
			last = tags[i];
		}
		seen += n;
		if (n)
			from = last + 1;
	} while (more && n);
	CU_ASSERT_EQUAL(more, 0);
	CU_ASSERT_EQUAL(last, TPM_PT_AUDIT_COUNTER_1);
	CU_ASSERT_EQUAL(seen, 46 + 21); /* released: without TPM_PT_ML_PARAMETER_SETS */
	CU_ASSERT_EQUAL(get_props(TPM_PT_AUDIT_COUNTER_1 + 1, 10, tags, values, &more), 0);
	CU_ASSERT_EQUAL(more, 0);
	harness_close(&h);
}

/* TPM_PT_ML_PARAMETER_SETS (v1.85): a list from its own number has it in either setting; one
 * from below it only with PQTPM_CAPS_V185. */
static void check_v185_property(enum pqtpm_capabilities caps)
{
	uint32_t tags[128], values[128], n, found = 0;
	uint8_t more;

	harness_open_caps(&h, NULL, caps);
	n = get_props(TPM_PT_FAMILY_INDICATOR, 127, tags, values, &more);
	CU_ASSERT_EQUAL(more, 0);
	CU_ASSERT_EQUAL(n, caps == PQTPM_CAPS_V185 ? 46 + 1 + 21 : 46 + 21);
	for (uint32_t i = 0; i < n; i++)
		found += tags[i] == TPM_PT_ML_PARAMETER_SETS;
	CU_ASSERT_EQUAL(found, caps == PQTPM_CAPS_V185);
	n = get_props(TPM_PT_MAX_CAP_BUFFER, 2, tags, values, &more);
	CU_ASSERT_EQUAL_FATAL(n, 2);
	CU_ASSERT_EQUAL(tags[1],
			caps == PQTPM_CAPS_V185 ? TPM_PT_ML_PARAMETER_SETS : TPM_PT_PERMANENT);
	CU_ASSERT_EQUAL(get_props(TPM_PT_ML_PARAMETER_SETS, 1, tags, values, &more), 1);
	CU_ASSERT_EQUAL(tags[0], TPM_PT_ML_PARAMETER_SETS);
	CU_ASSERT_EQUAL(values[0], 0x7F);
	harness_close(&h);
}

static void test_v185_property(void)
{
	check_v185_property(PQTPM_CAPS_RELEASED);
	check_v185_property(PQTPM_CAPS_V185);
}

/* ---- PCR_PROPERTIES ---- */
static void test_pcr_properties(void)
{
	struct rd r;
	uint32_t n, maps[0x20] = { 0 };
	uint8_t more;

	harness_open(&h);
	CU_ASSERT_EQUAL_FATAL(getcap(TPM_CAP_PCR_PROPERTIES, 0, 100, &r, &more), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(more, 0);
	CU_ASSERT_EQUAL(rd_u32(&r, &n), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(n, 15);
	for (uint32_t i = 0; i < n; i++) {
		uint32_t tag = 0;
		uint8_t size = 0, sel[3] = { 0 };

		CU_ASSERT_EQUAL(rd_u32(&r, &tag), TPM_RC_SUCCESS);
		CU_ASSERT_EQUAL(rd_u8(&r, &size), TPM_RC_SUCCESS);
		CU_ASSERT_EQUAL(size, 3);
		CU_ASSERT_EQUAL(rd_bytes(&r, sel, 3), TPM_RC_SUCCESS);
		CU_ASSERT_FATAL(tag < 0x20);
		maps[tag] = (uint32_t)sel[0] | (uint32_t)sel[1] << 8 | (uint32_t)sel[2] << 16;
	}
	CU_ASSERT_EQUAL(rd_left(&r), 0);
	CU_ASSERT_EQUAL(maps[TPM_PT_PCR_SAVE], 0x00FFFF);
	CU_ASSERT_EQUAL(maps[TPM_PT_PCR_EXTEND_L0], 0x81FFFF);
	CU_ASSERT_EQUAL(maps[TPM_PT_PCR_EXTEND_L2], 0xFFFFFF);
	CU_ASSERT_EQUAL(maps[TPM_PT_PCR_RESET_L0], 0x810000);
	CU_ASSERT_EQUAL(maps[TPM_PT_PCR_RESET_L2], 0xF10000);
	CU_ASSERT_EQUAL(maps[TPM_PT_PCR_RESET_L4], 0x7E0000);
	CU_ASSERT_EQUAL(maps[TPM_PT_PCR_DRTM_RESET], 0x7E0000);
	CU_ASSERT_EQUAL(maps[TPM_PT_PCR_NO_INCREMENT], 0x700000);
	CU_ASSERT_EQUAL(maps[TPM_PT_PCR_POLICY], 0x700000);
	CU_ASSERT_EQUAL(maps[TPM_PT_PCR_AUTH], 0x700000);

	CU_ASSERT_EQUAL_FATAL(getcap(TPM_CAP_PCR_PROPERTIES, TPM_PT_PCR_RESET_L4, 1, &r, &more),
			      TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(rd_u32(&r, &n), TPM_RC_SUCCESS);
	CU_ASSERT(n == 1 && more == 1);
	harness_close(&h);
}

/* ---- ECC_CURVES, AUTH_POLICIES, ACT ---- */
static void test_small_lists(void)
{
	struct hierarchy *owner;
	struct rd r;
	uint32_t n, handle;
	uint16_t curve, alg;
	uint8_t more, digest[32];

	harness_open(&h);
	CU_ASSERT_EQUAL_FATAL(getcap(TPM_CAP_ECC_CURVES, 0, 10, &r, &more), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(rd_u32(&r, &n), TPM_RC_SUCCESS);
	/* P-521 in both wolfSSL flavours; no BN or SM2 curve in wolfSSL 5.5.4 */
	CU_ASSERT_EQUAL(n, 3);
	CU_ASSERT_EQUAL(rd_u16(&r, &curve), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(curve, TPM_ECC_NIST_P256);
	CU_ASSERT_EQUAL(rd_u16(&r, &curve), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(curve, TPM_ECC_NIST_P384);
	CU_ASSERT_EQUAL(rd_u16(&r, &curve), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(curve, TPM_ECC_NIST_P521);
	CU_ASSERT_EQUAL(rd_left(&r), 0);
	CU_ASSERT_EQUAL_FATAL(getcap(TPM_CAP_ECC_CURVES, 0, 1, &r, &more), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(more, 1);
	CU_ASSERT_EQUAL_FATAL(getcap(TPM_CAP_ECC_CURVES, TPM_ECC_NIST_P384, 5, &r, &more),
			      TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(rd_u32(&r, &n), TPM_RC_SUCCESS);
	CU_ASSERT(n == 2 && more == 0);
	CU_ASSERT_EQUAL_FATAL(getcap(TPM_CAP_ECC_CURVES, TPM_ECC_BN_P256, 5, &r, &more),
			      TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(rd_u32(&r, &n), TPM_RC_SUCCESS);
	CU_ASSERT(n == 0 && more == 0);

	/* no policies set: empty; then the owner's */
	CU_ASSERT_EQUAL_FATAL(getcap(TPM_CAP_AUTH_POLICIES, TPM_RH_OWNER, 10, &r, &more),
			      TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(rd_u32(&r, &n), TPM_RC_SUCCESS);
	CU_ASSERT(n == 0 && more == 0);
	owner = &h.e->ps.hier[HIER_OWNER];
	owner->policy_alg = TPM_ALG_SHA256;
	owner->policy.size = 32;
	memset(owner->policy.b, 0xA5, 32);
	CU_ASSERT_EQUAL_FATAL(getcap(TPM_CAP_AUTH_POLICIES, TPM_HR_PERMANENT, 10, &r, &more),
			      TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(rd_u32(&r, &n), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(n, 1);
	CU_ASSERT_EQUAL(rd_u32(&r, &handle), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(handle, TPM_RH_OWNER);
	CU_ASSERT_EQUAL(rd_u16(&r, &alg), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(alg, TPM_ALG_SHA256);
	CU_ASSERT_EQUAL(rd_bytes(&r, digest, 32), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(digest[31], 0xA5);
	CU_ASSERT_EQUAL(rd_left(&r), 0);
	CU_ASSERT_EQUAL(getcap(TPM_CAP_AUTH_POLICIES, 0, 10, &r, &more), RC_P2(TPM_RC_VALUE));

	CU_ASSERT_EQUAL_FATAL(getcap(TPM_CAP_ACT, 0x40000110, 10, &r, &more), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(rd_u32(&r, &n), TPM_RC_SUCCESS);
	CU_ASSERT(n == 0 && more == 0);
	CU_ASSERT_EQUAL(getcap(TPM_CAP_ACT, 0, 10, &r, &more), RC_P2(TPM_RC_VALUE));
	harness_close(&h);
}

/* ---- TestParms ---- */
static TPM_RC test_parms_rsa(uint16_t bits, uint16_t scheme, uint16_t hash)
{
	cmd_begin(&b, TPM_CC_TestParms);
	wr_u16(&b.params, TPM_ALG_RSA);
	wr_u16(&b.params, TPM_ALG_NULL);
	wr_u16(&b.params, scheme);
	if (scheme != TPM_ALG_NULL && scheme != TPM_ALG_RSAES)
		wr_u16(&b.params, hash);
	wr_u16(&b.params, bits);
	wr_u32(&b.params, 0);
	return harness_run(&h, &b, NULL, NULL);
}

static TPM_RC test_parms_ecc(uint16_t curve, uint16_t scheme, uint16_t kdf)
{
	cmd_begin(&b, TPM_CC_TestParms);
	wr_u16(&b.params, TPM_ALG_ECC);
	wr_u16(&b.params, TPM_ALG_AES);
	wr_u16(&b.params, 128);
	wr_u16(&b.params, TPM_ALG_CFB);
	wr_u16(&b.params, scheme);
	wr_u16(&b.params, TPM_ALG_SHA256);
	wr_u16(&b.params, curve);
	wr_u16(&b.params, kdf);
	if (kdf != TPM_ALG_NULL)
		wr_u16(&b.params, TPM_ALG_SHA256);
	return harness_run(&h, &b, NULL, NULL);
}

static TPM_RC test_parms_sym(uint16_t alg, uint16_t bits, uint16_t mode)
{
	cmd_begin(&b, TPM_CC_TestParms);
	wr_u16(&b.params, TPM_ALG_SYMCIPHER);
	wr_u16(&b.params, alg);
	wr_u16(&b.params, bits);
	wr_u16(&b.params, mode);
	return harness_run(&h, &b, NULL, NULL);
}

static void test_testparms(void)
{
	harness_open(&h);
	CU_ASSERT_EQUAL(test_parms_rsa(2048, TPM_ALG_NULL, 0), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(test_parms_rsa(3072, TPM_ALG_RSASSA, TPM_ALG_SHA256), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(test_parms_rsa(2048, TPM_ALG_RSAES, 0), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(test_parms_rsa(1024, TPM_ALG_NULL, 0), RC_P1(TPM_RC_KEY_SIZE));
	CU_ASSERT_EQUAL(test_parms_rsa(4096, TPM_ALG_NULL, 0), RC_P1(TPM_RC_KEY_SIZE));
	CU_ASSERT_EQUAL(test_parms_rsa(1000, TPM_ALG_NULL, 0), RC_P1(TPM_RC_VALUE));
	CU_ASSERT_EQUAL(test_parms_rsa(2048, TPM_ALG_ECDSA, TPM_ALG_SHA256), RC_P1(TPM_RC_VALUE));
	CU_ASSERT_EQUAL(test_parms_rsa(2048, TPM_ALG_OAEP, TPM_ALG_SM3_256), RC_P1(TPM_RC_HASH));

	CU_ASSERT_EQUAL(test_parms_ecc(TPM_ECC_NIST_P256, TPM_ALG_ECDSA, TPM_ALG_NULL),
			TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(test_parms_ecc(TPM_ECC_NIST_P384, TPM_ALG_ECDH, TPM_ALG_KDF1_SP800_56A),
			TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(test_parms_ecc(TPM_ECC_NIST_P521, TPM_ALG_ECDSA, TPM_ALG_NULL),
			TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(test_parms_ecc(TPM_ECC_BN_P256, TPM_ALG_ECDSA, TPM_ALG_NULL),
			RC_P1(TPM_RC_CURVE));
	CU_ASSERT_EQUAL(test_parms_ecc(TPM_ECC_SM2_P256, TPM_ALG_ECDSA, TPM_ALG_NULL),
			RC_P1(TPM_RC_CURVE));
	CU_ASSERT_EQUAL(test_parms_ecc(TPM_ECC_NIST_P256, TPM_ALG_ECSCHNORR, TPM_ALG_NULL),
			TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(test_parms_ecc(TPM_ECC_NIST_P256, TPM_ALG_SM2, TPM_ALG_NULL),
			RC_P1(TPM_RC_SCHEME));
	/* every TPMI_ALG_KDF: MGF1, KDF1_SP800_56A, KDF2, KDF1_SP800_108; not a hash */
	CU_ASSERT_EQUAL(test_parms_ecc(TPM_ECC_NIST_P256, TPM_ALG_ECDSA, TPM_ALG_KDF2),
			TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(test_parms_ecc(TPM_ECC_NIST_P256, TPM_ALG_ECDSA, TPM_ALG_MGF1),
			TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(test_parms_ecc(TPM_ECC_NIST_P256, TPM_ALG_ECDSA, TPM_ALG_SHA256),
			RC_P1(TPM_RC_KDF));

	CU_ASSERT_EQUAL(test_parms_sym(TPM_ALG_AES, 256, TPM_ALG_CFB), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(test_parms_sym(TPM_ALG_AES, 100, TPM_ALG_CFB), RC_P1(TPM_RC_VALUE));
	CU_ASSERT_EQUAL(test_parms_sym(TPM_ALG_AES, 128, TPM_ALG_SHA256), RC_P1(TPM_RC_MODE));
	/* Camellia and TDES: both wolfSSL flavours have them */
	CU_ASSERT_EQUAL(test_parms_sym(TPM_ALG_CAMELLIA, 128, TPM_ALG_CFB), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(test_parms_sym(TPM_ALG_CAMELLIA, 256, TPM_ALG_CTR), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(test_parms_sym(TPM_ALG_CAMELLIA, 64, TPM_ALG_CFB), RC_P1(TPM_RC_VALUE));
	CU_ASSERT_EQUAL(test_parms_sym(TPM_ALG_TDES, 128, TPM_ALG_CFB), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(test_parms_sym(TPM_ALG_TDES, 192, TPM_ALG_CBC), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(test_parms_sym(TPM_ALG_TDES, 256, TPM_ALG_CFB), RC_P1(TPM_RC_VALUE));
	CU_ASSERT_EQUAL(test_parms_sym(TPM_ALG_SM4, 128, TPM_ALG_CFB), RC_P1(TPM_RC_SYMMETRIC));
	CU_ASSERT_EQUAL(test_parms_sym(TPM_ALG_NULL, 128, TPM_ALG_CFB), RC_P1(TPM_RC_SYMMETRIC));

	cmd_begin(&b, TPM_CC_TestParms);
	wr_u16(&b.params, TPM_ALG_KEYEDHASH);
	wr_u16(&b.params, TPM_ALG_HMAC);
	wr_u16(&b.params, TPM_ALG_SHA384);
	CU_ASSERT_EQUAL(harness_run(&h, &b, NULL, NULL), TPM_RC_SUCCESS);
	cmd_begin(&b, TPM_CC_TestParms);
	wr_u16(&b.params, TPM_ALG_KEYEDHASH);
	wr_u16(&b.params, TPM_ALG_RSASSA);
	wr_u16(&b.params, TPM_ALG_SHA384);
	CU_ASSERT_EQUAL(harness_run(&h, &b, NULL, NULL), RC_P1(TPM_RC_VALUE));

	/* a post-quantum type (more in test_pq_cap.c), and not a type at all */
	cmd_begin(&b, TPM_CC_TestParms);
	wr_u16(&b.params, TPM_ALG_MLDSA);
	wr_u16(&b.params, TPM_MLDSA_65);
	wr_u8(&b.params, 0);
	CU_ASSERT_EQUAL(harness_run(&h, &b, NULL, NULL), TPM_RC_SUCCESS);
	cmd_begin(&b, TPM_CC_TestParms);
	wr_u16(&b.params, TPM_ALG_SHA256);
	CU_ASSERT_EQUAL(harness_run(&h, &b, NULL, NULL), RC_P1(TPM_RC_TYPE));

	/* cut short, and too long */
	cmd_begin(&b, TPM_CC_TestParms);
	wr_u16(&b.params, TPM_ALG_RSA);
	wr_u16(&b.params, TPM_ALG_NULL);
	CU_ASSERT_EQUAL(harness_run(&h, &b, NULL, NULL), RC_P1(TPM_RC_INSUFFICIENT));
	cmd_begin(&b, TPM_CC_TestParms);
	wr_u16(&b.params, TPM_ALG_SYMCIPHER);
	wr_u16(&b.params, TPM_ALG_AES);
	wr_u16(&b.params, 128);
	wr_u16(&b.params, TPM_ALG_CFB);
	wr_u8(&b.params, 0);
	CU_ASSERT_EQUAL(harness_run(&h, &b, NULL, NULL), TPM_RC_SIZE);
	harness_close(&h);
}

int main(void)
{
	static const struct unit_test tests[] = {
		{ "bad capability", test_bad_capability },
		{ "algorithms", test_algs },
		{ "v1.85 algorithms, released and v1.85 settings", test_v185_algs },
		{ "handles", test_handles },
		{ "commands", test_commands },
		{ "pcrs", test_pcrs },
		{ "tpm properties", test_tpm_properties },
		{ "TPM_PT_ML_PARAMETER_SETS, released and v1.85 settings", test_v185_property },
		{ "pcr properties", test_pcr_properties },
		{ "curves, policies, act", test_small_lists },
		{ "TestParms", test_testparms },
	};

	return UNIT_RUN("capability", tests, NULL, NULL);
}
