#!/usr/bin/env bash
# peers-hf.sh - fetches @huggingface/gguf, the independent GGUF parser that
# tests/test_gguf_hf.c holds our writer's files against (issue 39), and its one
# runtime dependency @huggingface/tasks (it takes the GGML type enums from it),
# the way peers.sh fetches the llama.cpp peer: `npm pack` of each pinned
# package, checksums verified against the pins in the Makefile, unpacked into
# an ignored directory as node_modules/NAME, so that Node resolves the
# dependency from the parser without npm install (which would resolve ranges).
# Nothing of it is committed; without it the test skips with the reason.
#
# Environment (set by `make peers`): HF_GGUF_DIR (destination) and HF_GGUF_PINS,
# one "name@version sha1 sha512" per package (sha512 in hex), separated by ';'.
# Exit 0 when the directory holds every verified package, non-zero with a
# message otherwise; an existing good copy is left alone, a failed fetch
# never leaves half a directory.
set -euo pipefail
. "$(dirname "$0")/npm-pinned.sh"
: "${HF_GGUF_DIR:?}" "${HF_GGUF_PINS:?}"

stamp=$(printf '%s\n' "$HF_GGUF_PINS" | tr ';' '\n' | sed 's/^ *//;s/ *$//')
if [ -f "$HF_GGUF_DIR/.pins" ] && [ "$(cat "$HF_GGUF_DIR/.pins")" = "$stamp" ]; then
    echo "peers-hf: $(echo "$stamp" | cut -d' ' -f1 | paste -sd' ') already in $HF_GGUF_DIR"
    exit 0
fi
if ! command -v npm >/dev/null 2>&1; then
    echo "peers-hf: npm not found (make deps installs it); tests/test_gguf_hf.c will skip" >&2
    exit 1
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/new/node_modules"
while read -r spec sha1_pin sha512_pin; do
    [ -n "$spec" ] || continue
    name=${spec%@*} # @scope/name@version -> @scope/name
    mkdir -p "$tmp/pack"
    npm_pinned peers-hf "$spec" "$sha1_pin" "$sha512_pin" "$tmp/pack" || exit 1
    mkdir -p "$tmp/new/node_modules/$name"
    tar -xzf "$tgz" -C "$tmp/new/node_modules/$name" --strip-components=1
    rm -rf "$tmp/pack"
    echo "peers-hf: $spec (sha1 $sha1) verified"
done <<<"$stamp"
# the parser loads with its dependency from here, or the copy is worthless
entry="$tmp/new/node_modules/@huggingface/gguf/dist/index.mjs"
if command -v node >/dev/null 2>&1 &&
   ! node --input-type=module -e "await import('file://$entry')" 2>"$tmp/err"; then
    echo "peers-hf: the unpacked @huggingface/gguf does not load; nothing installed:" >&2
    cat "$tmp/err" >&2
    exit 1
fi
echo "$stamp" >"$tmp/new/.pins"
new="$HF_GGUF_DIR.new.$$"
rm -rf "$new"
mkdir -p "$(dirname "$HF_GGUF_DIR")"
mv "$tmp/new" "$new"
rm -rf "$HF_GGUF_DIR"
mv "$new" "$HF_GGUF_DIR"
echo "peers-hf: unpacked into $HF_GGUF_DIR"
