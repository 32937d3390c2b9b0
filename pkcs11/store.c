/* The token store: one SQLite database (pkcs11.db) in the store directory, in WAL mode with a
 * busy timeout so that several processes share it; every change is one short transaction.
 * The directory is 0700, the database and its journal files 0600. A database that is not a
 * token store, a damaged one, or one seen through the WAL of another database is refused
 * without a write (never emptied). */
#include <errno.h>
#include <fcntl.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "p11.h"

#define STORE_FILE "pkcs11.db"
#define BUSY_TIMEOUT_MS 10000
/* the database header's "user version" (offset 60, big-endian): the store's random id, 1 to
 * 2^31 - 1 (SQLite's user_version is a signed 32-bit integer) */
#define HEADER_ID_OFFSET 60

struct p11_store {
	sqlite3 *db;
};

static const char SCHEMA[] =
	"BEGIN IMMEDIATE;"
	"CREATE TABLE IF NOT EXISTS tokens (id INTEGER PRIMARY KEY, label BLOB NOT NULL, "
	"serial TEXT NOT NULL, so_pub BLOB NOT NULL, so_priv BLOB NOT NULL, user_pub BLOB, "
	"user_priv BLOB);"
	"CREATE TABLE IF NOT EXISTS objects (id INTEGER PRIMARY KEY, token INTEGER NOT NULL, "
	"tpm_pub BLOB, tpm_priv BLOB, gen INTEGER NOT NULL DEFAULT 0);"
	"CREATE TABLE IF NOT EXISTS attributes (object INTEGER NOT NULL, type INTEGER NOT NULL, "
	"value BLOB, PRIMARY KEY (object, type));";

static int db_path(const char *dir, char *out, size_t cap)
{
	int n = snprintf(out, cap, "%s/" STORE_FILE, dir);

	return n > 0 && (size_t)n < cap ? 0 : -ENAMETOOLONG;
}

bool p11_store_exists(const char *dir)
{
	char path[P11_PATH_MAX + 16];
	struct stat st;

	return db_path(dir, path, sizeof(path)) == 0 && stat(path, &st) == 0;
}

static CK_RV db_error(struct p11_store *s, const char *what)
{
	p11_log(P11_LOG_ERROR, "token store: %s: %s", what, sqlite3_errmsg(s->db));
	return CKR_DEVICE_ERROR;
}

static CK_RV exec(struct p11_store *s, const char *sql)
{
	return sqlite3_exec(s->db, sql, NULL, NULL, NULL) == SQLITE_OK ? CKR_OK : db_error(s, sql);
}

/* The database file itself first, so that it is 0600 whatever the umask (SQLite gives its
 * -wal and -shm files the database's permissions). */
static int make_files(const char *dir, const char *path)
{
	int fd;

	if (mkdir(dir, 0700) != 0 && errno != EEXIST)
		return -errno;
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

/* One integer a query answers (its first column), or -1. */
static sqlite3_int64 query_int(struct p11_store *s, const char *sql)
{
	sqlite3_int64 v = -1;
	sqlite3_stmt *st;

	if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK)
		return -1;
	if (sqlite3_step(st) == SQLITE_ROW)
		v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return v;
}

/* The store's id as the database file itself has it, read through SQLite's own file handle
 * (another descriptor's close would drop SQLite's POSIX locks): 0 if the file has none yet. */
static uint32_t file_id(struct p11_store *s)
{
	sqlite3_file *f = NULL;
	uint8_t b[4] = { 0 };

	if (sqlite3_file_control(s->db, "main", SQLITE_FCNTL_FILE_POINTER, &f) != SQLITE_OK ||
	    !f || !f->pMethods ||
	    f->pMethods->xRead(f, b, sizeof(b), HEADER_ID_OFFSET) != SQLITE_OK)
		return 0;
	return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
}

/* The tables and id of the database as SQLite sees it (the file with its WAL applied): a new,
 * empty database gets the tables and an id; a token store must have its tables, and the id
 * its file has (once a checkpoint wrote one), else the WAL is another database's. */
