/*
 * t_serial.c -- serial opens: a file access property list that names no
 * communicator means serial access in HDF5, and h5sf opens such a file on
 * MPI_COMM_SELF (docs/user-guide.md, "Serial opens").  ctest sets
 * HDF5_DRIVER=h5sf, so H5P_DEFAULT and every new fapl select h5sf.
 *
 *   rank0   rank 0 alone creates, writes, reads back, reopens read-write,
 *           extends and deletes a file with H5P_DEFAULT while the other
 *           ranks wait in a point-to-point receive (no collective, no h5sf
 *           call): before serial opens, rank 0's open waited for them on
 *           MPI_COMM_WORLD forever (the watchdog fails the step).
 *   own     every rank creates its own file with H5P_DEFAULT at the same
 *           time, writes a pattern of its own, reads it back; then reads
 *           the next rank's file alone.  Each file has its own config file
 *           and subfiles.
 *   named   a communicator the program names is kept: WORLD split in two,
 *           each half creates a file of its own collectively, named three
 *           ways (H5Pset_mpi_params on a new fapl whose driver comes from
 *           HDF5_DRIVER; H5Pset_driver_by_name with H5Pset_mpi_params;
 *           H5Pset_fapl_h5sf with the structure's comm), writes one slab
 *           per rank with a collective transfer, reads everything back;
 *           the file's access list names a communicator congruent with the
 *           half.  A serial file's access list names none, and HDF5 treats
 *           it as serial (a collective transfer is refused, as under sec2).
 *
 * Every value read is compared with the pattern it was written from.
 * usage: mpiexec -n N t_serial DIR rank0|own|named
 */
#include <mpi.h>
#include <hdf5.h>
#include "h5sf.h"
#include "h5sf_test.h"

#define N 30011 /* ints per rank: several 4 KiB stripes, an odd count */

static const char *g_dir;

static int value(int who, uint64_t i) { return (int)((i + 1) * 2654435761u) ^ (who << 24) ^ 0x5a5a; }

/* The stub's config file exists and names `want` subfiles (0: any), all present. */
static void check_subfiled(const char *path, int want)
{
    struct stat st;
    char        cfg[4200], line[4200], sub[4300];
    long        count = -1;
    CHECK(stat(path, &st) == 0, "no stub %s", path);
    unsigned long long ino = (unsigned long long)st.st_ino;
    snprintf(cfg, sizeof cfg, "%s.subfile_%llu.config", path, ino);
    FILE *fp = fopen(cfg, "r");
    CHECK(fp != NULL, "no config file %s: %s was not written through h5sf", cfg, path);
    if (!fp)
        return;
    while (fgets(line, sizeof line, fp))
        if (!strncmp(line, "subfile_count=", 14))
            count = strtol(line + 14, NULL, 10);
    fclose(fp);
    CHECK(count > 0 && (want == 0 || count == want), "%s: subfile_count=%ld, expected %d", cfg, count, want);
    for (long k = 1; k <= count && count < 10; k++) {
        snprintf(sub, sizeof sub, "%s.subfile_%llu_%ld_of_%ld", path, ino, k, count);
        CHECK(stat(sub, &st) == 0, "subfile %s missing", sub);
    }
}

/* Nothing of a subfiled file `base` (stub, config, subfiles) left in g_dir. */
static void check_gone(const char *base)
{
    DIR           *dp = opendir(g_dir);
    struct dirent *de;
    while (dp && (de = readdir(dp)))
        CHECK(strncmp(de->d_name, base, strlen(base)) != 0, "%s/%s left behind", g_dir, de->d_name);
    if (dp)
        closedir(dp);
}

/* Write [start, start+count) of a 1-D int dataset of `total` elements. */
static herr_t put(hid_t d, hsize_t start, hsize_t count, int who, hid_t dxpl)
{
    int  *buf = malloc(count * sizeof *buf);
    hid_t fs = H5Dget_space(d), ms = H5Screate_simple(1, &count, NULL);
    for (hsize_t i = 0; i < count; i++)
        buf[i] = value(who, start + i);
    H5Sselect_hyperslab(fs, H5S_SELECT_SET, &start, NULL, &count, NULL);
    herr_t r = H5Dwrite(d, H5T_NATIVE_INT, ms, fs, dxpl, buf);
    H5Sclose(ms);
    H5Sclose(fs);
    free(buf);
    return r;
}

