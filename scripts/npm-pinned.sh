# npm-pinned.sh - sourced by peers.sh and peers-hf.sh: fetches one pinned npm
# package with `npm pack` into a folder and checks it against its pins.
#
# npm_pinned TAG SPEC SHA1 SHA512 DIR: sets tgz (the tarball's path), sha1 and
# sha512 (its checksums); on a failed pack or a checksum mismatch says why on
# stderr (prefixed TAG) and returns 1.
npm_pinned() {
    local tag=$1 spec=$2 sha1_pin=$3 sha512_pin=$4 dir=$5
    if ! (cd "$dir" && npm pack --silent "$spec" >"$dir/.name" 2>"$dir/.err"); then
        echo "$tag: npm pack $spec failed:" >&2
        cat "$dir/.err" >&2
        return 1
    fi
    tgz="$dir/$(tail -n1 "$dir/.name")"
    sha1=$(sha1sum "$tgz" | cut -d' ' -f1)
    sha512=$(sha512sum "$tgz" | cut -d' ' -f1)
    if [ "$sha1" != "$sha1_pin" ] || [ "$sha512" != "$sha512_pin" ]; then
        echo "$tag: checksum mismatch for $spec: sha1 $sha1 (pinned $sha1_pin)," \
             "sha512 $sha512 (pinned $sha512_pin); nothing installed" >&2
        return 1
    fi
}