static CK_RV check_store(struct p11_store *s, const char *path)
{
	/* the file's first: a checkpoint of another process may give it the id meanwhile */
	uint32_t on_file = file_id(s);
	sqlite3_int64 tables = query_int(s, "SELECT count(*) FROM sqlite_master "
					    "WHERE type = 'table'");
	sqlite3_int64 ours = query_int(s, "SELECT count(*) FROM sqlite_master WHERE type = 'table' "
					  "AND name IN ('tokens', 'objects', 'attributes')");
	sqlite3_int64 id = query_int(s, "PRAGMA user_version;");
	char sql[64];
	uint32_t fresh;

	if (tables < 0 || ours < 0 || id < 0)
		return db_error(s, path);
	if (tables != 0 && ours != 3) {
		p11_log(P11_LOG_ERROR, "token store %s: not a token store (%lld tables, %lld ours)",
			path, (long long)tables, (long long)ours);
		return CKR_DEVICE_ERROR;
	}
	if (on_file != 0 && on_file != (uint32_t)id) {
		p11_log(P11_LOG_ERROR,
			"token store %s: its WAL is another database's (id %08x, the file's %08x)",
			path, (unsigned)id, on_file);
		return CKR_DEVICE_ERROR;
	}
	if (tables == 3 && id != 0)
		return CKR_OK;
	/* a new store, or one from before ids: its tables and an id (unless another process was
	 * first: the transaction waits for it) */
	do {
		sqlite3_randomness(sizeof(fresh), &fresh);
		fresh &= 0x7FFFFFFFu;
	} while (fresh == 0);
	snprintf(sql, sizeof(sql), "PRAGMA user_version = %u;", fresh);
	if (exec(s, SCHEMA) != CKR_OK)
		return CKR_DEVICE_ERROR;
	if ((query_int(s, "PRAGMA user_version;") == 0 && exec(s, sql) != CKR_OK) ||
	    exec(s, "COMMIT;") != CKR_OK) {
		exec(s, "ROLLBACK;");
		return CKR_DEVICE_ERROR;
	}
	return CKR_OK;
}

/* A refused store is closed as it is: whatever its WAL holds stays there (no checkpoint). */
static void close_refused(struct p11_store *s)
{
	sqlite3_db_config(s->db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, NULL);
	p11_store_close(s);
}

/* Whether the objects table has its generation column. */
static bool has_gen(struct p11_store *s)
{
	sqlite3_stmt *st;

	if (sqlite3_prepare_v2(s->db, "SELECT gen FROM objects LIMIT 0", -1, &st, NULL) !=
	    SQLITE_OK)
		return false;
	sqlite3_finalize(st);
	return true;
}

/* A store made before objects had a generation (the count of their attribute updates) gets
 * the column, each object at 0: once, in a transaction, when two processes open it at once. */
static CK_RV add_gen(struct p11_store *s)
{
	CK_RV rv;

	if (has_gen(s))
		return CKR_OK;
	rv = exec(s, "BEGIN IMMEDIATE;");
	if (rv != CKR_OK)
		return rv;
	if (!has_gen(s))
		rv = exec(s, "ALTER TABLE objects ADD COLUMN gen INTEGER NOT NULL DEFAULT 0;");
	if (rv == CKR_OK)
		rv = exec(s, "COMMIT;");
	if (rv != CKR_OK)
		exec(s, "ROLLBACK;");
	return rv;
}

