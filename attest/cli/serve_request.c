/* pqtpm-attest serve: what GET /v1/challenge and POST /v1/verify answer, apart from HTTP. */
#include <string.h>
#include <time.h>

#include "cli.h"
#include "serve.h"

json_t *serve_error_json(const char *text)
{
	return json_pack("{s:s}", "error", text);
}

static int rfc3339(int64_t t, char *out, size_t cap)
{
	time_t tt = (time_t)t;
	struct tm tm;

	return gmtime_r(&tt, &tm) && strftime(out, cap, "%Y-%m-%dT%H:%M:%SZ", &tm) ? 0 : -1;
}

json_t *serve_challenge_json(const uint8_t key[SERVE_KEY_LEN], int64_t now, unsigned *status)
{
	uint8_t nonce[CHALLENGE_LEN];
	char expires_at[32], *hex;
	int64_t expires;
	json_t *doc;

	if (serve_challenge_make(key, now, nonce, &expires) ||
	    rfc3339(expires, expires_at, sizeof(expires_at))) {
		*status = 500;
		return serve_error_json("no challenge could be made");
	}
	hex = pqtpm_attest_hex(nonce, sizeof(nonce));
	doc = hex ? json_pack("{s:s, s:s}", "nonce", hex, "expires_at", expires_at) : NULL;
	free(hex);
	*status = 200;
	return doc;
}

/* the result with one more failure, invalid */
static int add_failure(json_t *result, const char *check, const char *detail)
{
	json_t *failures = json_object_get(result, "failures");

	return !json_is_array(failures) ||
		       json_array_append_new(failures, json_pack("{s:s, s:s}", "check", check,
								  "detail", detail)) ||
		       json_object_set_new(result, "valid", json_false())
		       ? -1
		       : 0;
}

/* {"evidence": {...}, "ak_public": B64URL (TPMT_PUBLIC), "policy": {...}?}: the result
 * document (200, valid or not); the nonce the evidence answers must be a live challenge of
 * this key. 400 with {"error": TEXT} for a body that is not such a request. */
json_t *serve_verify_json(const uint8_t key[SERVE_KEY_LEN], const char *body, size_t len,
			  int64_t now, unsigned *status)
{
	struct pqtpm_attest_verify_opts o = { .now = now };
	uint8_t ak[PQTPM_TSS_MAX_PUBLIC], nonce[PQTPM_ATTEST_MAX_NONCE];
	const char *ak_text, *nonce_text, *why;
	json_t *req, *ev, *policy, *result = NULL;
	json_error_t err;
	size_t ak_len, nonce_len = 0;
	char text[200];

	*status = 400;
	req = json_loadb(body, len, JSON_REJECT_DUPLICATES, &err);
	if (!req) {
		snprintf(text, sizeof(text), "the body is no JSON: line %d: %s", err.line, err.text);
		return serve_error_json(text);
	}
	ev = json_object_get(req, "evidence");
	policy = json_object_get(req, "policy");
	ak_text = json_string_value(json_object_get(req, "ak_public"));
	if (!json_is_object(req) || !json_is_object(ev)) {
		json_decref(req);
		return serve_error_json("the body is no object with an \"evidence\" object");
	}
	if (!ak_text || pqtpm_attest_unb64url(ak_text, ak, sizeof(ak), &ak_len)) {
		json_decref(req);
		return serve_error_json("\"ak_public\" is no base64url TPMT_PUBLIC");
	}
	if (policy && !json_is_object(policy)) {
		json_decref(req);
		return serve_error_json("\"policy\" is not an object");
	}
	/* the verifier compares the quote with the evidence's nonce; that nonce must be ours */
	nonce_text = json_string_value(json_object_get(ev, "nonce"));
	if (!nonce_text || pqtpm_attest_unhex(nonce_text, nonce, sizeof(nonce), &nonce_len))
		nonce_len = 0;
	why = serve_challenge_check(key, nonce, nonce_len, now);
	o.trusted_ak = ak;
	o.trusted_ak_len = ak_len;
	o.nonce = nonce;
	o.nonce_len = nonce_len;
	o.policy = policy;
	if (pqtpm_attest_verify(ev, &o, &result) < 0 || (why && add_failure(result, "nonce", why))) {
		json_decref(result);
		result = NULL;
	}
	json_decref(req);
	*status = 200;
	return result;
}
