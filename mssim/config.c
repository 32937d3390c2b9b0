/* pqtpm-server configuration: the conf file and the command line share one key table. */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <netinet/in.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"

#define MSSIM_STR_(x) #x
#define MSSIM_STR(x) MSSIM_STR_(x)

struct key_def {
	const char *key;	/* in the config file */
	const char *flag;	/* on the command line; NULL: file only */
	const char *expected;	/* what a good value looks like, for errors */
	int (*set)(struct mssim_config *c, const char *value);
};

static int set_string(char *dst, size_t cap, const char *value)
{
	size_t n = strlen(value);

	if (n == 0 || n >= cap)
		return -1;
	memcpy(dst, value, n + 1);
	return 0;
}

static int set_state_dir(struct mssim_config *c, const char *value)
{
	return set_string(c->state_dir, sizeof(c->state_dir), value);
}

static int set_bind(struct mssim_config *c, const char *value)
{
	struct in6_addr a6;
	struct in_addr a4;

	if (inet_pton(AF_INET, value, &a4) != 1 && inet_pton(AF_INET6, value, &a6) != 1)
		return -1;
	return set_string(c->bind, sizeof(c->bind), value);
}

static int parse_port(const char *value, unsigned *port)
{
	unsigned long v;
	char *end;

	if (!isdigit((unsigned char)value[0]))
		return -1;
	errno = 0;
	v = strtoul(value, &end, 10);
	if (errno || *end || v < 1 || v > 65535)
		return -1;
	*port = v;
	return 0;
}

static int set_port(struct mssim_config *c, const char *value)
{
	return parse_port(value, &c->port);
}

static int set_platform_port(struct mssim_config *c, const char *value)
{
	return parse_port(value, &c->platform_port);
}

/* A comma-separated list such as "sha1, sha256". */
static int set_pcr_banks(struct mssim_config *c, const char *value)
{
	static const struct { const char *name; unsigned bit; } banks[] = {
		{ "sha1", PQTPM_BANK_SHA1 },
		{ "sha256", PQTPM_BANK_SHA256 },
		{ "sha384", PQTPM_BANK_SHA384 },
		{ "sha512", PQTPM_BANK_SHA512 },
	};
	const char *p = value;
	unsigned set = 0;
	size_t i, n;

	for (;;) {
		while (*p == ' ' || *p == '\t')
			p++;
		n = strcspn(p, ", \t");
		for (i = 0; i < sizeof(banks) / sizeof(banks[0]); i++)
			if (strlen(banks[i].name) == n && strncmp(p, banks[i].name, n) == 0)
				break;
		if (i == sizeof(banks) / sizeof(banks[0]))
			return -1;
		set |= banks[i].bit;
		p += n;
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p == '\0')
			break;
		if (*p != ',')
			return -1;
		p++;
	}
	c->pcr_banks = set;
	return 0;
}

static int set_log_level(struct mssim_config *c, const char *value)
{
	static const char *const names[] = {
		[PQTPM_LOG_ERROR] = "error", [PQTPM_LOG_WARN] = "warn",
		[PQTPM_LOG_INFO] = "info", [PQTPM_LOG_DEBUG] = "debug",
	};
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (strcmp(value, names[i]) == 0) {
			c->log_level = (enum pqtpm_log_level)i;
			return 0;
		}
	}
	return -1;
}

/* "auto" or a count 1-MSSIM_THREADS_MAX. */
static int set_threads(struct mssim_config *c, const char *value)
{
	unsigned long v;
	char *end;

	if (strcmp(value, "auto") == 0) {
		c->threads = 0;
		return 0;
	}
	if (!isdigit((unsigned char)value[0]))
		return -1;
	errno = 0;
	v = strtoul(value, &end, 10);
	if (errno || *end || v < 1 || v > MSSIM_THREADS_MAX)
		return -1;
	c->threads = v;
	return 0;
}