/* Read the whole dataset; element i must be value(who_of(i), i). */
static void check_all(hid_t f, const char *name, hsize_t total, int per, int fixed_who, const char *what)
{
    hid_t d   = H5Dopen2(f, name, H5P_DEFAULT);
    int  *buf = malloc(total * sizeof *buf);
    CHECK(d >= 0, "%s: cannot open dataset %s", what, name);
    if (d < 0)
        goto out;
    memset(buf, 0xee, total * sizeof *buf);
    CHECK(H5Dread(d, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) >= 0, "%s: H5Dread of %s failed", what, name);
    long bad = 0;
    for (hsize_t i = 0; i < total; i++) {
        int who = fixed_who >= 0 ? fixed_who : (int)(i / (hsize_t)per);
        if (buf[i] != value(who, i) && bad++ < 3)
            fprintf(stderr, "[t_serial rank %d] %s: %s[%llu] = %d, expected %d\n", t_rank, what, name,
                    (unsigned long long)i, buf[i], value(who, i));
    }
    CHECK(bad == 0, "%s: %ld of %llu elements of %s differ", what, bad, (unsigned long long)total, name);
    H5Dclose(d);
out:
    free(buf);
}

static hid_t int_dset(hid_t f, const char *name, hsize_t n)
{
    hid_t s = H5Screate_simple(1, &n, NULL);
    hid_t d = H5Dcreate2(f, name, H5T_NATIVE_INT, s, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    H5Sclose(s);
    return d;
}

/* The file's access list names no communicator (serial) or one congruent
 * with `want`. */
static void check_access_comm(hid_t f, MPI_Comm want, const char *what)
{
    hid_t    acc = H5Fget_access_plist(f);
    MPI_Comm c   = MPI_COMM_NULL;
    MPI_Info i   = MPI_INFO_NULL;
    int      cmp = MPI_UNEQUAL;
    CHECK(acc >= 0, "%s: H5Fget_access_plist failed", what);
    if (acc < 0)
        return;
    CHECK(H5Pget_mpi_params(acc, &c, &i) >= 0, "%s: H5Pget_mpi_params on the access list failed", what);
    if (want == MPI_COMM_NULL)
        CHECK(c == MPI_COMM_NULL, "%s: a serial file's access list names a communicator", what);
    else {
        if (c != MPI_COMM_NULL)
            MPI_Comm_compare(c, want, &cmp);
        CHECK(cmp == MPI_CONGRUENT, "%s: the access list's communicator is not the one named (compare %d)", what, cmp);
    }
    if (c != MPI_COMM_NULL)
        MPI_Comm_free(&c);
    if (i != MPI_INFO_NULL)
        MPI_Info_free(&i);
    H5Pclose(acc);
}

/* ---- rank0 ------------------------------------------------------------- */

static void rank0_alone(void)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/alone.h5", g_dir);
    t_step(60, "rank 0 alone: create with H5P_DEFAULT");
    hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    CHECK(f >= 0, "H5Fcreate(%s, H5P_DEFAULT) by rank 0 alone failed", path);
    if (f < 0)
        return;
    t_step(60, "rank 0 alone: write");
    hid_t d = int_dset(f, "a", N);
    CHECK(d >= 0 && put(d, 0, N, 7, H5P_DEFAULT) >= 0, "write of /a failed");
    H5Dclose(d);
    check_access_comm(f, MPI_COMM_NULL, "rank 0 alone");
    CHECK(H5Fclose(f) >= 0, "H5Fclose failed");
    check_subfiled(path, 0);

    t_step(60, "rank 0 alone: read back");
    f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    CHECK(f >= 0, "H5Fopen(RDONLY) by rank 0 alone failed");
    if (f >= 0) {
        check_all(f, "a", N, N, 7, "rank 0 alone");
        CHECK(H5Fclose(f) >= 0, "H5Fclose after read failed");
    }
    t_step(60, "rank 0 alone: reopen read-write, add a dataset");
    f = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
    CHECK(f >= 0, "H5Fopen(RDWR) by rank 0 alone failed");
    if (f >= 0) {
        d = int_dset(f, "b", 2 * N);
        CHECK(d >= 0 && put(d, 0, 2 * N, 9, H5P_DEFAULT) >= 0, "write of /b failed");
        H5Dclose(d);
        CHECK(H5Fclose(f) >= 0, "H5Fclose after RDWR failed");
    }
    f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    CHECK(f >= 0, "H5Fopen after RDWR failed");
    if (f >= 0) {
        check_all(f, "a", N, N, 7, "rank 0 alone, reopened");
        check_all(f, "b", 2 * N, 2 * N, 9, "rank 0 alone, reopened");
        H5Fclose(f);
    }
    t_step(60, "rank 0 alone: H5Fdelete with H5P_DEFAULT");
    CHECK(H5Fdelete(path, H5P_DEFAULT) >= 0, "H5Fdelete(%s, H5P_DEFAULT) by rank 0 alone failed", path);
    check_gone("alone.h5");
}