CK_RV p11_store_open(const char *dir, bool create, struct p11_store **out)
{
	char path[P11_PATH_MAX + 16];
	struct p11_store *s;
	int err;

	if (db_path(dir, path, sizeof(path)) != 0)
		return CKR_DEVICE_ERROR;
	if (create && (err = make_files(dir, path)) != 0) {
		p11_log(P11_LOG_ERROR, "token store %s: %s", path, strerror(-err));
		return CKR_DEVICE_ERROR;
	}
	s = calloc(1, sizeof(*s));
	if (!s)
		return CKR_HOST_MEMORY;
	if (sqlite3_open_v2(path, &s->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_FULLMUTEX, NULL) !=
	    SQLITE_OK) {
		CK_RV rv = db_error(s, path);

		close_refused(s);
		return rv;
	}
	sqlite3_busy_timeout(s->db, BUSY_TIMEOUT_MS);
	if (exec(s, "PRAGMA journal_mode=WAL;") != CKR_OK ||
	    exec(s, "PRAGMA synchronous=FULL;") != CKR_OK || check_store(s, path) != CKR_OK ||
	    add_gen(s) != CKR_OK) {
		close_refused(s);
		return CKR_DEVICE_ERROR;
	}
	*out = s;
	return CKR_OK;
}

void p11_store_close(struct p11_store *s)
{
	if (!s)
		return;
	sqlite3_close(s->db);
	free(s);
}

CK_RV p11_store_token_ids(struct p11_store *s, CK_SLOT_ID *ids, size_t cap, size_t *n)
{
	sqlite3_stmt *st;
	int rc;

	*n = 0;
	if (sqlite3_prepare_v2(s->db, "SELECT id FROM tokens ORDER BY id", -1, &st, NULL) !=
	    SQLITE_OK)
		return db_error(s, "list tokens");
	while ((rc = sqlite3_step(st)) == SQLITE_ROW && *n < cap)
		ids[(*n)++] = (CK_SLOT_ID)sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? CKR_OK : db_error(s, "list tokens");
}

static CK_RV column_blob(sqlite3_stmt *st, int col, uint8_t *dst, size_t cap, size_t *len)
{
	int n = sqlite3_column_bytes(st, col);
	const void *b = sqlite3_column_blob(st, col);

	if (n < 0 || (size_t)n > cap)
		return CKR_DEVICE_ERROR;
	if (n)
		memcpy(dst, b, (size_t)n);
	*len = (size_t)n;
	return CKR_OK;
}

CK_RV p11_store_token_get(struct p11_store *s, CK_SLOT_ID id, struct p11_token_row *row)
{
	size_t label_len, serial_len;
	sqlite3_stmt *st;
	CK_RV rv = CKR_OK;
	int rc;

	if (sqlite3_prepare_v2(s->db,
			       "SELECT label, serial, so_pub, so_priv, user_pub, user_priv "
			       "FROM tokens WHERE id = ?",
			       -1, &st, NULL) != SQLITE_OK)
		return db_error(s, "read token");
	sqlite3_bind_int64(st, 1, (sqlite3_int64)id);
	rc = sqlite3_step(st);
	memset(row, 0, sizeof(*row));
	row->id = id;
	if (rc == SQLITE_ROW) {
		if (column_blob(st, 0, row->label, sizeof(row->label), &label_len) != CKR_OK ||
		    label_len != sizeof(row->label) ||
		    column_blob(st, 1, (uint8_t *)row->serial, sizeof(row->serial) - 1,
				&serial_len) ||
		    column_blob(st, 2, row->so_pub.b, sizeof(row->so_pub.b), &row->so_pub.len) ||
		    column_blob(st, 3, row->so_priv.b, sizeof(row->so_priv.b), &row->so_priv.len) ||
		    column_blob(st, 4, row->user_pub.b, sizeof(row->user_pub.b),
				&row->user_pub.len) ||
		    column_blob(st, 5, row->user_priv.b, sizeof(row->user_priv.b),
				&row->user_priv.len)) {
			p11_log(P11_LOG_ERROR, "token store: token %lu: a damaged row", id);
			rv = CKR_DEVICE_ERROR;
		}
	} else if (rc == SQLITE_DONE) {
		rv = CKR_SLOT_ID_INVALID;
	} else {
		rv = db_error(s, "read token");
	}
	sqlite3_finalize(st);
	return rv;
}