/* "released" or "v1.85" */
static int set_capabilities(struct mssim_config *c, const char *value)
{
	if (strcmp(value, "released") == 0)
		c->capabilities = PQTPM_CAPS_RELEASED;
	else if (strcmp(value, "v1.85") == 0)
		c->capabilities = PQTPM_CAPS_V185;
	else
		return -1;
	return 0;
}

/* "yes" or "no" */
static int set_ek_certificates(struct mssim_config *c, const char *value)
{
	if (strcmp(value, "yes") == 0)
		c->no_ek_certificates = false;
	else if (strcmp(value, "no") == 0)
		c->no_ek_certificates = true;
	else
		return -1;
	return 0;
}

static int set_export_ca(struct mssim_config *c, const char *value)
{
	return set_string(c->export_ca, sizeof(c->export_ca), value);
}

static const struct key_def keys[] = {
	{ "state_dir", "--state-dir", "a directory path", set_state_dir },
	{ "bind", "--bind", "a numeric IPv4 or IPv6 address", set_bind },
	{ "port", "--port", "a port number 1-65535", set_port },
	{ "platform_port", "--platform-port", "a port number 1-65535", set_platform_port },
	{ "pcr_banks", NULL, "a comma-separated list of sha1, sha256, sha384, sha512",
	  set_pcr_banks },
	{ "log_level", "--log-level", "one of error, warn, info, debug", set_log_level },
	{ "threads", "--threads", "auto or a number 1-" MSSIM_STR(MSSIM_THREADS_MAX), set_threads },
	{ "capabilities", "--capabilities", "released or v1.85", set_capabilities },
	{ "ek_certificates", "--ek-certificates", "yes or no", set_ek_certificates },
	{ NULL, "--export-ca", "a file path", set_export_ca },
};

#define NKEYS (sizeof(keys) / sizeof(keys[0]))

void mssim_config_defaults(struct mssim_config *c)
{
	memset(c, 0, sizeof(*c));
	strcpy(c->state_dir, MSSIM_DEFAULT_STATE_DIR);
	strcpy(c->bind, MSSIM_DEFAULT_BIND);
	c->port = MSSIM_DEFAULT_PORT;
	c->platform_port = 0;
	c->pcr_banks = PQTPM_BANK_SHA1 | PQTPM_BANK_SHA256;
	c->log_level = PQTPM_LOG_INFO;
	c->threads = 0;
	c->capabilities = PQTPM_CAPS_RELEASED;
}

unsigned mssim_config_threads(const struct mssim_config *c)
{
	cpu_set_t set;
	long n;

	if (c->threads)
		return c->threads;
	/* The CPUs we may run on (taskset, a cpuset), else those online. */
	if (sched_getaffinity(0, sizeof(set), &set) == 0)
		n = CPU_COUNT(&set);
	else
		n = sysconf(_SC_NPROCESSORS_ONLN);
	if (n < 1)
		return 1;
	return n > MSSIM_AUTO_THREADS_MAX ? MSSIM_AUTO_THREADS_MAX : (unsigned)n;
}

static const struct key_def *find_key(const char *key)
{
	size_t i;

	for (i = 0; i < NKEYS; i++)
		if (keys[i].key && strcmp(keys[i].key, key) == 0)
			return &keys[i];
	return NULL;
}

static char *trim(char *s)
{
	char *end;

	while (isspace((unsigned char)*s))
		s++;
	end = s + strlen(s);
	while (end > s && isspace((unsigned char)end[-1]))
		end--;
	*end = '\0';
	return s;
}

/* One line of the file, newline included. Returns 0 or -1 with err filled. */
static int load_line(struct mssim_config *c, char *line, const char *path, unsigned lineno,
		     char *err, size_t errlen)
{
	const struct key_def *k;
	char *key, *value, *eq;

	line[strcspn(line, "#")] = '\0';
	key = trim(line);
	if (*key == '\0')
		return 0;
	eq = strchr(key, '=');
	if (!eq || eq == key) {
		snprintf(err, errlen, "%s:%u: expected 'key = value', got '%s'", path, lineno, key);
		return -1;
	}
	*eq = '\0';
	key = trim(key);
	value = trim(eq + 1);
	k = find_key(key);
	if (!k) {
		snprintf(err, errlen, "%s:%u: unknown key '%s'", path, lineno, key);
		return -1;
	}
	if (k->set(c, value) < 0) {
		snprintf(err, errlen, "%s:%u: bad value '%s' for key '%s': expected %s", path,
			 lineno, value, key, k->expected);
		return -1;
	}
	return 0;
}

