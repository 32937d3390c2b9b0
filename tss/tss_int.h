/* Inside the client library: a connection (transport + buffers) and the builder every command
 * file uses. The bounded reader/writer of core/marshal.h does all the byte work. */
#ifndef PQTPM_TSS_INT_H
#define PQTPM_TSS_INT_H

#include <pthread.h>

#include <pqtpm/tss.h>

#include "marshal.h"

#define TSS_BUF 8192 /* PQTPM_MAX_COMMAND_SIZE / PQTPM_MAX_RESPONSE_SIZE */

struct tss_transport {
	/* 0, or a negative errno; rsp_len set on success */
	int (*transmit)(void *ctx, const uint8_t *cmd, size_t len, uint8_t *rsp, size_t cap,
			size_t *rsp_len);
	int (*power_on)(void *ctx);
	void (*close)(void *ctx);
	/* In a forked child: release what this process holds (its descriptors, its memory)
	 * without a word to the TPM, which the parent still talks to. NULL: nothing. */
	void (*forget)(void *ctx);
};

struct pqtpm_tss {
	const struct tss_transport *ops;
	void *ctx;
	pthread_mutex_t lock;	/* one command at a time: it guards cmd, rsp, the transport */
	unsigned fork_gen;	/* the fork count (tss.c) when opened: higher in a forked child */
	uint8_t cmd[TSS_BUF];
	uint8_t rsp[TSS_BUF];
	size_t rsp_len;
};

/* transport_engine.c, transport_mssim.c, transport_device.c, transport_swtpm.c: 0 or a
 * negative errno */
int tss_engine_transport(struct pqtpm_engine *e, const struct tss_transport **ops, void **ctx);
int tss_mssim_transport(const char *host, unsigned port, const struct tss_transport **ops,
			void **ctx);
int tss_device_transport(const char *path, const struct tss_transport **ops, void **ctx);
/* swtpm's server port `port` (raw TPM commands) and its control port `port + 1`. */
int tss_swtpm_transport(const char *host, unsigned port, const struct tss_transport **ops,
			void **ctx);
/* tcti.c: a transport string ("mssim:host=H,port=P", "device:PATH" ...) opened */
int tss_tcti_open(const char *conf, const struct tss_transport **ops, void **ctx);

/* log.c: a message to the callback of pqtpm_tss_set_log, if any */
void tss_log(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* tss.c: take the handle for one command (PQTPM_TSS_RC_FORKED in a forked child, which must
 * not touch its parent's connection), release it; the transmit of a taken handle. */
TPM_RC tss_lock(struct pqtpm_tss *t);
void tss_unlock(struct pqtpm_tss *t);
TPM_RC tss_transmit_locked(struct pqtpm_tss *t, const uint8_t *cmd, size_t len, uint8_t *rsp,
			   size_t cap, size_t *rsp_len);

/* A command being built: handles, password authorizations, parameters. */
struct tss_cmd {
	struct pqtpm_tss *t;
	TPM_CC cc;
	TPM_HANDLE handle[3];
	unsigned nhandles;
	const char *auth[3];
	unsigned nauth;
	uint8_t params[TSS_BUF];
	struct wr p;
	int overflow;
};

void tss_begin(struct tss_cmd *c, struct pqtpm_tss *t, TPM_CC cc);
void tss_handle(struct tss_cmd *c, TPM_HANDLE h);
/* A password session (TPM_RS_PW) for the next authorized handle. */
void tss_auth(struct tss_cmd *c, const char *password);
/* Parameter writers that remember an overflow (reported by tss_run as BAD_VALUE). */
void tss_u8(struct tss_cmd *c, uint8_t v);
void tss_u16(struct tss_cmd *c, uint16_t v);
void tss_u32(struct tss_cmd *c, uint32_t v);
void tss_bytes(struct tss_cmd *c, const void *b, size_t n);
void tss_tpm2b(struct tss_cmd *c, const void *b, size_t n);
void tss_tpm2b_str(struct tss_cmd *c, const char *s); /* NULL: empty */
/* Send; on success *rsp reads the response parameters and *rhandle (if not NULL) gets the
 * response handle (for commands that return one). */
TPM_RC tss_run(struct tss_cmd *c, struct rd *rsp, TPM_HANDLE *rhandle);

/* A bounded reader's failure (a response shorter than its fields) as the TSS layer's code. */
#define TRY_RD(expr)                                         \
	do {                                                 \
		if ((expr) != TPM_RC_SUCCESS)                \
			return PQTPM_TSS_RC_MALFORMED;       \
	} while (0)

/* Response readers: any failure is PQTPM_TSS_RC_MALFORMED. */
TPM_RC tss_rd_tpm2b(struct rd *r, uint8_t *buf, size_t max, uint16_t *size);
/* A TPMT_SIGNATURE / ticket / TPM2B_PUBLIC copied as marshalled. */
TPM_RC tss_rd_signature(struct rd *r, struct pqtpm_tss_signature *s);
TPM_RC tss_rd_ticket(struct rd *r, struct pqtpm_tss_ticket *t);
TPM_RC tss_rd_public(struct rd *r, struct pqtpm_tss_public *p);
/* The response must have been read to its end. */
TPM_RC tss_rd_end(const struct rd *r);

/* ---- structures taken apart (structures.c, public_area.c) ---- */
struct tss_bytes { /* borrowed in place: valid while the bytes walked live */
	const uint8_t *b;
	uint16_t size;
};
/* A TPM2B's content, borrowed (PQTPM_TSS_RC_MALFORMED if it does not fit). */
TPM_RC tss_rd_view2b(struct rd *r, struct tss_bytes *out);

struct tss_sym { /* TPMT_SYM_DEF_OBJECT; XOR: bits is its hash */
	TPM_ALG_ID alg, mode;
	uint16_t bits;
};
struct tss_scheme { /* any TPMT_*_SCHEME: hash, count (ECDAA), kdf (XOR) as it selects */
	TPM_ALG_ID scheme, hash, kdf;
	uint16_t count;
};
/* A TPMT_PUBLIC: the fields of its type are set, the others TPM_ALG_NULL or 0. */
struct tss_public {
	TPM_ALG_ID type, name_alg;
	uint32_t attributes;
	struct tss_bytes policy;
	struct tss_sym sym;	  /* RSA, ECC, SYMCIPHER, ML-KEM */
	struct tss_scheme scheme; /* RSA, ECC, KEYEDHASH */
	struct tss_scheme kdf;	  /* ECC */
	uint16_t rsa_bits, curve;
	uint32_t exponent;
	uint16_t parameter_set;	   /* ML-DSA, HashML-DSA, ML-KEM */
	uint8_t allow_external_mu; /* ML-DSA */
	TPM_ALG_ID pre_hash;	   /* HashML-DSA */
	struct tss_bytes unique;   /* ECC: x */
	struct tss_bytes unique_y; /* ECC: y */
};
/* Walk a marshalled TPMT_PUBLIC of len bytes, all of which it must be (tolerant of values,
 * strict about shape): TPM_RC_SUCCESS or PQTPM_TSS_RC_MALFORMED. */
TPM_RC tss_public_walk(const uint8_t *b, size_t len, struct tss_public *p);

#endif
