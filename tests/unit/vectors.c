/* Reader of the NIST ACVP vector files (see vectors.h). */
#include "vectors.h"

#include <stdlib.h>
#include <string.h>

#include <CUnit/Basic.h>

void vec_free(struct vec_record *r)
{
	int i;

	for (i = 0; i < r->n; i++) {
		free(r->key[i]);
		free(r->val[i]);
	}
	r->n = 0;
}

int vec_read(FILE *f, struct vec_record *r)
{
	char *line = NULL, *eq, *end;
	size_t cap = 0;
	ssize_t len;

	r->n = 0;
	while ((len = getline(&line, &cap, f)) >= 0) {
		while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
			line[--len] = '\0';
		if (line[0] == '#')
			continue;
		if (len == 0) {
			if (r->n)
				break;
			continue;
		}
		eq = strstr(line, " =");
		if (!eq || r->n == VEC_MAX_FIELDS)
			continue;
		end = eq + 2;
		if (*end == ' ')
			end++;
		r->key[r->n] = strndup(line, (size_t)(eq - line));
		r->val[r->n] = strdup(end);
		r->n++;
	}
	free(line);
	return r->n > 0;
}

const char *vec_field(const struct vec_record *r, const char *key)
{
	int i;

	for (i = 0; i < r->n; i++)
		if (strcmp(r->key[i], key) == 0)
			return r->val[i];
	return NULL;
}

int vec_is(const struct vec_record *r, const char *key, const char *want)
{
	const char *v = vec_field(r, key);

	return v && strcmp(v, want) == 0;
}

uint8_t *vec_bytes(const struct vec_record *r, const char *key, size_t *len)
{
	const char *hex = vec_field(r, key);
	uint8_t *out;
	size_t n;

	CU_ASSERT_PTR_NOT_NULL_FATAL(hex);
	out = malloc(strlen(hex) / 2 + 1);
	CU_ASSERT_PTR_NOT_NULL_FATAL(out);
	n = vec_unhex(hex, out);
	if (len)
		*len = n;
	return out;
}

FILE *vec_open(const char *name)
{
	const char *dir = getenv("PQTPM_VECTORS");
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir ? dir : "tests/vectors", name);
	f = fopen(path, "r");
	if (!f)
		fprintf(stderr, "cannot open %s\n", path);
	return f;
}

size_t vec_unhex(const char *hex, uint8_t *out)
{
	size_t n = strlen(hex) / 2;

	for (size_t i = 0; i < n; i++) {
		unsigned v;

		sscanf(hex + 2 * i, "%2x", &v);
		out[i] = (uint8_t)v;
	}
	return n;
}
