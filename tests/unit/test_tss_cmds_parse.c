/* The response parsers of tss/cmd_*.c on answers no engine gives: a transport that replays
 * canned responses feeds them structures another TPM may return (algorithms and curves this
 * library does not implement: accepted) and broken ones (sizes past the end, lists out of
 * order, more than the caller has room for: PQTPM_TSS_RC_MALFORMED, nothing written past a
 * buffer), and answers asking for the command again (resent, a bounded number of times).
 * Then the swtpm transport against a small TCP server of the test's own: commands
 * and control commands as swtpm takes them, and responses whose size lies. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <CUnit/Basic.h>

#include "../../tss/tss_int.h"
#include "marshal.h"
#include "unit_main.h"

/* ---- a transport that answers from a list ---- */

#define MAX_CANNED 8

struct canned {
	uint8_t b[MAX_CANNED][1024];
	size_t len[MAX_CANNED];
	unsigned n, next;
};

static struct canned canned;
static struct pqtpm_tss *t;

static int canned_transmit(void *ctx, const uint8_t *cmd, size_t len, uint8_t *rsp, size_t cap,
			   size_t *rsp_len)
{
	struct canned *c = ctx;

	if (c->next >= c->n || c->len[c->next] > cap)
		return -EIO;
	memcpy(rsp, c->b[c->next], c->len[c->next]);
	*rsp_len = c->len[c->next++];
	return 0;
}

static void canned_close(void *ctx)
{
	(void)ctx;
}

static const struct tss_transport canned_ops = {
	.transmit = canned_transmit,
	.close = canned_close,
};

static void setup(void)
{
	memset(&canned, 0, sizeof(canned));
	t = calloc(1, sizeof(*t));
	CU_ASSERT_PTR_NOT_NULL_FATAL(t);
	t->ops = &canned_ops;
	t->ctx = &canned;
}

static void teardown(void)
{
	pqtpm_tss_close(t);
}

/* A successful response with these parameters: with an authorization area (one password
 * session's) when sessions, after a response handle when handle is nonzero. */
static void answer(int sessions, TPM_HANDLE handle, const uint8_t *params, size_t plen)
{
	struct wr w;

	wr_init(&w, canned.b[canned.n], sizeof(canned.b[0]));
	wr_u16(&w, sessions ? TPM_ST_SESSIONS : TPM_ST_NO_SESSIONS);
	wr_u32(&w, 0);
	wr_u32(&w, 0);
	if (handle)
		wr_u32(&w, handle);
	if (sessions)
		wr_u32(&w, (uint32_t)plen);
	wr_bytes(&w, params, plen);
	if (sessions) {
		wr_u16(&w, 0);
		wr_u8(&w, TPMA_SESSION_CONTINUESESSION);
		wr_u16(&w, 0);
	}
	wr_patch_u32(&w, 2, (uint32_t)w.off);
	canned.len[canned.n++] = w.off;
}

/* An error response: the header alone. */
static void answer_rc(TPM_RC rc)
{
	struct wr w;

	wr_init(&w, canned.b[canned.n], sizeof(canned.b[0]));
	wr_u16(&w, TPM_ST_NO_SESSIONS);
	wr_u32(&w, 10);
	wr_u32(&w, rc);
	canned.len[canned.n++] = w.off;
}

/* TPM_RC_RETRY, _YIELDED, _TESTING: sent again, at most five times in all. */
static void test_resubmit(void)
{
	static const uint8_t two[] = { 0, 2, 0xAB, 0xCD };
	uint8_t out[2] = { 0 };

	answer_rc(TPM_RC_RETRY);
	answer_rc(TPM_RC_YIELDED);
	answer_rc(TPM_RC_TESTING);
	answer(0, 0, two, sizeof(two));
	CU_ASSERT_EQUAL(pqtpm_tss_get_random(t, out, 2), 0);
	CU_ASSERT_EQUAL(canned.next, 4);
	CU_ASSERT(out[0] == 0xAB && out[1] == 0xCD);

	canned.n = canned.next = 0;
	for (int i = 0; i < 6; i++)
		answer_rc(TPM_RC_RETRY);
	CU_ASSERT_EQUAL(pqtpm_tss_get_random(t, out, 2), TPM_RC_RETRY);
	CU_ASSERT_EQUAL(canned.next, 5);
}

