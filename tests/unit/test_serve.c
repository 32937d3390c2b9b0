/* pqtpm-attest serve apart from HTTP (attest/cli/serve_challenge.c, serve_request.c): the
 * stateless challenge (made and checked under one key; another key, any changed byte, a wrong
 * size, an expired one: refused), the key file (made 0600 with 32 bytes and read back; one
 * others can read, of another size, or a directory: refused), and the answers to malformed
 * POST /v1/verify bodies (400 with a JSON error) and to evidence that is no answer to a
 * challenge (200, invalid, format and nonce). */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <CUnit/Basic.h>
#include <pqtpm/attest.h>

#include "serve.h"
#include "harness.h"
#include "unit_main.h"

#define NOW 1800000000

static const uint8_t key[SERVE_KEY_LEN] = { 0x4B, 0x65, 0x79 };
static const uint8_t other_key[SERVE_KEY_LEN] = { 0x4F };

static void test_challenge(void)
{
	uint8_t n[CHALLENGE_LEN], m[CHALLENGE_LEN];
	int64_t expires;

	CU_ASSERT_EQUAL_FATAL(serve_challenge_make(key, NOW, n, &expires), 0);
	CU_ASSERT_EQUAL(expires, NOW + CHALLENGE_TTL);
	CU_ASSERT_PTR_NULL(serve_challenge_check(key, n, sizeof(n), NOW));
	CU_ASSERT_PTR_NULL(serve_challenge_check(key, n, sizeof(n), expires - 1));
	CU_ASSERT_PTR_NOT_NULL(serve_challenge_check(key, n, sizeof(n), expires));
	CU_ASSERT_PTR_NOT_NULL(strstr(serve_challenge_check(key, n, sizeof(n), expires + 1),
				      "expired"));
	CU_ASSERT_PTR_NOT_NULL(serve_challenge_check(other_key, n, sizeof(n), NOW));
	CU_ASSERT_PTR_NOT_NULL(serve_challenge_check(key, n, sizeof(n) - 1, NOW));
	CU_ASSERT_PTR_NOT_NULL(serve_challenge_check(key, n, 0, NOW));
	for (size_t i = 0; i < sizeof(n); i++) {
		memcpy(m, n, sizeof(m));
		m[i] ^= 0x01;
		CU_ASSERT_PTR_NOT_NULL(serve_challenge_check(key, m, sizeof(m), NOW));
	}
	CU_ASSERT_EQUAL_FATAL(serve_challenge_make(key, NOW, m, &expires), 0);
	CU_ASSERT(memcmp(m, n, CHALLENGE_RANDOM) != 0);
}

static void test_key_file(void)
{
	char dir[64], path[96];
	uint8_t k1[SERVE_KEY_LEN], k2[SERVE_KEY_LEN];
	struct stat st;
	int fd;

	snprintf(dir, sizeof(dir), "/tmp/pqtpm-serve-key.%d", (int)getpid());
	harness_rm_tree(dir);
	CU_ASSERT_EQUAL_FATAL(mkdir(dir, 0700), 0);
	snprintf(path, sizeof(path), "%s/key", dir);
	CU_ASSERT_EQUAL(serve_key_file(path, k1), 0);
	CU_ASSERT_EQUAL(stat(path, &st), 0);
	CU_ASSERT_EQUAL(st.st_mode & 0777, 0600);
	CU_ASSERT_EQUAL(st.st_size, SERVE_KEY_LEN);
	CU_ASSERT_EQUAL(serve_key_file(path, k2), 0);
	CU_ASSERT(memcmp(k1, k2, sizeof(k1)) == 0);
	CU_ASSERT_EQUAL(chmod(path, 0640), 0);
	CU_ASSERT_NOT_EQUAL(serve_key_file(path, k2), 0);
	CU_ASSERT_EQUAL(chmod(path, 0600), 0);
	fd = open(path, O_WRONLY | O_APPEND);
	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT_EQUAL(write(fd, "x", 1), 1);
	close(fd);
	CU_ASSERT_NOT_EQUAL(serve_key_file(path, k2), 0);
	CU_ASSERT_NOT_EQUAL(serve_key_file(dir, k2), 0);
	snprintf(path, sizeof(path), "%s/none/key", dir);
	CU_ASSERT_NOT_EQUAL(serve_key_file(path, k2), 0);
	harness_rm_tree(dir);
}

