#!/usr/bin/env bash
# t_tools.sh CASE [args] -- the tools tests (test/t_tools.cmake registers them).
#
# Environment (set by ctest): T_BIN (build's bin: tools and test programs),
# T_HDF5_BIN (HDF5's tools, h5fuse), T_MPIEXEC, T_WORK (scratch directory of
# this test), HDF5_PLUGIN_PATH (the h5sf plugin), T_NOINIT (test/noinit.c,
# preloaded where MPI_Init must not be called).
#
# References are independent of the code under test: files written through
# HDF5's MPI-IO driver (h5diff), HDF5's own h5fuse (cmp of logical bytes),
# HDF5's built-in subfiling driver (t_tools_builtin), and plain files.
set -u -o pipefail
export PATH="$T_BIN:$T_HDF5_BIN:$PATH"
W="$T_WORK"
unset H5SF_CONFIG_DIR H5FD_SUBFILING_CONFIG_FILE_PREFIX H5SF_SUBFILE_DIR HDF5_DRIVER HDF5_DRIVER_CONFIG

fail() { echo "FAIL: $*" >&2; exit 1; }
note() { echo "--- $*"; }
run_mpi() { local np=$1; shift; timeout 120 "$T_MPIEXEC" -n "$np" ${H5SF_MPIEXEC_FLAGS-} "$@"; }
t() { timeout 120 "$@"; }
# expect RC CMD...: run CMD, which must exit with RC; its output goes to $W/last.out and .err
expect() {
    local want=$1 rc; shift
    t "$@" >"$W/last.out" 2>"$W/last.err"; rc=$?
    if [[ $rc != "$want" ]]; then
        cat "$W/last.out" "$W/last.err" >&2
        fail "'$*' exited $rc, expected $want"
    fi
}
has() { grep -q -- "$1" "$W/last.out" "$W/last.err" || { cat "$W/last.out" "$W/last.err" >&2; fail "no '$1' in the output of the last command"; }; }
fresh() { rm -rf "$W"; mkdir -p "$W"; }
subfiles_of() { ls "$1".subfile_*_of_* 2>/dev/null; }
config_of() { ls "$1".subfile_*.config 2>/dev/null; }
# h5sf-info: exactly one PROBLEM, of this kind (and exit status 1)
only_problem() {
    expect 1 h5sf-info "$1"
    has "\[$2\]"
    local n
    n=$(grep -c "PROBLEM" "$W/last.out")
    [[ $n == 1 ]] || { cat "$W/last.out"; fail "$2: $n problems reported, expected exactly 1"; }
}
for tool in h5sf-fuse h5sf-info h5sf-split h5sf-mv t_tools_writer t_tools_builtin h5diff h5dump h5ls h5repack h5fuse h5jam; do
    command -v "$tool" >/dev/null || fail "$tool not found (T_BIN=$T_BIN, T_HDF5_BIN=$T_HDF5_BIN)"
done

