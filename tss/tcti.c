/* Transports by one string, the same in every tool of the project: "NAME" or "NAME:ARGS",
 * one row per transport. Network transports take "host=H,port=P" (either may be left out),
 * path transports a path. A bad string is -EINVAL, with a message naming the bad part. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "transport_unix.h"
#include "tss_int.h"

typedef int (*net_open_fn)(const char *host, unsigned port, const struct tss_transport **ops,
			   void **ctx);
typedef int (*path_open_fn)(const char *path, const struct tss_transport **ops, void **ctx);

struct tcti_row {
	const char *name;
	net_open_fn net;	  /* host=H,port=P */
	unsigned default_port;
	path_open_fn path;	  /* a path */
	const char *default_path; /* when none is given (NULL: one must be) */
};

/* Adding a transport is one row: a network one names its open function as .net with its
 * default port (swtpm: 2321), a path one as .path (embedded: a state directory, unix: a
 * socket), both of the shape of tss_mssim_transport / tss_device_transport. */
static const struct tcti_row rows[] = {
	{ .name = "mssim", .net = tss_mssim_transport, .default_port = 2321 },
	{ .name = "swtpm", .net = tss_swtpm_transport, .default_port = 2321 },
	{ .name = "device", .path = tss_device_transport, .default_path = "/dev/tpmrm0" },
	{ .name = "embedded", .path = tss_embedded_transport },
	{ .name = "unix", .path = tss_unix_transport },
};

#define HOST_MAX 255

/* One "key=value" of n bytes: host=H or port=P (1-65534: port + 1 is the platform port). */
static int parse_option(const char *kv, size_t n, char *host, unsigned *port)
{
	char val[HOST_MAX + 1], *stop;
	unsigned long p;

	if (n <= 5 || n - 5 > HOST_MAX)
		return -EINVAL;
	memcpy(val, kv + 5, n - 5);
	val[n - 5] = '\0';
	if (strncmp(kv, "host=", 5) == 0) {
		memcpy(host, val, n - 4);
		return 0;
	}
	if (strncmp(kv, "port=", 5) != 0 || val[0] < '0' || val[0] > '9')
		return -EINVAL;
	p = strtoul(val, &stop, 10);
	if (*stop || p == 0 || p > 65534)
		return -EINVAL;
	*port = (unsigned)p;
	return 0;
}

/* "host=H,port=P" into host and *port (defaults kept for keys left out). */
static int parse_net(const char *conf, const char *args, char *host, unsigned *port)
{
	const char *kv = args;

	if (!*args)
		return 0;
	for (;;) {
		const char *end = strchr(kv, ',');
		size_t n = end ? (size_t)(end - kv) : strlen(kv);

		if (parse_option(kv, n, host, port) < 0) {
			tss_log(PQTPM_LOG_ERROR,
				"transport \"%s\": bad option \"%.*s\" (host=H,port=P, port 1-65534)",
				conf, (int)n, kv);
			return -EINVAL;
		}
		if (!end)
			return 0;
		kv = end + 1;
	}
}

int tss_tcti_open(const char *conf, const struct tss_transport **ops, void **ctx)
{
	const char *colon, *args;
	size_t name_len;

	if (!conf) {
		tss_log(PQTPM_LOG_ERROR, "transport: no string given");
		return -EINVAL;
	}
	colon = strchr(conf, ':');
	name_len = colon ? (size_t)(colon - conf) : strlen(conf);
	args = colon ? colon + 1 : "";
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		const struct tcti_row *row = &rows[i];
		char host[HOST_MAX + 1] = "127.0.0.1";
		unsigned port = row->default_port;
		int rc;

		if (strlen(row->name) != name_len || strncmp(conf, row->name, name_len) != 0)
			continue;
		if (row->net) {
			rc = parse_net(conf, args, host, &port);
			if (rc < 0)
				return rc;
			rc = row->net(host, port, ops, ctx);
			if (rc < 0)
				tss_log(PQTPM_LOG_ERROR, "transport \"%s\": %s port %u: %s", conf,
					host, port, strerror(-rc));
			return rc;
		}
		if (!*args && !row->default_path) {
			tss_log(PQTPM_LOG_ERROR, "transport \"%s\": a path is needed (%s:PATH)",
				conf, row->name);
			return -EINVAL;
		}
		rc = row->path(*args ? args : row->default_path, ops, ctx);
		if (rc < 0)
			tss_log(PQTPM_LOG_ERROR, "transport \"%s\": %s: %s", conf,
				*args ? args : row->default_path, strerror(-rc));
		return rc;
	}
	tss_log(PQTPM_LOG_ERROR, "transport \"%s\": unknown transport \"%.*s\"", conf,
		(int)name_len, conf);
	return -EINVAL;
}
