/* The PKCS#11 module's private interfaces: module state, configuration, the TPM connections, the
 * token store, tokens and sessions. Every CK_ function takes the module lock (p11_enter) and
 * releases it (p11_leave); a TPM step of a hot path (signing, decryption, key generation ...)
 * runs outside it, on a connection of its own (p11_unlocked), so that several threads' TPM
 * steps run at once. docs/pkcs11.md, "Concurrency", has the locks and their order. */
#ifndef PQTPM_PKCS11_P11_H
#define PQTPM_PKCS11_P11_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <pqtpm/tss.h>

#include "pk3.h"

#define P11_PATH_MAX 4096
#define P11_MAX_TOKENS 64
#define P11_MAX_SESSIONS 1024
#define P11_PIN_MIN 4
#define P11_PIN_MAX 32		/* a TPM authValue of SHA-256: 32 bytes */
#define P11_SECRET_LEN 32	/* the wrapping secret: 16 random bytes in hex, a key authValue */
#define P11_LIB_VERSION_MAJOR 0
#define P11_LIB_VERSION_MINOR 1

/* ---- configuration (conf.c) ---- */
enum p11_log_level { P11_LOG_NONE = -1, P11_LOG_ERROR, P11_LOG_WARN, P11_LOG_INFO, P11_LOG_DEBUG };
struct p11_conf {
	char tpm[P11_PATH_MAX + 16]; /* a transport string of the client library */
	char store[P11_PATH_MAX];	/* the token store's directory */
	unsigned slots;			/* tokens at most (then no empty slot is offered) */
	unsigned connections;		/* TPM connections at most (conn.c); 0: the transport's */
	int log_level;			/* enum p11_log_level */
	char owner_auth[P11_PIN_MAX + 1];
};
/* From $PQTPM_PKCS11_CONF, else $PQTPM_STATE_DIR, else $XDG_DATA_HOME/pqtpm: CKR_OK, or
 * CKR_GENERAL_ERROR for a file that cannot be read or does not parse (logged). connections
 * left out: 1 for a TPM that serves one connection at a time (swtpm:, a device other than a
 * resource manager's), else P11_MAX_CONNS. */
CK_RV p11_conf_load(struct p11_conf *c);
/* One "key = value" line of a configuration file (also for tests): 0 or -EINVAL. */
int p11_conf_line(struct p11_conf *c, const char *line);