# ---- fuse NP CONFIG [--bad] [--damage] [--mpi] ------------------------------
case_fuse() {
    local np=$1 cfg=$2 bad= damage=0 mpi=0 a
    shift 2
    for a; do case $a in --bad) bad=--bad ;; --damage) damage=1 ;; --mpi) mpi=1 ;; esac; done
    fresh
    note "write with h5sf ($cfg) and MPI-IO on $np ranks"
    run_mpi "$np" t_tools_writer "$W" f "$cfg" --mib 1 $bad || fail "writer"
    expect 0 h5sf-info "$W/f.h5"
    expect 0 h5sf-mv -C "$W/f.h5" "$W/copy.h5"
    ((damage)) && expect 0 h5sf-mv -C "$W/f.h5" "$W/short.h5" && expect 0 h5sf-mv -C "$W/f.h5" "$W/missing.h5"

    note "h5sf-fuse --verify"
    expect 0 h5sf-fuse --verify "$W/f.h5" "$W/fused.h5"
    has "verified"
    grep -q $'\r' "$W/last.err" && fail "progress bar drawn on a non-terminal"
    [[ -s $W/fused.h5 ]] || fail "no output"
    expect 0 h5ls -r "$W/fused.h5" # the default (sec2) driver opens it
    expect 0 h5diff "$W/fused.h5" "$W/f.mpio.h5"
    if [[ -n $bad ]]; then
        expect 1 h5diff -q "$W/fused.h5" "$W/f.bad.h5" # negative control: h5diff sees one changed value
    fi

    note "cmp with the logical bytes as HDF5's h5fuse assembles them (into the stub)"
    local stub_config
    stub_config=$(config_of "$W/f.h5")
    (cd "$W" && t h5fuse -q -f "$stub_config") || fail "h5fuse"
    cmp "$W/f.h5" "$W/fused.h5" || fail "h5sf-fuse output differs from h5fuse's"

    note "--in-place --remove-subfiles"
    expect 0 h5sf-fuse -q --in-place --remove-subfiles "$W/copy.h5"
    cmp "$W/copy.h5" "$W/fused.h5" || fail "in-place result differs"
    [[ -z $(subfiles_of "$W/copy.h5") && -z $(config_of "$W/copy.h5") ]] || fail "subfiles or config left after --remove-subfiles"

    note "an existing subfiled stub as OUTPUT is refused"
    expect 0 h5sf-mv -C "$W/f.h5" "$W/other.h5"
    expect 1 h5sf-fuse "$W/f.h5" "$W/other.h5"
    has "stub of a subfiled file"
    expect 0 h5sf-info "$W/other.h5"

    if ((mpi)); then
        note "h5sf-fuse under mpiexec -n 2"
        run_mpi 2 h5sf-fuse -q --verify "$W/f.h5" "$W/fused-mpi.h5" || fail "h5sf-fuse under mpiexec"
        cmp "$W/fused-mpi.h5" "$W/fused.h5" || fail "MPI fuse result differs"
    fi

    if ((damage)); then
        note "missing trailing stripes: the tail reads as zeros, output sized from the superblock"
        local S N E last size k
        S=$(sed -n 's/^stripe_size=//p' "$stub_config")
        N=$(sed -n 's/^subfile_count=//p' "$stub_config")
        E=$(stat -c %s "$W/fused.h5")
        last=$(( (E - 1) / S % N + 1 ))
        local victim
        victim=$(subfiles_of "$W/short.h5" | sed -n "${last}p")
        size=$(stat -c %s "$victim")
        k=$(( (E - 1) % S + 1 ))
        truncate -s $((size - k)) "$victim"
        expect 0 h5sf-fuse "$W/short.h5" "$W/short-fused.h5"
        has "reads as zeros"
        [[ $(stat -c %s "$W/short-fused.h5") == "$E" ]] || fail "output not sized to the superblock's EOF"
        (cd "$W" && t h5fuse -q -f "$(config_of "$W/short.h5")") || fail "h5fuse (short)"
        cmp "$W/short.h5" "$W/short-fused.h5" || fail "short layout: differs from h5fuse"
        only_problem "$W/short.h5" short_subfile

        note "a missing subfile is refused, nothing written"
        rm "$(subfiles_of "$W/missing.h5" | sed -n 2p)"
        expect 1 h5sf-fuse "$W/missing.h5" "$W/missing-fused.h5"
        has "subfile 2 of .* is missing"
        [[ ! -e $W/missing-fused.h5 ]] || fail "output written from a damaged layout"
        ls "$W"/*.h5sf-fuse.* 2>/dev/null && fail "temporary left behind"
    fi
    note "ok"
}

# ---- split ------------------------------------------------------------------
# split_check PLAIN NAME STRIPE COUNT BUILTIN_NP [extra h5sf-split options]
# (BUILTIN_NP 0: no read with the built-in driver, which is slow to start)
split_check() {
    local plain=$1 name=$2 S=$3 N=$4 bnp=$5
    shift 5
    note "split $(basename "$plain") -> $name (stripe $S x $N $*)"
    expect 0 h5sf-split -q -v -S "$S" -n "$N" "$@" "$plain" "$W/$name.h5"
    [[ $(subfiles_of "$W/$name.h5" | wc -l) == "$N" ]] || fail "$name: not $N subfiles"
    expect 0 h5sf-info "$W/$name.h5"
    expect 0 h5diff --vfd-name-2=h5sf "$plain" "$W/$name.h5"
    if ((bnp > 0)); then
        run_mpi "$bnp" t_tools_builtin "$W/$name.h5" "$plain" || fail "$name: the built-in driver disagrees"
    fi
    # Inverse: fusing gives back the plain bytes after the superblock.
    expect 0 h5sf-fuse -q "$W/$name.h5" "$W/$name.back.h5"
    local size skip
    size=$(stat -c %s "$plain")
    skip=$(( $(od -An -t u1 -j 8 -N 1 "$plain" | tr -d ' ') >= 2 ? 48 : 96 ))
    [[ $name == ub* ]] && skip=$((512 + 96))
    cmp -i "$skip" -n $((size - skip)) "$plain" "$W/$name.back.h5" || fail "$name: fused bytes differ from the input"
}

case_split() {
    fresh
    run_mpi 1 t_tools_writer "$W" src "stripe_size=65536" || fail "writer"
    local v0="$W/src.mpio.h5"
    t h5repack --low=4 --high=4 "$v0" "$W/v3.h5" || fail "h5repack (v3)"
    printf 'user block text' >"$W/ub.txt"
    t h5jam -u "$W/ub.txt" -i "$v0" -o "$W/ub-plain.h5" >/dev/null || fail "h5jam"
    t h5repack --low=4 --high=4 -S PAGE -G 4096 "$v0" "$W/paged.h5" || fail "h5repack (paged)"

    split_check "$v0" v0-4k3 4096 3 1
    split_check "$v0" v0-1m4 1MiB 4 0          # fewer stripes than subfiles
    split_check "$W/v3.h5" v3-8k2 8192 2 1     # new superblock extension
    split_check "$W/ub-plain.h5" ub-4k2 4096 2 0

    note "a superblock that already has an extension: refused, then --no-driver-info"
    expect 1 h5sf-split -S 4096 -n 2 "$W/paged.h5" "$W/paged-s.h5"
    has "no-driver-info"
    [[ ! -e $W/paged-s.h5 && -z $(subfiles_of "$W/paged-s.h5") ]] || fail "refused split left files"
    expect 0 h5sf-split -q -v -D -S 4096 -n 2 "$W/paged.h5" "$W/paged-s.h5"
    expect 0 h5diff --vfd-name-2=h5sf "$W/paged.h5" "$W/paged-s.h5"
    expect 0 h5sf-info "$W/paged-s.h5"
    has "no_driver_info"

    note "refusals"
    expect 1 h5sf-split "$W/v0-4k3.h5" "$W/again.h5"    # already subfiled
    has "already a subfiled file"
    expect 1 h5sf-split "$W/ub.txt" "$W/x.h5"           # not HDF5
    has "not a readable HDF5 file"
    expect 1 h5sf-split "$v0" "$W/v0-4k3.h5"            # exists
    expect 0 h5sf-split -q -f -S 8192 -n 2 "$v0" "$W/v0-4k3.h5"
    [[ $(subfiles_of "$W/v0-4k3.h5" | wc -l) == 2 ]] || fail "--force left old subfiles"
    note "--force over a file whose subfiles are elsewhere, one of them not removable (a warning)"
    mkdir -p "$W/oldsub"
    expect 0 h5sf-split -q -S 4096 -n 3 -s "$W/oldsub" "$v0" "$W/forced.h5"
    local stuck
    stuck="$(ls -d "$W/oldsub"/* | sed -n 1p)"
    rm "$stuck" && mkdir "$stuck" && touch "$stuck/x"   # unlink fails (EISDIR), even as root
    expect 0 h5sf-split -q -f -S 8192 -n 2 "$v0" "$W/forced.h5"
    has "h5sf-split: warning: cannot remove $stuck"
    [[ $(ls "$W/oldsub" | wc -l) == 1 ]] || fail "--force left other old subfiles: $(ls "$W/oldsub")"
    [[ $(config_of "$W/forced.h5" | wc -l) == 1 ]] || fail "--force left the old config file"
    [[ $(subfiles_of "$W/forced.h5" | wc -l) == 2 ]] || fail "--force: new subfiles missing"
    expect 0 h5diff --vfd-name-2=h5sf "$v0" "$W/forced.h5"
    expect 2 h5sf-split -S 0 "$v0" "$W/y.h5"
    note "ok"
}

# ---- mv -------------------------------------------------------------------------
case_mv() {
    fresh
    run_mpi 2 t_tools_writer "$W" f "stripe_size=8192,stripe_count=3" || fail "writer"
    local ref="$W/f.mpio.h5"
    mkdir -p "$W/a" "$W/b" "$W/c/sub"

    note "copy into a directory"
    expect 0 h5sf-mv -C "$W/f.h5" "$W/a"
    expect 0 h5sf-info "$W/f.h5"
    expect 0 h5sf-info "$W/a/f.h5"
    expect 0 h5diff --vfd-name-1=h5sf "$W/a/f.h5" "$ref"

    note "move with a new name"
    expect 0 h5sf-mv "$W/a/f.h5" "$W/b/g.h5"
    [[ -z $(ls "$W/a") ]] || fail "move left files behind: $(ls "$W/a")"
    expect 0 h5sf-info "$W/b/g.h5"
    grep -q "^hdf5_file=$W/b/g.h5\$" "$(config_of "$W/b/g.h5")" || fail "config not rewritten"
    expect 0 h5diff --vfd-name-1=h5sf "$W/b/g.h5" "$ref"
    run_mpi 1 t_tools_builtin "$W/b/g.h5" "$ref" || fail "moved file: built-in driver"

    note "move with the subfiles in another directory"
    expect 0 h5sf-mv -s "$W/c/sub" "$W/b/g.h5" "$W/c/h.h5"
    [[ $(ls "$W/c/sub" | wc -l) == 3 ]] || fail "subfiles not in the subfile directory"
    grep -q "^subfile_dir=$W/c/sub\$" "$(config_of "$W/c/h.h5")" || fail "subfile_dir not rewritten"
    expect 0 h5sf-info "$W/c/h.h5"
    expect 0 h5diff --vfd-name-1=h5sf "$W/c/h.h5" "$ref"

    note "subfiles moved by hand: --subfile-dir finds them"
    mv "$W/c/sub" "$W/c/sub2"
    expect 1 h5sf-info "$W/c/h.h5"
    has "missing_subfile"
    expect 0 h5sf-info -s "$W/c/sub2" "$W/c/h.h5"
    expect 0 h5sf-fuse -s "$W/c/sub2" "$W/c/h.h5" "$W/c/h-fused.h5"
    expect 0 h5diff "$W/c/h-fused.h5" "$ref"

    note "refusals leave the source intact"
    expect 0 h5sf-mv -C "$W/f.h5" "$W/d.h5"
    expect 1 h5sf-mv "$W/f.h5" "$W/d.h5"                 # exists
    expect 1 h5sf-mv "$W/f.h5" "$W/f.h5"                 # same file
    rm "$(subfiles_of "$W/d.h5" | sed -n 1p)"
    expect 1 h5sf-mv "$W/d.h5" "$W/e.h5"                 # damaged source
    has "missing"
    [[ -e $W/d.h5 && ! -e $W/e.h5 ]] || fail "refused move changed files"
    expect 0 h5sf-info "$W/f.h5"
    expect 0 h5sf-mv -f -C "$W/f.h5" "$W/d.h5"           # --force replaces the damaged one
    expect 0 h5sf-info "$W/d.h5"
    [[ $(subfiles_of "$W/d.h5" | wc -l) == 3 ]] || fail "--force left stale subfiles"

    note "--force over a file whose subfiles are elsewhere, one of them not removable (a warning)"
    mkdir -p "$W/c/old"
    expect 0 h5sf-mv -C -s "$W/c/old" "$W/f.h5" "$W/forced.h5"
    local stuck
    stuck="$(ls -d "$W/c/old"/* | sed -n 1p)"
    rm "$stuck" && mkdir "$stuck" && touch "$stuck/x"   # unlink fails (EISDIR), even as root
    expect 0 h5sf-mv -f -C "$W/f.h5" "$W/forced.h5"
    has "h5sf-mv: warning: cannot remove $stuck"
    [[ $(ls "$W/c/old" | wc -l) == 1 ]] || fail "--force left other old subfiles: $(ls "$W/c/old")"
    [[ $(config_of "$W/forced.h5" | wc -l) == 1 ]] || fail "--force left the old config file"
    expect 0 h5sf-info "$W/forced.h5"
    expect 0 h5diff --vfd-name-1=h5sf "$W/forced.h5" "$ref"

    note "plain mv / cp lose the subfiles; h5sf-info says why"
    mv "$W/d.h5" "$W/renamed.h5"
    only_problem "$W/renamed.h5" no_config
    has "renamed without h5sf-mv"
    cp "$W/f.h5" "$W/a/f.h5"
    cp "$(config_of "$W/f.h5")" "$W/a/"
    only_problem "$W/a/f.h5" no_config
    has "copied or moved without h5sf-mv"
    note "ok"
}

# ---- info ------------------------------------------------------------------------
# patch_u64 FILE OFFSET VALUE: little-endian 8-byte write
patch_u64() {
    local bytes="" v=$3 i
    for i in 0 1 2 3 4 5 6 7; do bytes+=$(printf '\\x%02x' $(( (v >> (8 * i)) & 255 ))); done
    printf "$bytes" | dd of="$1" bs=1 seek="$2" conv=notrunc status=none
}

case_info() {
    fresh
    run_mpi 2 t_tools_writer "$W" f "stripe_size=4096,stripe_count=4" || fail "writer"
    local f="$W/f.h5" i
    note "healthy"
    expect 0 h5sf-info "$f"
    has "status        healthy"
    has "driver info \"Subfilin\": stripe size 4096, 4 subfiles"
    grep -c " ok " "$W/last.out" | grep -x 4 >/dev/null || fail "not 4 subfiles ok"
    expect 0 h5sf-info --json "$f"
    if command -v python3 >/dev/null; then
        python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["healthy"] and d["stripe_count"]==4 and d["stripe_size"]==4096 and len(d["subfiles"])==4 and d["logical_eof"]>0 and not d["issues"], d' \
            "$W/last.out" || fail "--json output"
    else
        has '"healthy": true'
    fi
    expect 0 h5sf-info -q "$f"
    [[ ! -s $W/last.out ]] || fail "--quiet printed something"
    expect 0 h5sf-info --files "$f"
    [[ $(wc -l <"$W/last.out") == 6 ]] || fail "--files: not stub + config + 4 subfiles"

    for i in missing short extra config mismatch; do expect 0 h5sf-mv -C "$f" "$W/$i.h5"; done

    note "missing subfile"
    rm "$(subfiles_of "$W/missing.h5" | sed -n 2p)"
    only_problem "$W/missing.h5" missing_subfile
    has "subfile 2 of 4 is missing"

    note "short subfile"
    local sf3
    sf3=$(subfiles_of "$W/short.h5" | sed -n 3p)
    truncate -s $(( $(stat -c %s "$sf3") - 100 )) "$sf3"
    only_problem "$W/short.h5" short_subfile
    has "subfile 3 of 4 is short"

    note "extra subfile"
    local one
    one=$(subfiles_of "$W/extra.h5" | sed -n 1p)
    touch "${one%_1_of_4}_5_of_4"
    only_problem "$W/extra.h5" extra_subfile
    has "_5_of_4 is named like a subfile"

    note "corrupt config file"
    echo "garbage here" >>"$(config_of "$W/config.h5")"
    only_problem "$W/config.h5" bad_config
    has "not a setting nor a subfile name"

    note "config vs driver info mismatch"
    expect 0 h5sf-info --json "$W/mismatch.h5"
    local off plen sf1
    off=$(sed -n 's/.*"driver_info": {"name": "Subfilin", "offset": \([0-9]*\).*/\1/p' "$W/last.out")
    [[ -n $off ]] || fail "no driver info offset in --json"
    sf1=$(subfiles_of "$W/mismatch.h5" | sed -n 1p) # stripe 0 holds the superblock and driver info
    plen=$(od -An -t u8 -j $((off + 28)) -N 8 "$sf1" | tr -d ' ')
    patch_u64 "$sf1" $((off + 20)) 5                        # Subfilin block: stripe count
    patch_u64 "$sf1" $((off + 36 + plen + 9 + 20)) 5        # nested IOC block: stripe count
    only_problem "$W/mismatch.h5" driver_info_mismatch
    has "disagrees with the superblock's driver info (stripe size 4096, 5 subfiles)"
    expect 1 h5ls --vfd-name=h5sf "$W/mismatch.h5"          # the driver refuses it as well

    note "no stub"
    only_problem "$W/nothing.h5" no_stub
    note "several files: worst status"
    expect 1 h5sf-info -q "$f" "$W/missing.h5"
    expect 1 h5sf-info --json "$f" "$W/extra.h5"
    if command -v python3 >/dev/null; then
        python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert [x["healthy"] for x in d]==[True,False], d' \
            "$W/last.out" || fail "--json with two files"
    fi
    note "ok"
}