static void test_pcr_event(void)
{
	/* SM3: a bank this library cannot compute but can read */
	uint8_t sm3[4 + 2 + 32] = { 0, 0, 0, 1, 0x00, 0x12 };
	uint8_t unknown[4 + 2 + 32] = { 0, 0, 0, 1, 0x77, 0x77 };
	uint8_t short_digest[4 + 2 + 31] = { 0, 0, 0, 1, 0x00, 0x0B };
	uint8_t many[4] = { 0, 0, 0, 9 };
	struct pqtpm_tss_ha out[2];
	size_t n = 0;

	answer(1, 0, sm3, sizeof(sm3));
	answer(1, 0, unknown, sizeof(unknown));
	answer(1, 0, short_digest, sizeof(short_digest));
	answer(1, 0, many, sizeof(many));
	CU_ASSERT_EQUAL(pqtpm_tss_pcr_event(t, 16, "", (const uint8_t *)"x", 1, out, 2, &n), 0);
	CU_ASSERT_EQUAL(n, 1);
	CU_ASSERT_EQUAL(out[0].hash, TPM_ALG_SM3_256);
	CU_ASSERT_EQUAL(out[0].size, 32);
	for (int i = 0; i < 3; i++)
		CU_ASSERT_EQUAL(pqtpm_tss_pcr_event(t, 16, "", (const uint8_t *)"x", 1, out, 2,
						    &n),
				PQTPM_TSS_RC_MALFORMED);
}

/* TPM2B_NV_PUBLIC (nameAlg SM3, attributes with reserved bits) and a Name of name_len. */
static size_t nv_public(uint8_t *b, uint16_t sub_size, uint16_t name_len)
{
	struct wr w;

	wr_init(&w, b, 256);
	wr_u16(&w, sub_size);
	wr_u32(&w, 0x01400000);
	wr_u16(&w, TPM_ALG_SM3_256);
	wr_u32(&w, 0x00000300 | TPMA_NV_AUTHREAD);
	wr_u16(&w, 0);
	wr_u16(&w, 42);
	if (sub_size > 14) /* a byte more than the structure has */
		wr_u8(&w, 0);
	wr_u16(&w, name_len);
	for (uint16_t i = 0; i < name_len; i++)
		wr_u8(&w, (uint8_t)i);
	return w.off;
}

static void test_nv_read_public(void)
{
	uint8_t good[256], trailing[256], past[256], long_name[256];
	size_t lg = nv_public(good, 14, 34), lt = nv_public(trailing, 15, 34);
	size_t ll = nv_public(long_name, 14, 67);
	struct pqtpm_tss_nv_public p;
	struct pqtpm_tss_name name;

	nv_public(past, 14, 0);
	answer(0, 0, good, lg);
	answer(0, 0, trailing, lt);
	answer(0, 0, past, 2 + 6); /* cut inside the structure */
	answer(0, 0, long_name, ll);
	CU_ASSERT_EQUAL(pqtpm_tss_nv_read_public(t, 0x01400000, &p, &name), 0);
	CU_ASSERT_EQUAL(p.name_alg, TPM_ALG_SM3_256);
	CU_ASSERT_EQUAL(p.data_size, 42);
	CU_ASSERT_EQUAL(name.size, 34);
	for (int i = 0; i < 3; i++)
		CU_ASSERT_EQUAL(pqtpm_tss_nv_read_public(t, 0x01400000, &p, &name),
				PQTPM_TSS_RC_MALFORMED);
}

/* GetCapability(TPM_PT_NV_BUFFER_MAX) answered with v */
static void nv_buffer_max(uint32_t v)
{
	uint8_t b[1 + 4 + 4 + 8];
	struct wr w;

	wr_init(&w, b, sizeof(b));
	wr_u8(&w, 0);
	wr_u32(&w, TPM_CAP_TPM_PROPERTIES);
	wr_u32(&w, 1);
	wr_u32(&w, TPM_PT_NV_BUFFER_MAX);
	wr_u32(&w, v);
	answer(0, 0, b, w.off);
}

static void test_nv_read_short(void)
{
	uint8_t three[2 + 3] = { 0, 3, 1, 2, 3 }, out[8] = { 0 };

	nv_buffer_max(512);
	answer(1, 0, three, sizeof(three));
	CU_ASSERT_EQUAL(pqtpm_tss_nv_read(t, 0x01400000, "", 0x01400000, 0, out, 4),
			PQTPM_TSS_RC_MALFORMED);
	nv_buffer_max(0);
	CU_ASSERT_EQUAL(pqtpm_tss_nv_read(t, 0x01400000, "", 0x01400000, 0, out, 4),
			PQTPM_TSS_RC_MALFORMED);
}