/* POST /v1/verify with body: the status, and the document has field */
static void expect_answer(const char *body, unsigned want, const char *field)
{
	unsigned status = 0;
	json_t *doc = serve_verify_json(key, body, strlen(body), NOW, &status);

	CU_ASSERT_PTR_NOT_NULL_FATAL(doc);
	CU_ASSERT_EQUAL(status, want);
	CU_ASSERT_PTR_NOT_NULL(json_object_get(doc, field));
	if (status != want || !json_object_get(doc, field)) {
		char *got = json_dumps(doc, 0);

		fprintf(stderr, "\n  %s: wanted %u with %s, got %u %s\n", body, want, field, status,
			got ? got : "?");
		free(got);
	}
	json_decref(doc);
}

static void test_bad_requests(void)
{
	expect_answer("", 400, "error");
	expect_answer("{\"evidence\": ", 400, "error");
	expect_answer("[1, 2]", 400, "error");
	expect_answer("{}", 400, "error");
	expect_answer("{\"evidence\": 1, \"ak_public\": \"AAAA\"}", 400, "error");
	expect_answer("{\"evidence\": {}}", 400, "error");
	expect_answer("{\"evidence\": {}, \"ak_public\": \"!!\"}", 400, "error");
	expect_answer("{\"evidence\": {}, \"ak_public\": 5}", 400, "error");
	expect_answer("{\"evidence\": {}, \"ak_public\": \"AAAA\", \"policy\": []}", 400, "error");
	expect_answer("{\"evidence\": {}, \"evidence\": {}, \"ak_public\": \"AAAA\"}", 400, "error");
}

static void test_no_challenge(void)
{
	const char *body = "{\"evidence\": {\"nonce\": \"0011\"}, \"ak_public\": \"AAAA\"}";
	unsigned status = 0;
	json_t *r = serve_verify_json(key, body, strlen(body), NOW, &status), *f;
	bool format = false, nonce = false;
	size_t i;

	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	CU_ASSERT_EQUAL(status, 200);
	CU_ASSERT(json_is_false(json_object_get(r, "valid")));
	json_array_foreach(json_object_get(r, "failures"), i, f) {
		const char *check = json_string_value(json_object_get(f, "check"));

		format |= check && strcmp(check, "format") == 0;
		nonce |= check && strcmp(check, "nonce") == 0;
	}
	CU_ASSERT(format && nonce);
	json_decref(r);
}

static void test_challenge_json(void)
{
	uint8_t n[PQTPM_ATTEST_MAX_NONCE];
	unsigned status = 0;
	json_t *doc = serve_challenge_json(key, NOW, &status);
	const char *hex = json_string_value(json_object_get(doc, "nonce"));
	size_t len = 0;

	CU_ASSERT_EQUAL(status, 200);
	CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(doc, "expires_at")),
			       "2027-01-15T08:05:00Z");
	CU_ASSERT_FATAL(hex && pqtpm_attest_unhex(hex, n, sizeof(n), &len) == 0);
	CU_ASSERT_EQUAL(len, CHALLENGE_LEN);
	CU_ASSERT_PTR_NULL(serve_challenge_check(key, n, len, NOW));
	json_decref(doc);
}

int main(void)
{
	static const struct unit_test tests[] = {
		{ "challenge made and checked", test_challenge },
		{ "the key file", test_key_file },
		{ "GET /v1/challenge", test_challenge_json },
		{ "malformed POST /v1/verify bodies: 400", test_bad_requests },
		{ "evidence without a challenge: invalid", test_no_challenge },
	};

	return UNIT_RUN("serve", tests, NULL, NULL);
}
