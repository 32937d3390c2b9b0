/* Names (Part 1 §16): an object's Name is nameAlg || H_nameAlg(TPMT_PUBLIC); its Qualified
 * Name is nameAlg || H_nameAlg(parent QN || Name), and a hierarchy's QN is its handle. */
#include <string.h>

#include "object.h"

#define MAX_PUBLIC_BYTES 3072 /* TPMT_PUBLIC with an ML-DSA-87 key is about 2700 */

static void put_alg(uint8_t *p, TPM_ALG_ID alg)
{
	p[0] = (uint8_t)(alg >> 8);
	p[1] = (uint8_t)alg;
}

/* A NULL nameAlg (LoadExternal of a public key) gives the empty Name. */
TPM_RC object_name(const struct tpmt_public *pub, struct tpm2b_name *name)
{
	uint8_t buf[MAX_PUBLIC_BYTES];
	size_t dlen = crypto_hash_size(pub->name_alg);
	struct wr w;

	name->size = 0;
	if (pub->name_alg == TPM_ALG_NULL)
		return TPM_RC_SUCCESS;
	if (dlen == 0)
		return TPM_RC_HASH;
	wr_init(&w, buf, sizeof(buf));
	TRY(wr_public(&w, pub));
	put_alg(name->b, pub->name_alg);
	TRY(crypto_hash(pub->name_alg, buf, w.off, name->b + 2));
	name->size = (uint16_t)(2 + dlen);
	return TPM_RC_SUCCESS;
}

TPM_RC object_qualified_name(const struct tpm2b_name *parent_qn, const struct tpm2b_name *name,
			     TPM_ALG_ID name_alg, struct tpm2b_name *out)
{
	struct crypto_hash_ctx h;
	size_t dlen = crypto_hash_size(name_alg);

	out->size = 0;
	if (name_alg == TPM_ALG_NULL)
		return TPM_RC_SUCCESS;
	if (dlen == 0)
		return TPM_RC_HASH;
	TRY(crypto_hash_start(&h, name_alg));
	TRY(crypto_hash_update(&h, parent_qn->b, parent_qn->size));
	TRY(crypto_hash_update(&h, name->b, name->size));
	put_alg(out->b, name_alg);
	TRY(crypto_hash_finish(&h, out->b + 2));
	out->size = (uint16_t)(2 + dlen);
	return TPM_RC_SUCCESS;
}

void object_hierarchy_qn(TPM_HANDLE hierarchy, struct tpm2b_name *out)
{
	out->b[0] = (uint8_t)(hierarchy >> 24);
	out->b[1] = (uint8_t)(hierarchy >> 16);
	out->b[2] = (uint8_t)(hierarchy >> 8);
	out->b[3] = (uint8_t)hierarchy;
	out->size = 4;
}

TPM_RC object_set_names(struct object *o, const struct object *parent)
{
	struct tpm2b_name hier;
	const struct tpm2b_name *pqn = &hier;

	TRY(object_name(&o->pub, &o->name));
	if (parent)
		pqn = &parent->qualified_name;
	else
		object_hierarchy_qn(o->hierarchy, &hier);
	return object_qualified_name(pqn, &o->name, o->pub.name_alg, &o->qualified_name);
}
