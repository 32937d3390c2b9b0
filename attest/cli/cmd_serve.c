/* pqtpm-attest serve: the stateless verifier over HTTP (libmicrohttpd), loopback by default. */
#include <errno.h>
#include <netdb.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <microhttpd.h>

#include "cli.h"
#include "crypto/crypto.h"
#include "serve.h"

#define CONNECTION_TIMEOUT 10 /* seconds a client may stay silent (a slow client holds a thread) */

static const char serve_usage[] =
	"Usage: pqtpm-attest serve [--bind 127.0.0.1] [--port 8443] [--key FILE]\n"
	"A stateless verifier over HTTP, until SIGTERM or SIGINT:\n"
	"  GET  /v1/challenge  {\"nonce\": HEX, \"expires_at\": RFC3339}, valid for 300 s\n"
	"  POST /v1/verify     {\"evidence\": {...}, \"ak_public\": B64URL, \"policy\": {...}?}\n"
	"                      -> the result document of verify\n"
	"A nonce is random bytes, its expiry and an HMAC under the key of --key FILE (made, 0600,\n"
	"when absent; without --key a key of this process only), so every serve process with the\n"
	"same key accepts the others' challenges. Bodies: JSON, at most 1 MiB, else 400.\n";

struct upload {
	char *buf;
	size_t len;
	bool too_big;
};

static enum MHD_Result answer(struct MHD_Connection *conn, unsigned status, json_t *doc)
{
	char *text = doc ? json_dumps(doc, JSON_COMPACT) : NULL;
	struct MHD_Response *resp;
	enum MHD_Result ret;

	json_decref(doc);
	if (!text)
		return MHD_NO; /* out of memory: drop the connection */
	resp = MHD_create_response_from_buffer(strlen(text), text, MHD_RESPMEM_MUST_FREE);
	if (!resp) {
		free(text);
		return MHD_NO;
	}
	MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, "application/json");
	ret = MHD_queue_response(conn, status, resp);
	MHD_destroy_response(resp);
	return ret;
}

static enum MHD_Result answer_error(struct MHD_Connection *conn, unsigned status,
				    const char *text)
{
	return answer(conn, status, serve_error_json(text));
}

/* the declared size, when there is one, refused before the body is read */
static bool declared_too_big(struct MHD_Connection *conn)
{
	const char *cl = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Content-Length");
	char *end;
	unsigned long long n;

	if (!cl)
		return false;
	errno = 0;
	n = strtoull(cl, &end, 10);
	return errno || *end || n > SERVE_MAX_BODY;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn, const char *url,
				  const char *method, const char *version, const char *data,
				  size_t *data_size, void **con_cls)
{
	const uint8_t *key = cls;
	struct upload *up = *con_cls;
	unsigned status;
	json_t *doc;

	(void)version;
	if (strcmp(url, "/v1/challenge") == 0) {
		if (strcmp(method, "GET") != 0)
			return answer_error(conn, 405, "GET /v1/challenge");
		doc = serve_challenge_json(key, (int64_t)time(NULL), &status);
		return answer(conn, status, doc);
	}
	if (strcmp(url, "/v1/verify") != 0)
		return answer_error(conn, 404, "no such resource: /v1/challenge, /v1/verify");
	if (strcmp(method, "POST") != 0)
		return answer_error(conn, 405, "POST /v1/verify");
	if (!up) {
		if (declared_too_big(conn))
			return answer_error(conn, 400, "the body is over 1 MiB");
		up = calloc(1, sizeof(*up));
		if (!up)
			return MHD_NO;
		*con_cls = up;
		return MHD_YES;
	}
	if (*data_size) {
		if (!up->too_big && up->len + *data_size <= SERVE_MAX_BODY) {
			char *grown = realloc(up->buf, up->len + *data_size);

			if (!grown)
				return MHD_NO;
			memcpy(grown + up->len, data, *data_size);
			up->buf = grown;
			up->len += *data_size;
		} else {
			up->too_big = true;
		}
		*data_size = 0;
		return MHD_YES;
	}
	if (up->too_big)
		return answer_error(conn, 400, "the body is over 1 MiB");
	doc = serve_verify_json(key, up->buf ? up->buf : "", up->len, (int64_t)time(NULL),
				&status);
	return answer(conn, status, doc);
}