static void mode_rank0(void)
{
    int token = 0;
    if (t_rank == 0) {
        rank0_alone();
        for (int r = 1; r < t_size; r++)
            MPI_Send(&token, 1, MPI_INT, r, 42, MPI_COMM_WORLD);
    }
    else {
        /* No collective and no HDF5 file call until rank 0 is done. */
        t_step(120, "ranks other than 0: wait for rank 0");
        MPI_Recv(&token, 1, MPI_INT, 0, 42, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
}

/* ---- own --------------------------------------------------------------- */

static void mode_own(void)
{
    char path[4096], other[4096];
    int  next = (t_rank + 1) % t_size;
    snprintf(path, sizeof path, "%s/own_%d.h5", g_dir, t_rank);
    snprintf(other, sizeof other, "%s/own_%d.h5", g_dir, next);
    t_step(60, "own: every rank creates its own file");
    hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    CHECK(f >= 0, "H5Fcreate(%s, H5P_DEFAULT) failed", path);
    if (f >= 0) {
        hid_t d = int_dset(f, "mine", N + (hsize_t)t_rank);
        CHECK(d >= 0 && put(d, 0, N + (hsize_t)t_rank, t_rank, H5P_DEFAULT) >= 0, "write of %s failed", path);
        H5Dclose(d);
        check_access_comm(f, MPI_COMM_NULL, "own");
        CHECK(H5Fclose(f) >= 0, "H5Fclose(%s) failed", path);
    }
    check_subfiled(path, 0);
    t_step(60, "own: read own file back");
    f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    CHECK(f >= 0, "H5Fopen(%s) failed", path);
    if (f >= 0) {
        check_all(f, "mine", N + (hsize_t)t_rank, 1 << 30, t_rank, "own file");
        H5Fclose(f);
    }
    MPI_Barrier(MPI_COMM_WORLD); /* every file is closed */
    t_step(60, "own: read the next rank's file alone");
    f = H5Fopen(other, H5F_ACC_RDONLY, H5P_DEFAULT);
    CHECK(f >= 0, "H5Fopen(%s) of rank %d's file failed", other, next);
    if (f >= 0) {
        check_all(f, "mine", N + (hsize_t)next, 1 << 30, next, "next rank's file");
        H5Fclose(f);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    char base[64];
    snprintf(base, sizeof base, "own_%d.h5", t_rank);
    CHECK(H5Fdelete(path, H5P_DEFAULT) >= 0, "H5Fdelete(%s) failed", path);
    check_gone(base);
}

/* ---- named ------------------------------------------------------------- */

enum { BY_ENV, BY_NAME, BY_STRUCT };

static hid_t named_fapl(int how, MPI_Comm comm)
{
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS); /* h5sf, from HDF5_DRIVER */
    if (how == BY_ENV)
        H5Pset_mpi_params(fapl, comm, MPI_INFO_NULL);
    else if (how == BY_NAME) {
        H5Pset_mpi_params(fapl, comm, MPI_INFO_NULL);
        H5Pset_driver_by_name(fapl, "h5sf", "stripe_size=4096,stripe_count=3");
    }
    else {
        H5FD_h5sf_config_t c;
        H5FD_h5sf_config_init(&c);
        c.stripe_size  = 8192;
        c.stripe_count = 2;
        c.comm         = comm;
        H5Pset_fapl_h5sf(fapl, &c);
    }
    return fapl;
}

static void mode_named(void)
{
    static const char *hows[] = {"H5Pset_mpi_params (driver from HDF5_DRIVER)", "H5Pset_driver_by_name",
                                 "H5Pset_fapl_h5sf"};
    MPI_Comm           half;
    int                color = t_rank % 2, hr, hn;
    MPI_Comm_split(MPI_COMM_WORLD, color, t_rank, &half);
    MPI_Comm_rank(half, &hr);
    MPI_Comm_size(half, &hn);
    hid_t coll = H5Pcreate(H5P_DATASET_XFER);
    H5Pset_dxpl_mpio(coll, H5FD_MPIO_COLLECTIVE);
    for (int how = BY_ENV; how <= BY_STRUCT; how++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/named_%d_%d.h5", g_dir, how, color);
        t_step(90, "named: collective create on half %d, %s", color, hows[how]);
        hid_t fapl = named_fapl(how, half);
        hid_t f    = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
        int   ok   = t_count(f >= 0);
        CHECK(ok == t_size, "H5Fcreate through %s failed on %d of %d ranks", hows[how], t_size - ok, t_size);
        if (ok != t_size)
            MPI_Abort(MPI_COMM_WORLD, 1);
        H5FD_h5sf_layout_t lay;
        memset(&lay, 0, sizeof lay);
        /* The layout the half created, whatever its size. */
        CHECK(H5FD_h5sf_get_layout(f, &lay) >= 0, "H5FD_h5sf_get_layout failed");
        check_access_comm(f, half, hows[how]);
        hid_t d = int_dset(f, "slabs", (hsize_t)N * (hsize_t)hn);
        CHECK(d >= 0 && put(d, (hsize_t)N * (hsize_t)hr, N, hr, coll) >= 0, "%s: collective write failed", hows[how]);
        H5Dclose(d);
        CHECK(H5Fclose(f) >= 0, "%s: H5Fclose failed", hows[how]);
        if (hr == 0)
            check_subfiled(path, how == BY_NAME ? 3 : how == BY_STRUCT ? 2 : 0);
        t_step(90, "named: read back on half %d, %s", color, hows[how]);
        f = H5Fopen(path, H5F_ACC_RDONLY, fapl);
        CHECK(f >= 0, "%s: H5Fopen failed", hows[how]);
        if (f >= 0) {
            check_all(f, "slabs", (hsize_t)N * (hsize_t)hn, N, -1, hows[how]);
            H5Fclose(f);
        }
        CHECK(H5Fdelete(path, fapl) >= 0, "%s: collective H5Fdelete failed", hows[how]);
        H5Pclose(fapl);
    }

    /* A serial file is serial to HDF5: a collective transfer is refused,
     * as it is under sec2; independent ones work. */
    char path[4096];
    snprintf(path, sizeof path, "%s/named_serial_%d.h5", g_dir, t_rank);
    t_step(60, "named: a serial file refuses collective transfers");
    hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    CHECK(f >= 0, "serial H5Fcreate failed");
    if (f >= 0) {
        hid_t  d = int_dset(f, "x", N);
        herr_t r = 0;
        H5E_BEGIN_TRY { r = put(d, 0, N, 3, coll); }
        H5E_END_TRY
        CHECK(r < 0, "a collective write to a serial file succeeded");
        CHECK(put(d, 0, N, 3, H5P_DEFAULT) >= 0, "an independent write to a serial file failed");
        H5Dclose(d);
        check_all(f, "x", N, N, 3, "serial file");
        H5Fclose(f);
    }
    CHECK(H5Fdelete(path, H5P_DEFAULT) >= 0, "serial H5Fdelete failed");
    H5Pclose(coll);
    MPI_Comm_free(&half);
}

int main(int argc, char **argv)
{
    t_init(&argc, &argv, "t_serial");
    if (argc != 3) {
        if (t_rank == 0)
            fprintf(stderr, "usage: t_serial DIR rank0|own|named\n");
        MPI_Finalize();
        return 2;
    }
    g_dir = argv[1];
    t_mkdir_world(g_dir);
    const char *drv = getenv("HDF5_DRIVER");
    if (!drv || strcmp(drv, "h5sf")) {
        if (t_rank == 0)
            fprintf(stderr, "t_serial: run with HDF5_DRIVER=h5sf (ctest sets it)\n");
        MPI_Finalize();
        return 2;
    }
    if (!strcmp(argv[2], "rank0"))
        mode_rank0();
    else if (!strcmp(argv[2], "own"))
        mode_own();
    else if (!strcmp(argv[2], "named"))
        mode_named();
    else {
        if (t_rank == 0)
            fprintf(stderr, "t_serial: unknown mode %s\n", argv[2]);
        MPI_Finalize();
        return 2;
    }
    return t_finish();
}