# ---- HDF5's own tools -----------------------------------------------------------
case_hdf5() {
    fresh
    run_mpi 2 t_tools_writer "$W" f "stripe_size=8192,stripe_count=3" --bad || fail "writer"
    local f="$W/f.h5" ref="$W/f.mpio.h5"
    note "h5dump --vfd-name=h5sf (no mpiexec) == h5dump of the MPI-IO file"
    expect 0 h5dump --vfd-name=h5sf "$f"
    sed 1d "$W/last.out" >"$W/dump-h5sf.txt"
    expect 0 h5dump "$ref"
    sed 1d "$W/last.out" >"$W/dump-ref.txt"
    [[ $(wc -l <"$W/dump-ref.txt") -gt 100 ]] || fail "h5dump printed too little"
    diff -q "$W/dump-h5sf.txt" "$W/dump-ref.txt" >/dev/null || fail "h5dump output differs"
    note "h5dump through h5sf never starts MPI (MPI_Init would exit 86): --vfd-name, HDF5_DRIVER"
    local pre="$T_NOINIT${LD_PRELOAD:+:$LD_PRELOAD}"
    expect 0 env LD_PRELOAD="$pre" h5dump --vfd-name=h5sf "$f"
    sed 1d "$W/last.out" | diff -q "$W/dump-ref.txt" - >/dev/null || fail "h5dump without MPI differs"
    expect 0 env LD_PRELOAD="$pre" HDF5_DRIVER=h5sf h5dump "$f"
    sed 1d "$W/last.out" | diff -q "$W/dump-ref.txt" - >/dev/null || fail "h5dump under HDF5_DRIVER=h5sf differs"
    expect 0 h5dump --vfd-name=h5sf --vfd-info="channel=direct,threads=2" -d /grp/strided "$f"
    sed 1d "$W/last.out" >"$W/d1.txt"
    expect 0 h5dump -d /grp/strided "$ref"
    sed 1d "$W/last.out" | diff -q "$W/d1.txt" - >/dev/null || fail "h5dump -d with --vfd-info differs"
    expect 1 h5dump --vfd-name=h5sf --vfd-info="stripe_size=banana" -H "$f"

    note "h5ls"
    expect 0 h5ls -r --vfd-name=h5sf "$f"
    cp "$W/last.out" "$W/ls-h5sf.txt"
    expect 0 h5ls -r "$ref"
    diff -q "$W/ls-h5sf.txt" "$W/last.out" >/dev/null || fail "h5ls output differs"
    expect 0 h5ls -r -d --vfd-name=h5sf --vfd-info="channel=direct" "$f/grp"

    note "h5diff"
    expect 0 h5diff --vfd-name-1=h5sf "$f" "$ref"
    expect 0 h5diff --vfd-name-1=h5sf --vfd-info-1="channel=direct" "$f" "$ref"
    expect 1 h5diff --vfd-name-1=h5sf "$f" "$W/f.bad.h5" # negative control
    expect 0 h5sf-mv -q -C "$f" "$W/g.h5"
    expect 0 h5diff --vfd-name-1=h5sf --vfd-name-2=h5sf "$f" "$W/g.h5"

    note "h5repack to and from h5sf"
    expect 0 h5repack --src-vfd-name=h5sf "$f" "$W/plain.h5"
    expect 0 h5diff "$W/plain.h5" "$ref"
    expect 0 h5repack --src-vfd-name=h5sf --src-vfd-info="channel=direct" "$f" "$W/plain2.h5"
    expect 0 h5diff "$W/plain2.h5" "$ref"
    expect 0 h5repack --dst-vfd-name=h5sf --dst-vfd-info="stripe_size=4096,stripe_count=2" "$ref" "$W/rs.h5"
    expect 0 h5sf-info "$W/rs.h5"
    has "2 subfiles, stripe size 4096"
    expect 0 h5diff --vfd-name-2=h5sf "$ref" "$W/rs.h5"
    note "ok"
}

# ---- usage ------------------------------------------------------------------------
case_usage() {
    fresh
    local tool
    for tool in h5sf-fuse h5sf-info h5sf-split h5sf-mv; do
        expect 0 "$tool" --help
        has "usage: $tool"
        expect 2 "$tool"
        expect 2 "$tool" --no-such-option x y
    done
    expect 2 h5sf-fuse -t 0 a b
    expect 2 h5sf-split -n 0 a b
    expect 2 h5sf-fuse --in-place a b
    note "ok"
}

case "${1:-}" in
    fuse) shift; case_fuse "$@" ;;
    split) case_split ;;
    mv) case_mv ;;
    info) case_info ;;
    hdf5) case_hdf5 ;;
    usage) case_usage ;;
    *) fail "unknown case '${1:-}'" ;;
esac