static void bind_blob(sqlite3_stmt *st, int i, const struct p11_blob *b)
{
	if (b->len)
		sqlite3_bind_blob(st, i, b->b, (int)b->len, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(st, i);
}

static CK_RV write_token(struct p11_store *s, const char *sql, const struct p11_token_row *row)
{
	sqlite3_stmt *st;
	int rc;

	if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK)
		return db_error(s, "write token");
	sqlite3_bind_int64(st, 1, (sqlite3_int64)row->id);
	sqlite3_bind_blob(st, 2, row->label, sizeof(row->label), SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 3, row->serial, (int)strnlen(row->serial, sizeof(row->serial)),
			  SQLITE_TRANSIENT);
	bind_blob(st, 4, &row->so_pub);
	bind_blob(st, 5, &row->so_priv);
	bind_blob(st, 6, &row->user_pub);
	bind_blob(st, 7, &row->user_priv);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	if (rc == SQLITE_CONSTRAINT)
		return CKR_SLOT_ID_INVALID;
	return rc == SQLITE_DONE ? CKR_OK : db_error(s, "write token");
}

CK_RV p11_store_token_insert(struct p11_store *s, const struct p11_token_row *row)
{
	return write_token(s, "INSERT INTO tokens VALUES (?, ?, ?, ?, ?, ?, ?)", row);
}

/* A token initialized again: its new row and none of its objects, in one transaction. */
CK_RV p11_store_token_replace(struct p11_store *s, const struct p11_token_row *row)
{
	char sql[256];
	CK_RV rv = exec(s, "BEGIN IMMEDIATE;");

	if (rv != CKR_OK)
		return rv;
	snprintf(sql, sizeof(sql),
		 "DELETE FROM attributes WHERE object IN (SELECT id FROM objects WHERE token = %lu);"
		 "DELETE FROM objects WHERE token = %lu;",
		 (unsigned long)row->id, (unsigned long)row->id);
	rv = exec(s, sql);
	if (rv == CKR_OK)
		rv = write_token(s, "INSERT OR REPLACE INTO tokens VALUES (?, ?, ?, ?, ?, ?, ?)",
				 row);
	if (rv == CKR_OK)
		return exec(s, "COMMIT;");
	exec(s, "ROLLBACK;");
	return rv;
}

static CK_RV update_blobs(struct p11_store *s, const char *sql, CK_SLOT_ID id,
			  const struct p11_blob *a, const struct p11_blob *b)
{
	sqlite3_stmt *st;
	int rc, i = 1;

	if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK)
		return db_error(s, "update token");
	bind_blob(st, i++, a);
	if (b)
		bind_blob(st, i++, b);
	sqlite3_bind_int64(st, i, (sqlite3_int64)id);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? CKR_OK : db_error(s, "update token");
}

CK_RV p11_store_token_set_user(struct p11_store *s, CK_SLOT_ID id, const struct p11_blob *pub,
			       const struct p11_blob *priv)
{
	return update_blobs(s, "UPDATE tokens SET user_pub = ?, user_priv = ? WHERE id = ?", id,
			    pub, priv);
}

CK_RV p11_store_token_set_so(struct p11_store *s, CK_SLOT_ID id, const struct p11_blob *priv)
{
	return update_blobs(s, "UPDATE tokens SET so_priv = ? WHERE id = ?", id, priv, NULL);
}

CK_RV p11_store_object_rows(struct p11_store *s, CK_SLOT_ID id, struct p11_store_row **rows,
			    size_t *n)
{
	size_t cap = 16;
	sqlite3_stmt *st;
	int rc;

	*n = 0;
	*rows = malloc(cap * sizeof(**rows));
	if (!*rows)
		return CKR_HOST_MEMORY;
	if (sqlite3_prepare_v2(s->db, "SELECT id, gen FROM objects WHERE token = ? ORDER BY id",
			       -1, &st, NULL) != SQLITE_OK) {
		free(*rows);
		*rows = NULL;
		return db_error(s, "list objects");
	}
	sqlite3_bind_int64(st, 1, (sqlite3_int64)id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (*n == cap) {
			struct p11_store_row *grown = realloc(*rows, 2 * cap * sizeof(*grown));

			if (!grown) {
				rc = SQLITE_NOMEM;
				break;
			}
			*rows = grown;
			cap *= 2;
		}
		(*rows)[*n].row = sqlite3_column_int64(st, 0);
		(*rows)[(*n)++].gen = sqlite3_column_int64(st, 1);
	}
	sqlite3_finalize(st);
	if (rc == SQLITE_DONE)
		return CKR_OK;
	free(*rows);
	*rows = NULL;
	*n = 0;
	return rc == SQLITE_NOMEM ? CKR_HOST_MEMORY : db_error(s, "list objects");
}

