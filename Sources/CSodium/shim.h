// libsodium (Debian's libsodium-dev): Ed25519 and BLAKE2b for signed content sync manifests
// (minisign's format).
#include <sodium.h>
