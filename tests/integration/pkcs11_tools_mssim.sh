#!/bin/bash
# pkcs11_tools.sh's client checks with the module over a pqtpm-server (tpm = mssim:...) instead
# of its embedded engine.
PKCS11_TPM=mssim exec "$(dirname "$0")/pkcs11_tools.sh"
