#!/usr/bin/env bash
# make.sh -- rebuild the reference superblocks of this directory with HDF5's
# own library and print what HDF5 says of each (the values unit_superblock.c
# expects).  Run by hand, from anywhere:
#   source scripts/env.sh; bash test/data/superblock/make.sh
# Every file holds one group "g".  *-family.h5 is member 0 of a family file
# (1 MiB members): its superblock carries the family driver's info
# ("NCSAfami"), a driver-info block in version 0, a driver-info message in
# the superblock extension in version 3.
set -euo pipefail
out="$(cd "$(dirname "$0")" && pwd)"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
export PATH="$H5SF_HDF5_PREFIX/bin:$PATH"
cat >"$tmp/gen.c" <<'C'
#include <hdf5.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* libver < 0: the library's default (earliest) format. */
static void make(const char *name, int libver, hsize_t ub, size_t o, size_t l, unsigned istore_k, int family)
{
    hid_t fcpl = H5Pcreate(H5P_FILE_CREATE), fapl = H5Pcreate(H5P_FILE_ACCESS);
    if (ub)
        H5Pset_userblock(fcpl, ub);
    if (o)
        H5Pset_sizes(fcpl, o, l);
    if (istore_k)
        H5Pset_istore_k(fcpl, istore_k); /* a non-default value asks for version 1 */
    if (libver >= 0)
        H5Pset_libver_bounds(fapl, (H5F_libver_t)libver, H5F_LIBVER_LATEST);
    if (family)
        H5Pset_fapl_family(fapl, 1 << 20, H5P_DEFAULT);
    hid_t f = H5Fcreate(name, H5F_ACC_TRUNC, fcpl, fapl);
    if (f < 0)
        exit(1);
    H5Gclose(H5Gcreate2(f, "g", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
    H5Fclose(f);
    /* What HDF5 reports of it. */
    f = H5Fopen(name, H5F_ACC_RDONLY, fapl);
    H5F_info2_t fi;
    H5O_info2_t oi;
    haddr_t     root;
    hid_t       cp = H5Fget_create_plist(f);
    H5Fget_info2(f, &fi);
    H5Oget_info3(f, &oi, H5O_INFO_BASIC);
    H5VLnative_token_to_addr(f, oi.token, &root);
    H5Pget_userblock(cp, &ub);
    H5Pget_sizes(cp, &o, &l);
    printf("%-20s version %u, superblock %llu bytes, extension %llu bytes, user block %llu, sizes %zu/%zu, "
           "root object header at %llu\n",
           name, fi.super.version, (unsigned long long)fi.super.super_size,
           (unsigned long long)fi.super.super_ext_size, (unsigned long long)ub, o, l, (unsigned long long)root);
    H5Pclose(cp);
    H5Fclose(f);
    H5Pclose(fcpl);
    H5Pclose(fapl);
}

int main(void)
{
    make("v0.h5", -1, 0, 0, 0, 0, 0);
    make("v0-ub512.h5", -1, 512, 0, 0, 0, 0);
    make("v0-o4-ub1024.h5", -1, 1024, 4, 4, 0, 0);
    make("v1.h5", -1, 0, 0, 0, 64, 0);
    make("v0-family-%d.h5", -1, 0, 0, 0, 0, 1);
    make("v2.h5", H5F_LIBVER_V18, 0, 0, 0, 0, 0);
    make("v2-o2.h5", H5F_LIBVER_V18, 0, 2, 2, 0, 0);
    make("v3.h5", H5F_LIBVER_V110, 0, 0, 0, 0, 0);
    make("v3-o4-ub512.h5", H5F_LIBVER_V110, 512, 4, 8, 0, 0);
    make("v3-family-%d.h5", H5F_LIBVER_V110, 0, 0, 0, 0, 1);
    return 0;
}
C
h5cc -o "$tmp/gen" "$tmp/gen.c"
(cd "$tmp" && ./gen)
for f in "$tmp"/*.h5; do
    b="$(basename "$f")"
    cp "$f" "$out/${b/-family-0/-family}"
done
# h5debug shows the addresses (not for family members, which it cannot open).
for f in "$out"/*.h5; do
    case $f in *-family.h5) continue ;; esac
    echo "== $(basename "$f")"
    h5debug "$f" | grep -E "Address of super block|Superblock extension address|Address of driver|Object header address"
done
ls -l "$out"/*.h5