/* One GetCapability(TPM_CAP_HANDLES) answer: moreData, then these handles. */
static void handles(uint8_t more, uint32_t cap, const uint32_t *h, uint32_t n)
{
	uint8_t b[1 + 4 + 4 + 4 * 8];
	struct wr w;

	wr_init(&w, b, sizeof(b));
	wr_u8(&w, more);
	wr_u32(&w, cap);
	wr_u32(&w, n);
	for (uint32_t i = 0; i < n; i++)
		wr_u32(&w, h[i]);
	answer(0, 0, b, w.off);
}

static void test_capability_walk(void)
{
	static const uint32_t first[] = { 0x81000001, 0x81000005 }, second[] = { 0x81000009 };
	static const uint32_t down[] = { 0x81000005, 0x81000001 }, again[] = { 0x81000005 };
	uint8_t data[64];
	size_t len;
	uint32_t n;

	handles(1, TPM_CAP_HANDLES, first, 2);
	handles(0, TPM_CAP_HANDLES, second, 1);
	CU_ASSERT_EQUAL(pqtpm_tss_get_capability_all(t, TPM_CAP_HANDLES, 0x81000000, 0x81FFFFFF,
						     0, data, sizeof(data), &len, &n),
			0);
	CU_ASSERT_EQUAL(n, 3);
	CU_ASSERT_EQUAL(len, 12);
	CU_ASSERT_EQUAL(data[11], 9);

	/* out of order, the same handle again in the next round, another capability */
	canned.n = canned.next = 0;
	handles(0, TPM_CAP_HANDLES, down, 2);
	handles(1, TPM_CAP_HANDLES, again, 1);
	handles(1, TPM_CAP_HANDLES, again, 1);
	handles(0, TPM_CAP_ALGS, second, 1);
	for (int i = 0; i < 3; i++)
		CU_ASSERT_EQUAL(pqtpm_tss_get_capability_all(t, TPM_CAP_HANDLES, 0x81000000,
							     0x81FFFFFF, 0, data, sizeof(data),
							     &len, &n),
				PQTPM_TSS_RC_MALFORMED);

	/* moreData with nothing in the list ends the walk; past the limit is left out */
	canned.n = canned.next = 0;
	handles(1, TPM_CAP_HANDLES, NULL, 0);
	handles(1, TPM_CAP_HANDLES, first, 2);
	CU_ASSERT_EQUAL(pqtpm_tss_get_capability_all(t, TPM_CAP_HANDLES, 0x81000000, 0x81FFFFFF,
						     0, data, sizeof(data), &len, &n),
			0);
	CU_ASSERT_EQUAL(n, 0);
	CU_ASSERT_EQUAL(pqtpm_tss_get_capability_all(t, TPM_CAP_HANDLES, 0x81000000, 0x81000002,
						     0, data, sizeof(data), &len, &n),
			0);
	CU_ASSERT_EQUAL(n, 1);
}

/* TPM2B_ECC_POINT with coordinates of xs and ys bytes */
static size_t point(uint8_t *b, uint16_t xs, uint16_t ys)
{
	struct wr w;

	wr_init(&w, b, 600);
	wr_u16(&w, (uint16_t)(4 + xs + ys));
	wr_u16(&w, xs);
	for (uint16_t i = 0; i < xs; i++)
		wr_u8(&w, 0xAA);
	wr_u16(&w, ys);
	for (uint16_t i = 0; i < ys; i++)
		wr_u8(&w, 0xBB);
	return w.off;
}

static void test_ecc_point(void)
{
	uint8_t bn638[600], big[600];
	size_t lb = point(bn638, 80, 80), lg = point(big, 129, 1);
	struct pqtpm_tss_ecc_point in = { .x_size = 32, .y_size = 32 }, z;

	answer(1, 0, bn638, lb);
	answer(1, 0, big, lg);
	answer(1, 0, bn638, lb - 1);
	CU_ASSERT_EQUAL(pqtpm_tss_ecdh_zgen(t, 0x80000000, "", &in, &z), 0);
	CU_ASSERT_EQUAL(z.x_size, 80);
	CU_ASSERT_EQUAL(z.y[79], 0xBB);
	CU_ASSERT_EQUAL(pqtpm_tss_ecdh_zgen(t, 0x80000000, "", &in, &z), PQTPM_TSS_RC_MALFORMED);
	CU_ASSERT_EQUAL(pqtpm_tss_ecdh_zgen(t, 0x80000000, "", &in, &z), PQTPM_TSS_RC_MALFORMED);
}

