/* PCR selections in tpm2-tools' form: BANK:N,N,...[+BANK:N,...] */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "attest_int.h"

static int parse_bank(const char *s, size_t len, struct pqtpm_tss_pcr_select *out)
{
	char name[16], list[128], *save = NULL, *tok;
	const char *colon = memchr(s, ':', len);

	if (!colon || (size_t)(colon - s) >= sizeof(name) || len - (size_t)(colon - s) >= sizeof(list))
		return -EINVAL;
	memcpy(name, s, (size_t)(colon - s));
	name[colon - s] = 0;
	memcpy(list, colon + 1, len - (size_t)(colon - s) - 1);
	list[len - (size_t)(colon - s) - 1] = 0;
	out->hash = hash_by_name(name);
	out->pcrs = 0;
	if (out->hash == TPM_ALG_NULL || list[0] == 0 || list[strlen(list) - 1] == ',')
		return -EINVAL;
	for (tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *end;
		long v = strtol(tok, &end, 10);

		if (*end || end == tok || v < 0 || v > 23 || tok[0] == '+' || tok[0] == '-')
			return -EINVAL;
		out->pcrs |= 1u << v;
	}
	return 0;
}

int pqtpm_attest_pcrs_parse(const char *text, struct pqtpm_tss_pcr_select *sel, size_t cap,
			    size_t *n)
{
	const char *p = text;

	*n = 0;
	for (;;) {
		const char *plus = strchr(p, '+');
		size_t len = plus ? (size_t)(plus - p) : strlen(p);

		if (*n == cap || parse_bank(p, len, &sel[*n]))
			return -EINVAL;
		for (size_t i = 0; i < *n; i++)
			if (sel[i].hash == sel[*n].hash)
				return -EINVAL;
		++*n;
		if (!plus)
			return 0;
		p = plus + 1;
	}
}