int mssim_config_load(struct mssim_config *c, const char *path, char *err, size_t errlen)
{
	char line[1024];
	unsigned lineno = 0;
	FILE *f;
	int rc = 0;

	f = fopen(path, "r");
	if (!f) {
		snprintf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
		return -1;
	}
	while (rc == 0 && fgets(line, sizeof(line), f)) {
		lineno++;
		if (!strchr(line, '\n') && !feof(f)) {
			snprintf(err, errlen, "%s:%u: line longer than %zu characters", path, lineno,
				 sizeof(line) - 2);
			rc = -1;
			break;
		}
		rc = load_line(c, line, path, lineno, err, errlen);
	}
	if (rc == 0 && ferror(f)) {
		snprintf(err, errlen, "%s: read error: %s", path, strerror(errno));
		rc = -1;
	}
	if (fclose(f) != 0 && rc == 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		rc = -1;
	}
	return rc;
}

struct flag_arg {
	char name[32];
	const char *value;
	const struct key_def *key;	/* NULL for --config */
};

/* Reads the flag at argv[*i] with its value (--name value or --name=value) and moves *i past
 * them. Returns 0 or -1 with err filled. */
static int next_flag(int argc, char **argv, int *i, struct flag_arg *fa, char *err, size_t errlen)
{
	const char *arg = argv[*i], *eq;
	size_t n, k;

	eq = strchr(arg, '=');
	n = eq ? (size_t)(eq - arg) : strlen(arg);
	if (strncmp(arg, "--", 2) != 0 || n >= sizeof(fa->name)) {
		snprintf(err, errlen, "unexpected argument '%s' (see --help)", arg);
		return -1;
	}
	memcpy(fa->name, arg, n);
	fa->name[n] = '\0';
	fa->key = NULL;
	if (strcmp(fa->name, "--config") != 0) {
		for (k = 0; k < NKEYS; k++)
			if (keys[k].flag && strcmp(keys[k].flag, fa->name) == 0)
				fa->key = &keys[k];
		if (!fa->key) {
			snprintf(err, errlen, "unknown option '%s' (see --help)", fa->name);
			return -1;
		}
	}
	if (eq) {
		fa->value = eq + 1;
	} else if (*i + 1 < argc) {
		fa->value = argv[++*i];
	} else {
		snprintf(err, errlen, "%s needs a value", fa->name);
		return -1;
	}
	++*i;
	return 0;
}

static int resolve_platform_port(struct mssim_config *c, char *err, size_t errlen)
{
	if (c->platform_port == 0) {
		if (c->port == 65535) {
			snprintf(err, errlen, "port 65535 leaves no platform port (port + 1); "
					      "set platform_port");
			return -1;
		}
		c->platform_port = c->port + 1;
	}
	if (c->platform_port == c->port) {
		snprintf(err, errlen, "port and platform_port are both %u", c->port);
		return -1;
	}
	return 0;
}