static CK_RV load_blob(sqlite3_stmt *st, int col, struct p11_blob **out)
{
	CK_RV rv;

	if (sqlite3_column_type(st, col) == SQLITE_NULL)
		return CKR_OK;
	*out = calloc(1, sizeof(**out));
	if (!*out)
		return CKR_HOST_MEMORY;
	rv = column_blob(st, col, (*out)->b, sizeof((*out)->b), &(*out)->len);
	return rv;
}

CK_RV p11_store_object_load(struct p11_store *s, int64_t row, struct p11_object *o)
{
	sqlite3_stmt *st;
	CK_RV rv = CKR_OK;
	int rc;

	if (sqlite3_prepare_v2(s->db, "SELECT tpm_pub, tpm_priv, gen FROM objects WHERE id = ?",
			       -1, &st, NULL) != SQLITE_OK)
		return db_error(s, "read object");
	sqlite3_bind_int64(st, 1, row);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		rv = load_blob(st, 0, &o->tpm_pub);
		if (rv == CKR_OK)
			rv = load_blob(st, 1, &o->tpm_priv);
		o->gen = sqlite3_column_int64(st, 2);
	} else {
		rv = rc == SQLITE_DONE ? CKR_OBJECT_HANDLE_INVALID : db_error(s, "read object");
	}
	sqlite3_finalize(st);
	if (rv != CKR_OK)
		return rv;
	if (sqlite3_prepare_v2(s->db, "SELECT type, value FROM attributes WHERE object = ?", -1,
			       &st, NULL) != SQLITE_OK)
		return db_error(s, "read attributes");
	sqlite3_bind_int64(st, 1, row);
	while (rv == CKR_OK && (rc = sqlite3_step(st)) == SQLITE_ROW)
		rv = p11_attr_set(o, (CK_ATTRIBUTE_TYPE)sqlite3_column_int64(st, 0),
				  sqlite3_column_blob(st, 1),
				  (CK_ULONG)sqlite3_column_bytes(st, 1));
	if (rv == CKR_OK && rc != SQLITE_DONE)
		rv = db_error(s, "read attributes");
	sqlite3_finalize(st);
	if (rv == CKR_OK && !p11_attr_find(o, CKA_CLASS)) {
		p11_log(P11_LOG_ERROR, "token store: object %lld has no class", (long long)row);
		rv = CKR_DEVICE_ERROR;
	}
	o->row = row;
	return rv;
}

/* The object's attributes as rows of o->row (which has none). */
static CK_RV add_attrs(struct p11_store *s, const struct p11_object *o)
{
	/* a secret key's value lives in the TPM's blob, never here in the clear */
	bool secret = p11_attr_ulong(o, CKA_CLASS, 0) == CKO_SECRET_KEY;
	sqlite3_stmt *st;
	size_t i;

	if (sqlite3_prepare_v2(s->db, "INSERT INTO attributes VALUES (?, ?, ?)", -1, &st,
			       NULL) != SQLITE_OK)
		return db_error(s, "add attributes");
	for (i = 0; i < o->nattrs; i++) {
		if (secret && o->attrs[i].type == CKA_VALUE)
			continue;
		sqlite3_reset(st);
		sqlite3_bind_int64(st, 1, o->row);
		sqlite3_bind_int64(st, 2, (sqlite3_int64)o->attrs[i].type);
		sqlite3_bind_blob(st, 3, o->attrs[i].value, (int)o->attrs[i].len,
				  SQLITE_TRANSIENT);
		if (sqlite3_step(st) != SQLITE_DONE) {
			sqlite3_finalize(st);
			return db_error(s, "add attributes");
		}
	}
	sqlite3_finalize(st);
	return CKR_OK;
}

