#!/usr/bin/env bash
# peers.sh - fetches llama.cpp's prebuilt CPU libraries for the llamacpp.* peer
# variants (issue 15): `npm pack` of one pinned npm package, checksum verified
# against the pin in the Makefile, unpacked into an ignored directory.  Nothing
# of it is committed; mpbench loads it at run time and works without it.
#
# Environment (set by `make peers`): GGML_PKG (name@version), GGML_SHA1,
# GGML_SHA512 (hex), GGML_DIR (destination).  Exit 0 when the directory holds
# the verified package, non-zero with a message otherwise; an existing good
# copy is left alone.
set -euo pipefail
. "$(dirname "$0")/npm-pinned.sh"
: "${GGML_PKG:?}" "${GGML_SHA1:?}" "${GGML_SHA512:?}" "${GGML_DIR:?}"

if [ -f "$GGML_DIR/.sha512" ] && [ "$(cat "$GGML_DIR/.sha512")" = "$GGML_SHA512" ] &&
   [ -f "$GGML_DIR/libggml-base.so" ]; then
    echo "peers: $GGML_PKG already in $GGML_DIR"
    exit 0
fi
if ! command -v npm >/dev/null 2>&1; then
    echo "peers: npm not found (make deps installs it); the llamacpp.* variants stay unavailable" >&2
    exit 1
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
npm_pinned peers "$GGML_PKG" "$GGML_SHA1" "$GGML_SHA512" "$tmp" || exit 1
mkdir "$tmp/x"
tar -xzf "$tgz" -C "$tmp/x"
bins="$tmp/x/package/bins/linux-x64"
if [ ! -f "$bins/libggml-base.so" ]; then
    echo "peers: $GGML_PKG has no bins/linux-x64/libggml-base.so; nothing installed" >&2
    exit 1
fi
# the libraries flat in GGML_DIR (their RUNPATH is $ORIGIN), with the package's
# metadata; replaced as a whole so a failed fetch never leaves half a directory
new="$GGML_DIR.new.$$"
rm -rf "$new"
mkdir -p "$new"
cp "$bins"/*.so "$bins"/_nlcBuildMetadata.json "$new"/  # ggml, its CPU builds, libllama (GGUF tests)
cp "$tmp/x/package/package.json" "$tmp/x/package/LICENSE" "$new"/
echo "$GGML_SHA512" >"$new/.sha512"
rm -rf "$GGML_DIR"
mkdir -p "$(dirname "$GGML_DIR")"
mv "$new" "$GGML_DIR"
echo "peers: $GGML_PKG (sha1 $sha1) unpacked into $GGML_DIR"
