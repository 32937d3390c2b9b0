/* An operation's collected data (C_SignUpdate, C_VerifyUpdate, C_DigestUpdate append to it), and
 * its state lent to a TPM step outside the module lock. */
#include <stdlib.h>
#include <string.h>

#include "p11.h"

#define P11_OP_MAX (64u << 20) /* what one multi-part operation may collect */

CK_RV p11_op_append(struct p11_op *op, const uint8_t *data, size_t len)
{
	if (len && !data)
		return CKR_ARGUMENTS_BAD;
	if (len > P11_OP_MAX - op->len)
		return CKR_DATA_LEN_RANGE;
	if (op->len + len > op->cap) {
		size_t cap = op->cap ? op->cap : 256;
		uint8_t *grown;

		while (cap < op->len + len)
			cap *= 2;
		grown = realloc(op->data, cap);
		if (!grown)
			return CKR_HOST_MEMORY;
		op->data = grown;
		op->cap = cap;
	}
	if (len)
		memcpy(op->data + op->len, data, len);
	op->len += len;
	return CKR_OK;
}

void p11_op_end(struct p11_op *op)
{
	if (op->data)
		explicit_bzero(op->data, op->cap);
	free(op->data);
	memset(op, 0, sizeof(*op));
}

void p11_op_lend(struct p11_op *op, struct p11_op *mine)
{
	*mine = *op;
	op->data = NULL;
	op->len = op->cap = 0;
	op->busy = true;
}

void p11_op_back(struct p11_op *op, struct p11_op *mine)
{
	*op = *mine;
	op->busy = false;
	memset(mine, 0, sizeof(*mine));
}