enum mssim_config_result mssim_config_from_args(struct mssim_config *c, int argc, char **argv,
						char *err, size_t errlen)
{
	const char *config = NULL;
	struct flag_arg fa;
	int i;

	mssim_config_defaults(c);
	for (i = 1; i < argc; i++)
		if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0)
			return MSSIM_CONFIG_HELP;

	/* The file first, wherever --config stands, so that every other flag overrides it. */
	for (i = 1; i < argc;) {
		if (next_flag(argc, argv, &i, &fa, err, errlen) < 0)
			return MSSIM_CONFIG_ERROR;
		if (!fa.key)
			config = fa.value;
	}
	if (config && mssim_config_load(c, config, err, errlen) < 0)
		return MSSIM_CONFIG_ERROR;

	for (i = 1; i < argc;) {
		if (next_flag(argc, argv, &i, &fa, err, errlen) < 0)
			return MSSIM_CONFIG_ERROR;
		if (fa.key && fa.key->set(c, fa.value) < 0) {
			snprintf(err, errlen, "%s: bad value '%s': expected %s", fa.name, fa.value,
				 fa.key->expected);
			return MSSIM_CONFIG_ERROR;
		}
	}
	if (resolve_platform_port(c, err, errlen) < 0)
		return MSSIM_CONFIG_ERROR;
	return MSSIM_CONFIG_OK;
}

void mssim_config_usage(FILE *out)
{
	fprintf(out,
		"Usage: pqtpm-server [OPTION]...\n"
		"Serve a pqtpm TPM 2.0 over the Microsoft TPM simulator (MSSIM) protocol.\n"
		"\n"
		"  --config FILE         read settings from FILE (see conf/pqtpm.conf)\n"
		"  --state-dir DIR       TPM state directory (default %s)\n"
		"  --bind ADDR           numeric listen address (default %s)\n"
		"  --port N              TPM command port (default %u)\n"
		"  --platform-port N     platform signal port (default: command port + 1)\n"
		"  --log-level LEVEL     error, warn, info or debug (default info)\n"
		"  --threads N           every connection has a thread; N of them, 1-%d, are kept\n"
		"                        for new connections once their clients left; auto\n"
		"                        (default): one per CPU the server may run on, at most %d\n"
		"  --capabilities SET    released (default): capability lists name only what\n"
		"                        released TSSs know, NV indices up to 2048 bytes;\n"
		"                        v1.85: the v1.85 IDs too, NV indices up to 8192 bytes\n"
		"  --ek-certificates yes|no\n"
		"                        yes (default): the TPM has EK certificates in NV, made\n"
		"                        when it has none; no: none are made (those it has stay),\n"
		"                        as test suites' reference simulators start\n"
		"  --export-ca FILE      write the manufacturer CA certificate (PEM) of the state\n"
		"                        directory to FILE (manufacturing the TPM if new), exit\n"
		"  --help                print this help and exit\n"
		"\n"
		"Flags override the config file. Stops cleanly on SIGTERM or SIGINT.\n"
		"Exit status: 0 stopped, 1 cannot open the TPM state or the ports, "
		"2 bad configuration.\n",
		MSSIM_DEFAULT_STATE_DIR, MSSIM_DEFAULT_BIND, MSSIM_DEFAULT_PORT,
		MSSIM_THREADS_MAX, MSSIM_AUTO_THREADS_MAX);
}

bool mssim_config_is_loopback(const struct mssim_config *c)
{
	struct in6_addr a6;
	struct in_addr a4;

	if (inet_pton(AF_INET, c->bind, &a4) == 1)
		return (ntohl(a4.s_addr) >> 24) == 127;
	if (inet_pton(AF_INET6, c->bind, &a6) == 1)
		return IN6_IS_ADDR_LOOPBACK(&a6) ||
		       (IN6_IS_ADDR_V4MAPPED(&a6) && a6.s6_addr[12] == 127);
	return false;
}

int mssim_config_tcti(const struct mssim_config *c, char *buf, size_t len)
{
	struct in6_addr a6;
	const char *host = c->bind;
	int n;

	/* A wildcard address is reached locally through loopback. */
	if (strcmp(host, "0.0.0.0") == 0)
		host = "127.0.0.1";
	else if (inet_pton(AF_INET6, host, &a6) == 1 && IN6_IS_ADDR_UNSPECIFIED(&a6))
		host = "::1";
	n = snprintf(buf, len, "mssim:host=%s,port=%u", host, c->port);
	return n < 0 || (size_t)n >= len ? -1 : 0;
}
