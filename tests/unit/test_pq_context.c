/* ContextSave / ContextLoad of post-quantum keys (core/cmd/context.c, core/context_blob.c):
 * the largest objects the TPM holds. An ML-DSA-87 key (public key 2,592 bytes) and ML-KEM-1024
 * keys (1,568 bytes) leave as contexts larger than a classic TPM's, come back with the same
 * Name, and still work: the ML-DSA key signs (its expanded-key cache is not in the context),
 * the ML-KEM key decapsulates what was encapsulated before the save, and an ML-KEM storage
 * parent loads the children it had before. */
#include <string.h>

#include <CUnit/Basic.h>

#include "crypto/mldsa.h"
#include "crypto/mlkem.h"
#include "pq_util.h"
#include "unit_main.h"

static struct harness h;
static const uint8_t msg[] = "saved, flushed, loaded, and still signing";
#define MSGLEN ((uint16_t)(sizeof(msg) - 1))

static void setup(void)
{
	harness_open(&h);
}

static void teardown(void)
{
	harness_close(&h);
}

/* ContextSave, FlushContext, ContextLoad; the blob's size in *blob_size. */
static void save_load(TPM_HANDLE *handle, size_t *blob_size)
{
	static struct tpms_context ctx;
	struct cmdbuf b;
	struct rd rsp;

	cmd_begin(&b, TPM_CC_ContextSave);
	cmd_handle(&b, *handle);
	CU_ASSERT_EQUAL_FATAL(harness_run(&h, &b, &rsp, NULL), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(rd_context(&rsp, &ctx), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(rd_left(&rsp), 0);
	*blob_size = ctx.blob_size;
	CU_ASSERT_EQUAL_FATAL(pq_flush(&h, *handle), TPM_RC_SUCCESS);
	cmd_begin(&b, TPM_CC_ContextLoad);
	wr_context(&b.params, &ctx);
	CU_ASSERT_EQUAL_FATAL(harness_run(&h, &b, NULL, handle), TPM_RC_SUCCESS);
}

static void read_name(TPM_HANDLE handle, struct tpm2b_name *name)
{
	struct tpmt_public pub;
	struct cmdbuf b;
	struct rd rsp;

	cmd_begin(&b, TPM_CC_ReadPublic);
	cmd_handle(&b, handle);
	CU_ASSERT_EQUAL_FATAL(harness_run(&h, &b, &rsp, NULL), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(rd_tpm2b_public(&rsp, &pub), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(rd_tpm2b_name(&rsp, name), TPM_RC_SUCCESS);
}

static void sign_verify(TPM_HANDLE key, const struct pq_key *verifier)
{
	struct tpmt_signature sig;
	struct tpmt_ticket t;
	TPM_HANDLE seq;

	CU_ASSERT_EQUAL_FATAL(pq_sign_start(&h, key, "k", NULL, 0, &seq), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(pq_sign_complete(&h, seq, "k", key, "k", msg, MSGLEN, &sig),
			      TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(sig.size, mldsa_sig_bytes(TPM_MLDSA_87));
	CU_ASSERT_EQUAL_FATAL(pq_verify_start(&h, verifier->handle, "", NULL, 0, &seq),
			      TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(pq_update(&h, seq, "", msg, MSGLEN), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(pq_verify_complete(&h, seq, "", verifier->handle, &sig, &t),
			TPM_RC_SUCCESS);
}

static void test_mldsa87(void)
{
	struct tpmt_public t;
	struct pq_key k, pub;
	struct tpm2b_name name;
	size_t size = 0;

	pq_tmpl(&t, TPM_ALG_MLDSA, TPM_MLDSA_87, TPMA_OBJECT_SIGN_ENCRYPT);
	CU_ASSERT_EQUAL_FATAL(pq_primary(&h, TPM_RH_OWNER, &t, "k", &k), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(pq_load_public(&h, &k.pub, &pub), TPM_RC_SUCCESS);
	/* signed once before the save: the expanded key is cached in the loaded object */
	sign_verify(k.handle, &pub);
	save_load(&k.handle, &size);
	CU_ASSERT(size > mldsa_pk_bytes(TPM_MLDSA_87));
	CU_ASSERT(size <= MAX_CONTEXT_BLOB);
	read_name(k.handle, &name);
	CU_ASSERT(name.size == k.name.size && memcmp(name.b, k.name.b, name.size) == 0);
	sign_verify(k.handle, &pub);
	/* twice more: a context of a context-loaded key */
	save_load(&k.handle, &size);
	save_load(&k.handle, &size);
	sign_verify(k.handle, &pub);
	CU_ASSERT_EQUAL(pq_flush(&h, k.handle), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(pq_flush(&h, pub.handle), TPM_RC_SUCCESS);
}

static void test_mlkem1024(void)
{
	uint8_t ss[32], ss2[32], ct[MLKEM_MAX_CT_BYTES];
	struct tpm2b_name name;
	struct tpmt_public t;
	uint16_t ctlen = 0;
	struct pq_key k;
	size_t size = 0;

	pq_tmpl(&t, TPM_ALG_MLKEM, TPM_MLKEM_1024, TPMA_OBJECT_DECRYPT);
	CU_ASSERT_EQUAL_FATAL(pq_primary(&h, TPM_RH_OWNER, &t, "k", &k), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(pq_encapsulate(&h, k.handle, ss, ct, &ctlen), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(ctlen, mlkem_ct_bytes(TPM_MLKEM_1024));
	save_load(&k.handle, &size);
	CU_ASSERT(size > mlkem_ek_bytes(TPM_MLKEM_1024));
	read_name(k.handle, &name);
	CU_ASSERT(name.size == k.name.size && memcmp(name.b, k.name.b, name.size) == 0);
	CU_ASSERT_EQUAL_FATAL(pq_decapsulate(&h, k.handle, "k", ct, ctlen, ss2), TPM_RC_SUCCESS);
	CU_ASSERT(memcmp(ss, ss2, sizeof(ss)) == 0);
	CU_ASSERT_EQUAL(pq_flush(&h, k.handle), TPM_RC_SUCCESS);
}

/* An ML-KEM-1024 storage parent and its ML-DSA-87 child, both saved and loaded: the child
 * signs, and the parent still makes and loads new children. */
static void test_storage_parent(void)
{
	struct tpmt_public t;
	struct pq_key parent, child, other, pub;
	size_t size = 0;

	pq_tmpl(&t, TPM_ALG_MLKEM, TPM_MLKEM_1024, PQ_STORAGE);
	CU_ASSERT_EQUAL_FATAL(pq_primary(&h, TPM_RH_OWNER, &t, "", &parent), TPM_RC_SUCCESS);
	pq_tmpl(&t, TPM_ALG_MLDSA, TPM_MLDSA_87, TPMA_OBJECT_SIGN_ENCRYPT);
	CU_ASSERT_EQUAL_FATAL(pq_create_load(&h, parent.handle, &t, "k", &child),
			      TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(pq_load_public(&h, &child.pub, &pub), TPM_RC_SUCCESS);
	save_load(&parent.handle, &size);
	save_load(&child.handle, &size);
	sign_verify(child.handle, &pub);
	CU_ASSERT_EQUAL_FATAL(pq_create_load(&h, parent.handle, &t, "k", &other),
			      TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(pq_flush(&h, other.handle), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(pq_flush(&h, child.handle), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(pq_flush(&h, pub.handle), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(pq_flush(&h, parent.handle), TPM_RC_SUCCESS);
}

int main(void)
{
	static const struct unit_test tests[] = {
		{ "ML-DSA-87 key", test_mldsa87 },
		{ "ML-KEM-1024 key", test_mlkem1024 },
		{ "ML-KEM-1024 storage parent and ML-DSA-87 child", test_storage_parent },
	};

	return UNIT_RUN("pq_context", tests, setup, teardown);
}