/* ---- log (log.c): to stderr at or below the configured level, else nowhere ---- */
void p11_log_init(int level);
void p11_log(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* ---- the token store (store.c): SQLite in conf.store ---- */
struct p11_store;
struct p11_blob {
	size_t len;
	uint8_t b[PQTPM_TSS_MAX_PUBLIC];
};
struct p11_token_row {
	CK_SLOT_ID id;
	uint8_t label[32];
	char serial[17]; /* 16 characters */
	struct p11_blob so_pub, so_priv, user_pub, user_priv; /* user_*.len 0: no user PIN */
};
/* Whether the store's database exists (nothing is created). */
bool p11_store_exists(const char *dir);
/* Open (create: make the directory and database if missing). CKR_OK, CKR_DEVICE_ERROR. */
CK_RV p11_store_open(const char *dir, bool create, struct p11_store **out);
void p11_store_close(struct p11_store *s);
/* The tokens' ids, ascending (at most cap), *n of them. */
CK_RV p11_store_token_ids(struct p11_store *s, CK_SLOT_ID *ids, size_t cap, size_t *n);
CK_RV p11_store_token_get(struct p11_store *s, CK_SLOT_ID id, struct p11_token_row *row);
/* Insert (id must be free: CKR_SLOT_ID_INVALID if another process took it) or replace. */
CK_RV p11_store_token_insert(struct p11_store *s, const struct p11_token_row *row);
CK_RV p11_store_token_replace(struct p11_store *s, const struct p11_token_row *row);
CK_RV p11_store_token_set_user(struct p11_store *s, CK_SLOT_ID id, const struct p11_blob *pub,
			       const struct p11_blob *priv);
CK_RV p11_store_token_set_so(struct p11_store *s, CK_SLOT_ID id, const struct p11_blob *priv);
/* Token objects: the rows of token id, ascending, with their generations (a count of their
 * attribute updates); one object in full; one added (its row in o->row), its attributes
 * replaced by o's (o->gen then the new generation; CKR_OBJECT_HANDLE_INVALID if it is gone)
 * or deleted, each in one transaction; an object's generation. */
struct p11_object;
struct p11_store_row {
	int64_t row, gen;
};
CK_RV p11_store_object_rows(struct p11_store *s, CK_SLOT_ID id, struct p11_store_row **rows,
			    size_t *n);
CK_RV p11_store_object_load(struct p11_store *s, int64_t row, struct p11_object *o);
CK_RV p11_store_object_add(struct p11_store *s, struct p11_object *o);
CK_RV p11_store_object_update(struct p11_store *s, struct p11_object *o);
CK_RV p11_store_object_delete(struct p11_store *s, int64_t row);
CK_RV p11_store_object_gen(struct p11_store *s, int64_t row, int64_t *gen);

/* ---- the TPM connections (conn.c) ----
 * A pool of connections to the TPM, each a client of its own (an engine client for embedded:, a
 * socket for mssim: and unix:), opened at first use (never in C_Initialize). A connection is
 * used by one thread at a time, which holds the connection's lock (p11_mutex_lock(1 + its
 * index in the pool));
 * the module lock guards the pool's bookkeeping. Lock order: the module lock before a
 * connection's; a thread that holds a connection's lock never waits for the module lock. */
#define P11_MAX_CONNS 8
#define P11_CONN_KEYS 24 /* keys kept loaded on one connection (the engine holds 32 objects) */
struct p11_loaded { /* a key's handle on one connection */
	TPM_HANDLE h;	/* 0: not loaded */
	unsigned gen;	/* the connection's gen when it was loaded */
};
struct p11_conn {
	/* the thread that holds the connection's lock: */
	struct pqtpm_tss *t; /* NULL: not open */
	TPM_HANDLE storage;
	unsigned gen;	     /* changes whenever every handle loaded on it went */
	bool lost;	     /* the transport failed: opened again before the next step */
	TPM_HANDLE keys[P11_CONN_KEYS]; /* the keys loaded on it */
	size_t nkeys;
	/* the module lock: */
	unsigned users;	     /* threads that hold it or wait for it */
	bool opened;	     /* it was open when last given back */
	struct p11_loaded dead[P11_CONN_KEYS]; /* keys of freed objects, to let go of */
	size_t ndead;
	bool stale;	     /* more freed keys than dead holds: let go of every key */
};
/* Run step(c, arg) on a connection of the pool outside the module lock: called with the lock
 * held, returns with it held again. The step reads only c, arg and key's TPM blobs (nothing
 * of the module's state, which other threads change meanwhile); key (NULL: none) is held
 * meanwhile (a C_DestroyObject takes it out of the table, the last release frees it) and a
 * connection where it is loaded is preferred. When the transport failed, the connection is
 * opened again and the step runs once more (the rule of p11_tpm_recover). */
struct p11_object;
typedef CK_RV (*p11_step_fn)(struct p11_conn *c, void *arg);
CK_RV p11_unlocked(struct p11_object *key, p11_step_fn step, void *arg);
/* In a step (or on the connection p11_tpm gave): the private key object o loaded on c (once:
 * kept until o is freed or c lets go of every key); a public key alone (LoadExternal in the
 * NULL hierarchy, flush after); a TPM_RC as a CK_RV (p11_rc) that marks c lost when the
 * transport failed; a digest (p11_tpm_hash), a key (p11_tpm_create_key), an unsealed secret
 * (p11_tpm_unseal) and random bytes on c. */
CK_RV p11_conn_load(struct p11_conn *c, struct p11_object *o, TPM_HANDLE *h);
CK_RV p11_conn_load_public(struct p11_conn *c, const struct p11_blob *pub, TPM_HANDLE *h);
CK_RV p11_conn_rv(struct p11_conn *c, TPM_RC rc, const char *what);
CK_RV p11_conn_hash(struct p11_conn *c, TPM_ALG_ID hash, const uint8_t *data, size_t len,
		    uint8_t *out, size_t *out_len);
CK_RV p11_conn_create_key(struct p11_conn *c, const struct pqtpm_tss_public *tmpl,
			  const char *auth, struct p11_blob *pub, struct p11_blob *priv);
CK_RV p11_conn_unseal(struct p11_conn *c, const char *pin, const struct p11_blob *pub,
		      const struct p11_blob *priv, char *secret);
CK_RV p11_conn_random(struct p11_conn *c, uint8_t *out, size_t len);
/* With the module lock held: the connection of the lock's holder (p11_tpm), taken at its
 * first use and given back by p11_leave; an object's handles to be let go of (when it is
 * freed); whether a thread is on a connection or waits for one; all closed (C_Finalize); all
 * dropped without a word to the TPM (after fork). */
struct p11_conn *p11_conn_held(void);
void p11_conn_give_held(void);
void p11_conn_let_go(const struct p11_object *o);
bool p11_conns_busy(void);
void p11_conns_close(void);
void p11_conns_forget(void);

/* ---- the TPM with the module lock held (tpm.c): the token and PIN functions ----
 * Each function uses the connection of the lock's holder (p11_conn_held) for the whole call. */
/* The connection and the storage key, opened at first use: CKR_OK or CKR_DEVICE_ERROR. */
CK_RV p11_tpm(struct pqtpm_tss **t, TPM_HANDLE *storage);
/* Whether the transport failed since the last call (p11_tpm_rv saw PQTPM_TSS_RC_IO, e.g. the
 * process that ran the embedded TPM went): then the connection and every handle loaded on it
 * are dropped, so that the caller may try its TPM step once more on a new connection. The
 * exported p11_tpm_* steps below do so themselves. */
bool p11_tpm_recover(void);
/* A TPM_RC as a CK_RV (auth failures as CKR_PIN_INCORRECT, lockout as CKR_PIN_LOCKED), logged
 * with what was asked when it is not a success; p11_tpm_rv also marks the connection lost on
 * a transport failure. */
CK_RV p11_rc(TPM_RC rc, const char *what);
CK_RV p11_tpm_rv(TPM_RC rc, const char *what);
/* Seal secret under the storage key with authValue pin: the sealed object's blobs. */
CK_RV p11_tpm_seal(const char *pin, const char *secret, struct p11_blob *pub,
		   struct p11_blob *priv);
/* Unseal with pin: secret (P11_SECRET_LEN chars and a zero). */
CK_RV p11_tpm_unseal(const char *pin, const struct p11_blob *pub, const struct p11_blob *priv,
		     char *secret);
/* The sealed object under a new authValue: a new private blob. */
CK_RV p11_tpm_rewrap_pin(const char *old_pin, const char *new_pin, const struct p11_blob *pub,
			 struct p11_blob *priv);
/* The TPM's dictionary-attack count and limit. */
CK_RV p11_tpm_da(uint32_t *failed, uint32_t *max_tries);
CK_RV p11_tpm_random(uint8_t *out, size_t len);

/* ---- module state (module.c) ---- */
struct p11_token {
	CK_SLOT_ID id;
	bool present;
	CK_USER_TYPE user; /* logged in as (CKU_SO, CKU_USER), or P11_NOBODY */
	char secret[P11_SECRET_LEN + 1];
	struct p11_token_row row;
};
#define P11_NOBODY ((CK_USER_TYPE)-1)
struct p11_object;
/* An operation in progress on a session (sign, verify, digest): its data is collected and the
 * TPM asked once at the end. */
struct p11_op {
	bool active;
	bool multi; /* an Update came: the single-part call is no longer allowed */
	bool reauth; /* CKA_ALWAYS_AUTHENTICATE: C_Login(CKU_CONTEXT_SPECIFIC) is still to come */
	bool busy;  /* its TPM step runs (p11_unlocked): other calls on it: CKR_OPERATION_ACTIVE */
	CK_MECHANISM_TYPE mech;
	CK_OBJECT_HANDLE key;
	TPM_ALG_ID hash; /* RSA-PSS: the digest's hash; RSA-OAEP: its hash */
	uint8_t ctx[255]; /* ML-DSA: the context string; RSA-OAEP: the label */
	size_t ctx_len;
	uint8_t *data;	  /* AES: the input not yet given to the TPM */
	size_t len, cap;
	uint8_t iv[16];	  /* AES: the IV to go on with (the TPM's ivOut) */
	CK_ULONG ctr_bits; /* AES-CTR: the counter's width */
	uint64_t blocks;   /* AES-CTR: keystream blocks used */
	size_t mac_len;	   /* HMAC: the MAC's length */
};
CK_RV p11_op_append(struct p11_op *op, const uint8_t *data, size_t len);
/* The operation over: its data wiped and freed. */
void p11_op_end(struct p11_op *op);
/* Its state moved to *mine for a step outside the module lock: op stays active and busy, with
 * no data of its own (closing the session meanwhile frees nothing the step reads). */
void p11_op_lend(struct p11_op *op, struct p11_op *mine);
/* ... and back after the step: op as *mine left it, no longer busy (*mine emptied). */
void p11_op_back(struct p11_op *op, struct p11_op *mine);
struct p11_session {
	CK_SESSION_HANDLE handle;
	CK_SLOT_ID slot;
	CK_FLAGS flags;
	struct p11_op sign, verify, digest, encrypt, decrypt;
	bool finding;
	CK_OBJECT_HANDLE *found;
	size_t nfound, found_pos;
};
/* The kinds of operation, one of each at a time in a session, and the session's one. */
enum p11_op_kind { P11_OP_SIGN, P11_OP_VERIFY, P11_OP_DIGEST, P11_OP_ENCRYPT, P11_OP_DECRYPT };
struct p11_op *p11_session_op(struct p11_session *s, enum p11_op_kind kind);
/* A call on a session's operation (C_Sign, C_EncryptUpdate ...): the session h and the kind,
 * found with the module lock held (p11_op_get) and found again after a TPM step outside it
 * (p11_op_step). */
struct p11_call {
	CK_SESSION_HANDLE h;
	enum p11_op_kind kind;
	struct p11_session *s;
	struct p11_token *tok;
	struct p11_op *op;
};
/* The call's operation in progress: CKR_OPERATION_ACTIVE while another thread's call runs its
 * TPM step, CKR_OPERATION_NOT_INITIALIZED; one whose key wants the user's PIN for each
 * operation and did not get it ends (CKR_USER_NOT_LOGGED_IN, PKCS#11 §5.1). */
CK_RV p11_op_get(struct p11_call *c);
/* p11_enter, then p11_op_get; the lock released again when either fails. */
CK_RV p11_enter_op(struct p11_call *c);
/* p11_enter_op, then the call's arguments: ok false (a pointer the call needs is NULL) ends the
 * operation, CKR_ARGUMENTS_BAD. The lock is released again on any error. */
CK_RV p11_enter_op_args(struct p11_call *c, bool ok);
/* The two-call length pattern (PKCS#11 §5.2): whether out (NULL: a length query) takes size
 * bytes; if not, *out_len is set to size and *rv to the call's answer, CKR_OK for a query and
 * CKR_BUFFER_TOO_SMALL otherwise (the operation goes on either way). */
bool p11_out_fits(const void *out, CK_ULONG_PTR out_len, size_t size, CK_RV *rv);
/* C_Sign, C_Verify, C_Digest: p11_enter_op_args, then the call's data taken whole
 * (p11_op_once); the lock is released again on any error. */
CK_RV p11_enter_once(struct p11_call *c, bool ok, const uint8_t *data, size_t len);
/* The key of the call's operation as the session sees it now; the operation ends when the key
 * has gone (CKR_KEY_HANDLE_INVALID). */
CK_RV p11_op_key(struct p11_call *c, struct p11_object **k);
/* C_Sign, C_Verify, C_Digest: the call's data taken whole (what a length query before it kept
 * goes), not after an Update (CKR_OPERATION_ACTIVE); an error ends the operation. */
CK_RV p11_op_once(struct p11_call *c, const uint8_t *data, size_t len);
/* C_SignUpdate, C_VerifyUpdate, C_DigestUpdate: a part of the data kept for the final step;
 * an error ends the operation (PKCS#11 §5.2). The whole call, module lock included. */
CK_RV p11_op_update(CK_SESSION_HANDLE h, enum p11_op_kind kind, const uint8_t *part, size_t len);
/* The call's operation lent to step (its state moved to *mine, which the step reads) outside
 * the module lock with key held (p11_unlocked), then given back, the session found again:
 * CKR_SESSION_CLOSED if it was closed meanwhile (the operation ended with it, c->op NULL),
 * else the step's CK_RV. */
CK_RV p11_op_step(struct p11_call *c, struct p11_op *mine, struct p11_object *key,
		  p11_step_fn step, void *arg);

/* ---- objects (object.c, attr.c) ---- */
struct p11_attr {
	CK_ATTRIBUTE_TYPE type;
	CK_ULONG len;
	uint8_t *value;
};
struct p11_object {
	CK_OBJECT_HANDLE handle;
	CK_SLOT_ID slot;
	int64_t row;		   /* its row in the store (token objects); 0: a session object */
	int64_t gen;		   /* token objects: the row's generation this copy has */
	CK_SESSION_HANDLE session; /* session objects: the session that made it */
	struct p11_attr *attrs;
	size_t nattrs;
	/* the TPM key (keys only; priv: private keys), never changed once in the table: steps
	 * outside the module lock read them */
	struct p11_blob *tpm_pub, *tpm_priv;
	struct p11_loaded loaded[P11_MAX_CONNS]; /* its handle on each connection (conn.c) */
	/* steps outside the module lock that use it (p11_object_hold); gone: out of the table,
	 * freed by the last release */
	unsigned refs;
	bool gone;
	unsigned conn; /* the connection it was last used on (preferred) */
};
#define P11_MAX_OBJECTS 4096
/* Attributes of an object (attr.c): the value of type, or NULL. */
const struct p11_attr *p11_attr_find(const struct p11_object *o, CK_ATTRIBUTE_TYPE type);
CK_RV p11_attr_set(struct p11_object *o, CK_ATTRIBUTE_TYPE type, const void *value,
		   CK_ULONG len);
CK_RV p11_attr_set_bool(struct p11_object *o, CK_ATTRIBUTE_TYPE type, bool v);
CK_RV p11_attr_set_ulong(struct p11_object *o, CK_ATTRIBUTE_TYPE type, CK_ULONG v);
/* The attribute out of the object, its value wiped. */
void p11_attr_drop(struct p11_object *o, CK_ATTRIBUTE_TYPE type);
/* CKA_UNIQUE_ID: 16 random hex digits (getrandom: an identifier, unique in the token). */
CK_RV p11_attr_set_unique_id(struct p11_object *o);
bool p11_attr_bool(const struct p11_object *o, CK_ATTRIBUTE_TYPE type, bool dflt);
CK_ULONG p11_attr_ulong(const struct p11_object *o, CK_ATTRIBUTE_TYPE type, CK_ULONG dflt);
/* Whether a secret key's value may be read: CKA_SENSITIVE false and CKA_EXTRACTABLE true. The
 * module keeps the value of such a key (a session object) and of no other. */
bool p11_secret_readable(const struct p11_object *o);
/* Whether type is a private value of o that C_GetAttributeValue never shows (a private key's
 * private parts, which the module does not have; a secret key's value unless it is readable). */
bool p11_attr_sensitive(const struct p11_object *o, CK_ATTRIBUTE_TYPE type);
/* Whether the object matches every attribute of the template. */
bool p11_attr_match(const struct p11_object *o, const CK_ATTRIBUTE *tmpl, CK_ULONG n);
/* A template's attribute of type, or NULL; a CK_BBOOL / CK_ULONG one checked for its size. */
const CK_ATTRIBUTE *p11_tmpl_find(const CK_ATTRIBUTE *tmpl, CK_ULONG n, CK_ATTRIBUTE_TYPE type);
CK_RV p11_tmpl_bool(const CK_ATTRIBUTE *tmpl, CK_ULONG n, CK_ATTRIBUTE_TYPE type, bool *v);
CK_RV p11_tmpl_ulong(const CK_ATTRIBUTE *tmpl, CK_ULONG n, CK_ATTRIBUTE_TYPE type, CK_ULONG *v);

struct p11_object *p11_object_new(CK_SLOT_ID slot);
void p11_object_free(struct p11_object *o);
/* Give the object a handle (it joins the module's table): CKR_OK or CKR_DEVICE_MEMORY. */
CK_RV p11_object_add(struct p11_object *o);
/* A new object of session s joins the token: into the store first when it is a token object,
 * then the table (on failure its store row goes again). */
struct p11_session;
CK_RV p11_object_keep(struct p11_session *s, struct p11_object *o);
/* Out of the table (if it is there) and freed, or freed by the last release if held. */
void p11_object_drop(struct p11_object *o);
/* A new object with o's attributes and TPM blobs (not loaded, no handle, no row). */
struct p11_object *p11_object_copy(const struct p11_object *o);
/* A token object as the store has it now: its attributes read again if another process
 * changed them; CKR_OBJECT_HANDLE_INVALID (and o dropped) if it destroyed it. */
CK_RV p11_object_fresh(struct p11_object *o);
void p11_object_hold(struct p11_object *o);
void p11_object_release(struct p11_object *o);
/* The object of handle h that session s may see (private objects only when the user is logged
 * in): CKR_OBJECT_HANDLE_INVALID if none. */
CK_RV p11_object_get(const struct p11_session *s, const struct p11_token *tok,
		     CK_OBJECT_HANDLE h, struct p11_object **o);
/* The token's objects as the store has them now (objects of other processes appear, deleted
 * ones go). */
CK_RV p11_objects_sync(struct p11_token *tok);
/* Session objects of session h go with it; all objects of a slot (C_InitToken, C_Finalize). */
void p11_objects_drop_session(CK_SESSION_HANDLE h);
void p11_objects_drop_slot(CK_SLOT_ID slot);
/* After fork: the parent's objects go without a word to the TPM. */
void p11_objects_forget(void);
/* Whether session s may see o. */
bool p11_object_visible(const struct p11_session *s, const struct p11_token *tok,
			const struct p11_object *o);
extern struct p11_object *p11_objects[P11_MAX_OBJECTS];

struct p11_module {
	bool initialized;
	pid_t pid;
	struct p11_conf conf;
	struct p11_store *store;
	struct p11_token tokens[P11_MAX_TOKENS];
	size_t ntokens;
	CK_SLOT_ID empty_slot; /* 0: none (slots = conf.slots reached) */
	struct p11_session *sessions[P11_MAX_SESSIONS];
	CK_SESSION_HANDLE next_handle;
};
extern struct p11_module p11;

/* Lock the module and check it is initialized in this process (after fork it is not). */
CK_RV p11_enter(void);
/* The held connection given back (p11_conn_give_held), then the lock released. */
void p11_leave(void);
/* The module's locks: 0 the module lock, 1 + i connection i's; the application's mutexes when
 * it gave them without CKF_OS_LOCKING_OK, else pthread mutexes. */
void p11_mutex_lock(unsigned which);
void p11_mutex_unlock(unsigned which);
/* p11_leave, then rv: `return p11_done(rv);` */
CK_RV p11_done(CK_RV rv);
/* C_GetInfo of the 3.0 and 2.40 function lists (C_GetInfo itself is the 3.2 list's): the same
 * answer with that list's version as cryptokiVersion. */
CK_RV p11_get_info_30(CK_INFO_PTR pInfo);
CK_RV p11_get_info_240(CK_INFO_PTR pInfo);

/* ---- slots and tokens (slot.c) ---- */
/* Read the store's tokens again (slot list, empty slot). */
CK_RV p11_slots_refresh(void);
/* The token in slot id (refreshing once if unknown); NULL: CKR_SLOT_ID_INVALID. */
struct p11_token *p11_token_find(CK_SLOT_ID id);
/* A slot that exists: a token's or the empty one. */
bool p11_slot_valid(CK_SLOT_ID id);
/* The store, opened at first use when it exists (create: make it). */
CK_RV p11_store(bool create, struct p11_store **out);
/* Blank-padded copy of a string into a fixed-size PKCS#11 field. */
void p11_pad(CK_UTF8CHAR *dst, size_t n, const char *src);

/* ---- sessions (session.c) ---- */
/* The session of handle h: CKR_SESSION_HANDLE_INVALID if none. */
CK_RV p11_session_get(CK_SESSION_HANDLE h, struct p11_session **s, struct p11_token **tok);
/* What every function on a session starts with: p11_enter, then p11_session_get; the lock
 * released again when either fails. */
CK_RV p11_enter_session(CK_SESSION_HANDLE h, struct p11_session **s, struct p11_token **tok);
/* After a step outside the module lock: the session again (p11_session_get), or
 * CKR_SESSION_CLOSED if it was closed meanwhile (handles are never used twice). */
CK_RV p11_session_back(CK_SESSION_HANDLE h, struct p11_session **s, struct p11_token **tok);
size_t p11_session_count(CK_SLOT_ID slot, CK_FLAGS with);
void p11_session_close_all(CK_SLOT_ID slot);

/* ---- login (login.c) ---- */
/* A PIN as a zero-terminated authValue: CKR_PIN_LEN_RANGE, CKR_PIN_INVALID (a zero byte). */
CK_RV p11_pin(const CK_UTF8CHAR *pin, CK_ULONG len, char out[P11_PIN_MAX + 1]);
void p11_logout(struct p11_token *tok);

#endif