static CK_RV add_rows(struct p11_store *s, struct p11_object *o)
{
	sqlite3_stmt *st;
	int rc;

	if (sqlite3_prepare_v2(s->db, "INSERT INTO objects (token, tpm_pub, tpm_priv) "
				      "VALUES (?, ?, ?)",
			       -1, &st, NULL) != SQLITE_OK)
		return db_error(s, "add object");
	sqlite3_bind_int64(st, 1, (sqlite3_int64)o->slot);
	if (o->tpm_pub)
		bind_blob(st, 2, o->tpm_pub);
	if (o->tpm_priv)
		bind_blob(st, 3, o->tpm_priv);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return db_error(s, "add object");
	o->row = sqlite3_last_insert_rowid(s->db);
	o->gen = 0;
	return add_attrs(s, o);
}

CK_RV p11_store_object_add(struct p11_store *s, struct p11_object *o)
{
	CK_RV rv = exec(s, "BEGIN IMMEDIATE;");

	if (rv != CKR_OK)
		return rv;
	rv = add_rows(s, o);
	if (rv == CKR_OK)
		rv = exec(s, "COMMIT;");
	if (rv != CKR_OK) {
		exec(s, "ROLLBACK;");
		o->row = 0;
	}
	return rv;
}

CK_RV p11_store_object_delete(struct p11_store *s, int64_t row)
{
	char sql[160];

	snprintf(sql, sizeof(sql),
		 "BEGIN IMMEDIATE; DELETE FROM attributes WHERE object = %lld;"
		 "DELETE FROM objects WHERE id = %lld; COMMIT;",
		 (long long)row, (long long)row);
	if (exec(s, sql) == CKR_OK)
		return CKR_OK;
	exec(s, "ROLLBACK;");
	return CKR_DEVICE_ERROR;
}

/* One statement on object row; CKR_OBJECT_HANDLE_INVALID if it changed nothing (the object is
 * gone). */
static CK_RV object_step(struct p11_store *s, const char *sql, int64_t row)
{
	sqlite3_stmt *st;
	int rc;

	if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK)
		return db_error(s, "update object");
	sqlite3_bind_int64(st, 1, row);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return db_error(s, "update object");
	return sqlite3_changes(s->db) ? CKR_OK : CKR_OBJECT_HANDLE_INVALID;
}

CK_RV p11_store_object_update(struct p11_store *s, struct p11_object *o)
{
	CK_RV rv = exec(s, "BEGIN IMMEDIATE;");

	if (rv != CKR_OK)
		return rv;
	rv = object_step(s, "UPDATE objects SET gen = gen + 1 WHERE id = ?", o->row);
	if (rv == CKR_OK)
		rv = object_step(s, "DELETE FROM attributes WHERE object = ?", o->row);
	if (rv == CKR_OK)
		rv = add_attrs(s, o);
	if (rv == CKR_OK)
		rv = exec(s, "COMMIT;");
	if (rv != CKR_OK) {
		exec(s, "ROLLBACK;");
		return rv;
	}
	return p11_store_object_gen(s, o->row, &o->gen);
}

CK_RV p11_store_object_gen(struct p11_store *s, int64_t row, int64_t *gen)
{
	sqlite3_stmt *st;
	CK_RV rv;
	int rc;

	if (sqlite3_prepare_v2(s->db, "SELECT gen FROM objects WHERE id = ?", -1, &st, NULL) !=
	    SQLITE_OK)
		return db_error(s, "read object");
	sqlite3_bind_int64(st, 1, row);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		*gen = sqlite3_column_int64(st, 0);
		rv = CKR_OK;
	} else {
		rv = rc == SQLITE_DONE ? CKR_OBJECT_HANDLE_INVALID : db_error(s, "read object");
	}
	sqlite3_finalize(st);
	return rv;
}
