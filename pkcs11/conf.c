/* The module's configuration: a file named by $PQTPM_PKCS11_CONF, else an embedded engine on
 * $PQTPM_STATE_DIR, else on $XDG_DATA_HOME/pqtpm (~/.local/share/pqtpm). */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "p11.h"

static int copy(char *dst, size_t cap, const char *src)
{
	size_t n = strlen(src);

	if (n == 0 || n >= cap)
		return -EINVAL;
	memcpy(dst, src, n + 1);
	return 0;
}

/* The default state directory: $XDG_DATA_HOME/pqtpm or $HOME/.local/share/pqtpm. */
static int default_dir(char *dst, size_t cap)
{
	const char *xdg = getenv("XDG_DATA_HOME"), *home = getenv("HOME");
	int n;

	if (xdg && *xdg)
		n = snprintf(dst, cap, "%s/pqtpm", xdg);
	else if (home && *home)
		n = snprintf(dst, cap, "%s/.local/share/pqtpm", home);
	else
		return -ENOENT;
	return n > 0 && (size_t)n < cap ? 0 : -ENAMETOOLONG;
}

static int on_dir(struct p11_conf *c, const char *dir)
{
	int n = snprintf(c->tpm, sizeof(c->tpm), "embedded:%s", dir);

	if (n <= 0 || (size_t)n >= sizeof(c->tpm))
		return -ENAMETOOLONG;
	return copy(c->store, sizeof(c->store), dir);
}

static int level(const char *v)
{
	static const char *const names[] = { "error", "warn", "info", "debug" };
	size_t i;

	if (strcmp(v, "none") == 0)
		return P11_LOG_NONE;
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strcmp(v, names[i]) == 0)
			return (int)i;
	return -2;
}

static char *trim(char *s)
{
	char *e;

	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = '\0';
	return s;
}

int p11_conf_line(struct p11_conf *c, const char *line)
{
	char buf[P11_PATH_MAX + 64], *key, *val, *eq;
	size_t n = strlen(line);

	if (n >= sizeof(buf))
		return -EINVAL;
	memcpy(buf, line, n + 1);
	key = trim(buf);
	if (*key == '\0' || *key == '#')
		return 0;
	eq = strchr(key, '=');
	if (!eq)
		return -EINVAL;
	*eq = '\0';
	key = trim(key);
	val = trim(eq + 1);
	if (strcmp(key, "tpm") == 0) {
		if (strncmp(val, "embedded:", 9) == 0 && c->store[0] == '\0')
			copy(c->store, sizeof(c->store), val + 9);
		return copy(c->tpm, sizeof(c->tpm), val);
	}
	if (strcmp(key, "store") == 0)
		return copy(c->store, sizeof(c->store), val);
	if (strcmp(key, "log_level") == 0) {
		int l = level(val);

		if (l < P11_LOG_NONE)
			return -EINVAL;
		c->log_level = l;
		return 0;
	}
	if (strcmp(key, "slots") == 0) {
		char *end;
		unsigned long v = strtoul(val, &end, 10);

		if (*val == '\0' || *end != '\0' || v < 1 || v > P11_MAX_TOKENS)
			return -EINVAL;
		c->slots = (unsigned)v;
		return 0;
	}
	if (strcmp(key, "connections") == 0) {
		char *end;
		unsigned long v = strtoul(val, &end, 10);

		if (*val == '\0' || *end != '\0' || v < 1 || v > P11_MAX_CONNS)
			return -EINVAL;
		c->connections = (unsigned)v;
		return 0;
	}
	if (strcmp(key, "owner_auth") == 0) {
		if (strlen(val) > P11_PIN_MAX)
			return -EINVAL;
		memcpy(c->owner_auth, val, strlen(val) + 1);
		return 0;
	}
	return -EINVAL;
}

static CK_RV load_file(struct p11_conf *c, const char *path)
{
	char line[P11_PATH_MAX + 64];
	unsigned lineno = 0;
	FILE *f = fopen(path, "re");

	if (!f) {
		p11_log(P11_LOG_ERROR, "%s: %s", path, strerror(errno));
		return CKR_GENERAL_ERROR;
	}
	while (fgets(line, sizeof(line), f)) {
		lineno++;
		/* a log_level line speaks for the lines after it, even in C_Initialize */
		p11_log_init(c->log_level);
		if (p11_conf_line(c, line) != 0) {
			p11_log(P11_LOG_ERROR, "%s:%u: not understood", path, lineno);
			fclose(f);
			return CKR_GENERAL_ERROR;
		}
	}
	fclose(f);
	return CKR_OK;
}

/* swtpm serves one connection at a time, and so does a TPM device without the kernel's
 * resource manager: a second connection would wait for ever or be refused. */
static void default_connections(struct p11_conf *c)
{
	if (c->connections)
		return;
	c->connections = strncmp(c->tpm, "swtpm", 5) == 0 ||
					 (strncmp(c->tpm, "device", 6) == 0 && c->tpm[6] &&
					  !strstr(c->tpm, "tpmrm"))
				 ? 1
				 : P11_MAX_CONNS;
}

static CK_RV load(struct p11_conf *c)
{
	const char *file = getenv("PQTPM_PKCS11_CONF"), *dir = getenv("PQTPM_STATE_DIR");
	char def[P11_PATH_MAX];

	memset(c, 0, sizeof(*c));
	c->slots = 8;
	c->log_level = P11_LOG_NONE;
	if (file && *file) {
		CK_RV rv;

		rv = load_file(c, file);
		if (rv != CKR_OK)
			return rv;
		if (c->tpm[0] && c->store[0])
			return CKR_OK;
		if (default_dir(def, sizeof(def)) != 0)
			return CKR_GENERAL_ERROR;
		if (!c->tpm[0] && on_dir(c, c->store[0] ? c->store : def) != 0)
			return CKR_GENERAL_ERROR;
		if (!c->store[0] && copy(c->store, sizeof(c->store), def) != 0)
			return CKR_GENERAL_ERROR;
		return CKR_OK;
	}
	if (dir && *dir)
		return on_dir(c, dir) == 0 ? CKR_OK : CKR_GENERAL_ERROR;
	if (default_dir(def, sizeof(def)) != 0 || on_dir(c, def) != 0)
		return CKR_GENERAL_ERROR;
	return CKR_OK;
}

CK_RV p11_conf_load(struct p11_conf *c)
{
	CK_RV rv = load(c);

	if (rv == CKR_OK)
		default_connections(c);
	return rv;
}