static void on_completed(void *cls, struct MHD_Connection *conn, void **con_cls,
			 enum MHD_RequestTerminationCode why)
{
	struct upload *up = *con_cls;

	(void)cls;
	(void)conn;
	(void)why;
	if (up) {
		free(up->buf);
		free(up);
		*con_cls = NULL;
	}
}

static int parse_port(const char *text, unsigned *port)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(text, &end, 10);
	if (errno || *end || end == text || text[0] == '-' || v == 0 || v > 65535)
		return cli_error("serve: --port: expected 1 to 65535, got '%s'", text);
	*port = (unsigned)v;
	return EXIT_OK;
}

/* runs the daemon until SIGTERM or SIGINT */
static int run(const struct addrinfo *ai, const char *bind, unsigned port, uint8_t *key)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL;
	struct MHD_Daemon *d;
	sigset_t set;
	int sig = 0;

	if (ai->ai_family == AF_INET6)
		flags |= MHD_USE_IPv6;
	/* the signals are waited for here, never delivered to a thread of the daemon */
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	signal(SIGPIPE, SIG_IGN);
	d = MHD_start_daemon(flags, (uint16_t)port, NULL, NULL, on_request, key,
			     MHD_OPTION_SOCK_ADDR, ai->ai_addr,
			     MHD_OPTION_THREAD_POOL_SIZE, (unsigned)(cpus > 0 ? cpus : 1),
			     MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)CONNECTION_TIMEOUT,
			     MHD_OPTION_NOTIFY_COMPLETED, on_completed, NULL, MHD_OPTION_END);
	if (!d)
		return cli_error("serve: cannot listen on %s port %u: %s", bind, port,
				 strerror(errno));
	fprintf(stderr, "pqtpm-attest: serving on %s port %u\n", bind, port);
	sigwait(&set, &sig); /* set holds SIGTERM and SIGINT only */
	MHD_stop_daemon(d);
	return EXIT_OK;
}

int cmd_serve(const struct cli *c, int argc, char **argv)
{
	const char *bind = NULL, *port_text = NULL, *key_path = NULL;
	struct flag flags[] = { { "--bind", &bind }, { "--port", &port_text },
				{ "--key", &key_path } };
	struct addrinfo hints = { .ai_flags = AI_NUMERICHOST | AI_NUMERICSERV | AI_PASSIVE,
				  .ai_socktype = SOCK_STREAM },
			*ai = NULL;
	static uint8_t key[SERVE_KEY_LEN];
	unsigned port = 8443;
	char port_str[8];
	int ret;

	(void)c;
	ret = cli_flags(argc, argv, flags, 3, serve_usage);
	if (ret)
		return ret < 0 ? EXIT_OK : ret;
	if (!bind)
		bind = "127.0.0.1";
	if (port_text && parse_port(port_text, &port))
		return EXIT_ERROR;
	snprintf(port_str, sizeof(port_str), "%u", port);
	ret = getaddrinfo(bind, port_str, &hints, &ai);
	if (ret)
		return cli_error("serve: --bind: '%s' is no IPv4 or IPv6 address: %s", bind,
				 gai_strerror(ret));
	if (key_path)
		ret = serve_key_file(key_path, key);
	else if (crypto_random(key, sizeof(key)) != TPM_RC_SUCCESS)
		ret = cli_error("serve: no random bytes for a key");
	if (!ret)
		ret = run(ai, bind, port, key);
	crypto_wipe(key, sizeof(key));
	freeaddrinfo(ai);
	return ret;
}