static void test_encrypt_decrypt_sizes(void)
{
	uint8_t shorter[2 + 3 + 2 + 16] = { 0, 3, 1, 2, 3, 0, 16 };
	uint8_t iv_short[2 + 4 + 2 + 8] = { 0, 4, 1, 2, 3, 4, 0, 8 };
	uint8_t iv[16] = { 0 }, in[4] = { 0 }, out[4];

	answer(1, 0, shorter, sizeof(shorter));
	answer(1, 0, iv_short, sizeof(iv_short));
	CU_ASSERT_EQUAL(pqtpm_tss_encrypt_decrypt(t, 0x80000000, "", 0, TPM_ALG_CFB, iv, 16, in,
						  4, out),
			PQTPM_TSS_RC_MALFORMED);
	CU_ASSERT_EQUAL(pqtpm_tss_encrypt_decrypt(t, 0x80000000, "", 0, TPM_ALG_CFB, iv, 16, in,
						  4, out),
			PQTPM_TSS_RC_MALFORMED);
}

static void test_duplicate_header(void)
{
	uint8_t params[6] = { 0 };
	static struct pqtpm_tss_duplicate dup;

	answer(1, 0, params, sizeof(params));
	canned.b[0][13] = 0x40; /* parameterSize past the end */
	CU_ASSERT_EQUAL(pqtpm_tss_duplicate(t, 0x80000000, "", TPM_RH_NULL, NULL, 0, 0, 0, &dup),
			PQTPM_TSS_RC_MALFORMED);
}

/* ---- the swtpm transport against a server of the test's own ---- */

enum reply { GOOD, SIZE_SHORT, SIZE_HUGE, CUT };

struct fake_swtpm {
	int srv, ctl;
	unsigned port;
	enum reply reply;
	uint32_t ctl_result;
	uint8_t cmd[64], ctl_cmd[8];
	size_t cmd_len;
};

static int listen_on(unsigned port)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	int fd = socket(AF_INET, SOCK_STREAM, 0), one = 1;

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd < 0)
		return -1;
	if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(fd, (struct sockaddr *)&a, sizeof(a)) || listen(fd, 2)) {
		close(fd);
		return -1;
	}
	return fd;
}

/* A server port P from the kernel with P + 1 free for the control channel (a few tries). */
static int fake_listen(struct fake_swtpm *f)
{
	for (int i = 0; i < 20; i++) {
		struct sockaddr_in a;
		socklen_t al = sizeof(a);

		f->srv = listen_on(0);
		if (f->srv < 0 || getsockname(f->srv, (struct sockaddr *)&a, &al))
			return -1;
		f->port = ntohs(a.sin_port);
		if (f->port < 65534) {
			f->ctl = listen_on(f->port + 1);
			if (f->ctl >= 0)
				return 0;
		}
		close(f->srv);
	}
	return -1;
}

/* One command on the server port (a 12-byte GetRandom), one answer as f->reply says. */
static void *fake_serve(void *arg)
{
	struct fake_swtpm *f = arg;
	uint8_t rsp[16] = { 0x80, 0x01, 0, 0, 0, 14, 0, 0, 0, 0, 0, 2, 0xAB, 0xCD };
	int fd = accept(f->srv, NULL, NULL);

	if (fd < 0)
		return NULL;
	f->cmd_len = 0;
	while (f->cmd_len < 12) {
		ssize_t k = recv(fd, f->cmd + f->cmd_len, 12 - f->cmd_len, 0);

		if (k <= 0)
			break;
		f->cmd_len += (size_t)k;
	}
	if (f->reply == SIZE_SHORT)
		rsp[5] = 9;
	if (f->reply == SIZE_HUGE)
		rsp[4] = 0x7F;
	send(fd, rsp, f->reply == CUT ? 12 : 14, MSG_NOSIGNAL);
	close(fd);
	return NULL;
}

static void *fake_control(void *arg)
{
	struct fake_swtpm *f = arg;
	uint8_t res[4];
	struct wr w;
	int fd = accept(f->ctl, NULL, NULL);
	size_t got = 0;

	if (fd < 0)
		return NULL;
	while (got < sizeof(f->ctl_cmd)) {
		ssize_t k = recv(fd, f->ctl_cmd + got, sizeof(f->ctl_cmd) - got, 0);

		if (k <= 0)
			break;
		got += (size_t)k;
	}
	wr_init(&w, res, sizeof(res));
	wr_u32(&w, f->ctl_result);
	send(fd, res, sizeof(res), MSG_NOSIGNAL);
	close(fd);
	return NULL;
}

