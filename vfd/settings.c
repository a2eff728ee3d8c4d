/*
 * settings.c -- the settings in effect for a file, resolved in one place.
 *
 * h5sf_fapl_resolve(): driver info (or defaults), then HDF5's driver config
 * string (H5Pset_driver_by_name / HDF5_DRIVER_CONFIG), then the environment,
 * then validation.  open (h5sf.c) and H5Pget_fapl_h5sf (fapl.c) both use
 * it, so the getter reports exactly what an open would use.  Also the
 * node-local I/O switches (H5SF_IOC_LOCAL_READS/WRITES) local.c reads and
 * the pool's thread limit (H5SF_POOL_THREADS).
 * Reads property lists and the environment only: opens nothing, calls no
 * other file of vfd/ (common/ does the parsing).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "internal.h"
#include "pool.h"

static int bool_env(const char *name, bool *on, h5sf_errbuf_t *e)
{
    const char *v = getenv(name);
    *on           = true;
    if (!v || !*v || !strcmp(v, "1"))
        return 0;
    if (!strcmp(v, "0")) {
        *on = false;
        return 0;
    }
    return h5sf_fail(e, EINVAL, "%s=\"%.200s\": must be 0 or 1", name, v);
}

int h5sf_local_settings(bool *reads, bool *writes, h5sf_errbuf_t *e)
{
    if (bool_env("H5SF_IOC_LOCAL_READS", reads, e) < 0)
        return -1;
    return bool_env("H5SF_IOC_LOCAL_WRITES", writes, e);
}

int h5sf_pool_setting(int *threads, h5sf_errbuf_t *e)
{
    const char *v = getenv("H5SF_POOL_THREADS");
    int32_t     n = H5SF_POOL_MAX_THREADS;
    if (v && *v && h5sf_parse_int(v, 0, H5SF_POOL_MAX_THREADS, &n, e, "H5SF_POOL_THREADS") < 0)
        return -1;
    *threads = (int)n;
    return 0;
}

int h5sf_fapl_resolve(hid_t fapl_id, H5FD_h5sf_config_t *out, h5sf_errbuf_t *e)
{
    const H5FD_h5sf_config_t *info = NULL;
    char                      *str  = NULL;
    int                        ret  = -1;

    h5sf_config_defaults(out);
    if (fapl_id != H5P_DEFAULT && fapl_id != H5I_INVALID_HID) {
        H5E_BEGIN_TRY { info = H5Pget_driver_info(fapl_id); } H5E_END_TRY
        if (info) {
            if (h5sf_config_validate(info, e) < 0)
                goto done;
            *out = *info;
        }
        ssize_t len = -1;
        H5E_BEGIN_TRY { len = H5Pget_driver_config_str(fapl_id, NULL, 0); } H5E_END_TRY
        if (len > 0) {
            if (!(str = malloc((size_t)len + 1))) {
                h5sf_fail(e, 0, "out of memory");
                goto done;
            }
            if (H5Pget_driver_config_str(fapl_id, str, (size_t)len + 1) < 0) {
                h5sf_fail(e, 0, "cannot read the driver configuration string");
                goto done;
            }
            if (h5sf_config_parse(str, out, e) < 0)
                goto done;
        }
    }
    if (h5sf_config_apply_env(out, e) < 0)
        goto done;
    ret = h5sf_config_validate(out, e);
    if (ret == 0)
        ret = h5sf_ioc_check_env(e);
    bool local_reads, local_writes;
    int  pool_threads;
    if (ret == 0)
        ret = h5sf_local_settings(&local_reads, &local_writes, e);
    if (ret == 0)
        ret = h5sf_pool_setting(&pool_threads, e);
done:
    free(str);
    return ret;
}