/* GetRandom(2) through "swtpm:host=127.0.0.1,port=P" against a server answering as reply. */
static TPM_RC swtpm_get_random(struct fake_swtpm *f, enum reply reply, uint8_t out[2])
{
	struct pqtpm_tss *s = NULL;
	char conf[64];
	pthread_t th;
	TPM_RC rc;

	f->reply = reply;
	CU_ASSERT_EQUAL_FATAL(pthread_create(&th, NULL, fake_serve, f), 0);
	snprintf(conf, sizeof(conf), "swtpm:host=127.0.0.1,port=%u", f->port);
	CU_ASSERT_EQUAL_FATAL(pqtpm_tss_open_tcti(&s, conf), 0);
	rc = pqtpm_tss_get_random(s, out, 2);
	pqtpm_tss_close(s);
	pthread_join(th, NULL);
	return rc;
}

static void test_swtpm_transport(void)
{
	static const uint8_t get_random[12] = { 0x80, 0x01, 0, 0, 0, 12, 0, 0, 0x01, 0x7B, 0, 2 };
	static const uint8_t init[8] = { 0, 0, 0, 2, 0, 0, 0, 0 };
	struct fake_swtpm f = { .ctl_result = 0 };
	struct pqtpm_tss *s = NULL;
	uint8_t out[2] = { 0 };
	char conf[64];
	pthread_t th;

	CU_ASSERT_EQUAL_FATAL(fake_listen(&f), 0);
	CU_ASSERT_EQUAL(swtpm_get_random(&f, GOOD, out), 0);
	CU_ASSERT_EQUAL(f.cmd_len, 12); /* the command as it is, nothing around it */
	CU_ASSERT_EQUAL(memcmp(f.cmd, get_random, 12), 0);
	CU_ASSERT(out[0] == 0xAB && out[1] == 0xCD);
	CU_ASSERT_EQUAL(swtpm_get_random(&f, SIZE_SHORT, out), PQTPM_TSS_RC_IO);
	CU_ASSERT_EQUAL(swtpm_get_random(&f, SIZE_HUGE, out), PQTPM_TSS_RC_IO);
	CU_ASSERT_EQUAL(swtpm_get_random(&f, CUT, out), PQTPM_TSS_RC_IO);

	/* power on: CMD_INIT, no flags, on the control port; a result other than 0 fails */
	snprintf(conf, sizeof(conf), "swtpm:port=%u", f.port);
	f.reply = GOOD;
	CU_ASSERT_EQUAL_FATAL(pthread_create(&th, NULL, fake_serve, &f), 0);
	CU_ASSERT_EQUAL_FATAL(pqtpm_tss_open_tcti(&s, conf), 0);
	for (int i = 0; i < 2; i++) {
		pthread_t ct;

		f.ctl_result = (uint32_t)i * TPM_RC_FAILURE;
		CU_ASSERT_EQUAL_FATAL(pthread_create(&ct, NULL, fake_control, &f), 0);
		CU_ASSERT_EQUAL(pqtpm_tss_power_on(s), i ? -EPROTO : 0);
		pthread_join(ct, NULL);
		CU_ASSERT_EQUAL(memcmp(f.ctl_cmd, init, sizeof(init)), 0);
	}
	CU_ASSERT_EQUAL(pqtpm_tss_get_random(s, out, 2), 0);
	pqtpm_tss_close(s);
	pthread_join(th, NULL);
	close(f.srv);
	close(f.ctl);
	CU_ASSERT_EQUAL(pqtpm_tss_open_tcti(&s, "swtpm:port=0"), -EINVAL);
	CU_ASSERT_EQUAL(pqtpm_tss_open_tcti(&s, "swtpmx:port=1"), -EINVAL);
}

int main(void)
{
	static const struct unit_test tests[] = {
		{ "TPM_RC_RETRY and the like: sent again, bounded", test_resubmit },
		{ "PCR_Event digests: unknown banks, short and too many", test_pcr_event },
		{ "NV_ReadPublic: SM3 accepted, sizes that lie refused", test_nv_read_public },
		{ "NV_Read: fewer bytes than asked, no buffer size", test_nv_read_short },
		{ "GetCapability walk: rounds, order, the limit", test_capability_walk },
		{ "ECC points: BN P-638 accepted, oversized refused", test_ecc_point },
		{ "EncryptDecrypt2: sizes that do not match", test_encrypt_decrypt_sizes },
		{ "Duplicate: a parameterSize past the end", test_duplicate_header },
		{ "swtpm transport", test_swtpm_transport },
	};

	return UNIT_RUN("tss_cmds_parse", tests, setup, teardown);
}
