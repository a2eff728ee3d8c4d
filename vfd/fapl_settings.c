/*
 * fapl_settings.c -- the settings in effect for a file, resolved in one place.
 *
 * h5sf_fapl_resolve(): driver info (or defaults), then HDF5's driver config
 * string (H5Pset_driver_by_name / HDF5_DRIVER_CONFIG), then the environment,
 * then validation.  open (h5sf.c) and H5Pget_fapl_h5sf (fapl.c) both use
 * it, so the getter reports exactly what an open would use.  Also the
 * same-node shortcut's switches (H5SF_SAMENODE_READS/WRITES) samenode.c reads and
 * the pool's thread limit (H5SF_POOL_THREADS), and the public struct
 * H5FD_h5sf_config_t turned into common/'s h5sf_settings_t and back
 * (fapl_settings.h).
 * Reads property lists and the environment only: opens nothing, calls no
 * other file of vfd/ (common/ does the parsing).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "internal.h"
#include "threadpool.h"

/* common/ names the public enums' values and lengths itself (it includes
 * no HDF5 or MPI header); they must be the public ones. */
_Static_assert(H5SF_CHANNEL_AUTO == H5FD_H5SF_CHANNEL_AUTO && H5SF_CHANNEL_IOC == H5FD_H5SF_CHANNEL_IOC &&
                   H5SF_CHANNEL_DIRECT == H5FD_H5SF_CHANNEL_DIRECT,
               "H5SF_CHANNEL_* (common/settings.h) must equal H5FD_h5sf_channel_t");
_Static_assert(H5SF_IOC_PER_NODE == H5FD_H5SF_IOC_PER_NODE && H5SF_IOC_EVERY_NTH == H5FD_H5SF_IOC_EVERY_NTH &&
                   H5SF_IOC_TOTAL == H5FD_H5SF_IOC_TOTAL && H5SF_IOC_LIST == H5FD_H5SF_IOC_LIST,
               "H5SF_IOC_* (common/settings.h) must equal H5FD_h5sf_ioc_mode_t");
_Static_assert(sizeof((H5FD_h5sf_config_t *)0)->ioc_list == H5SF_IOC_LIST_LEN &&
                   sizeof((H5FD_h5sf_config_t *)0)->subfile_dir == H5SF_PATH_MAX &&
                   sizeof((H5FD_h5sf_config_t *)0)->config_dir == H5SF_PATH_MAX && H5FD_H5SF_PATH_MAX == H5SF_PATH_MAX,
               "common/bounds.h's lengths must be H5FD_h5sf_config_t's");

/* ---- the public struct and common/'s ---------------------------------- */

void h5sf_config_to_settings(const H5FD_h5sf_config_t *c, h5sf_settings_t *s)
{
    s->stripe_size  = c->stripe_size;
    s->stripe_count = c->stripe_count;
    s->ioc_mode     = (int32_t)c->ioc_mode;
    s->ioc_param    = c->ioc_param;
    memcpy(s->ioc_list, c->ioc_list, sizeof s->ioc_list);
    s->threads = c->threads;
    s->channel = (int32_t)c->channel;
    s->fsync   = c->fsync;
    s->timeout = c->timeout;
    memcpy(s->subfile_dir, c->subfile_dir, sizeof s->subfile_dir);
    memcpy(s->config_dir, c->config_dir, sizeof s->config_dir);
}

void h5sf_config_from_settings(const h5sf_settings_t *s, H5FD_h5sf_config_t *c)
{
    c->stripe_size  = s->stripe_size;
    c->stripe_count = s->stripe_count;
    c->ioc_mode     = (H5FD_h5sf_ioc_mode_t)s->ioc_mode;
    c->ioc_param    = s->ioc_param;
    memcpy(c->ioc_list, s->ioc_list, sizeof c->ioc_list);
    c->threads = s->threads;
    c->channel = (H5FD_h5sf_channel_t)s->channel;
    c->fsync   = s->fsync;
    c->timeout = s->timeout;
    memcpy(c->subfile_dir, s->subfile_dir, sizeof c->subfile_dir);
    memcpy(c->config_dir, s->config_dir, sizeof c->config_dir);
}

void h5sf_config_defaults(H5FD_h5sf_config_t *c)
{
    h5sf_settings_t s;
    memset(c, 0, sizeof *c);
    h5sf_settings_defaults(&s);
    h5sf_config_from_settings(&s, c);
    c->magic   = H5FD_H5SF_CONFIG_MAGIC;
    c->version = H5FD_H5SF_CONFIG_VERSION;
    c->comm    = MPI_COMM_NULL;
    c->info    = MPI_INFO_NULL;
}

int h5sf_config_validate(const H5FD_h5sf_config_t *c, h5sf_errbuf_t *e)
{
    h5sf_settings_t s;
    if (!c)
        return h5sf_fail(e, EINVAL, "h5sf config is NULL");
    if (c->magic != H5FD_H5SF_CONFIG_MAGIC)
        return h5sf_fail(e, EINVAL,
                         "h5sf config: bad magic 0x%08" PRIx32 " (expected 0x%08x; initialize the struct with "
                         "H5FD_h5sf_config_init())",
                         c->magic, H5FD_H5SF_CONFIG_MAGIC);
    if (c->version != H5FD_H5SF_CONFIG_VERSION)
        return h5sf_fail(e, EINVAL, "h5sf config: unsupported version %" PRIu32 " (this build knows version %u)",
                         c->version, H5FD_H5SF_CONFIG_VERSION);
    h5sf_config_to_settings(c, &s);
    return h5sf_settings_validate(&s, e);
}

/* ---- environment switches outside the struct -------------------------- */

static int bool_env(h5sf_var_t var, bool *on, h5sf_errbuf_t *e)
{
    const char *v = h5sf_var(var), *name = h5sf_var_name(var);
    *on = true;
    if (!v || !*v || !strcmp(v, "1"))
        return 0;
    if (!strcmp(v, "0")) {
        *on = false;
        return 0;
    }
    return h5sf_fail(e, EINVAL, "%s=\"%.200s\": must be 0 or 1", name, v);
}

int h5sf_samenode_settings(bool *reads, int *writes, h5sf_errbuf_t *e)
{
    const char *v = h5sf_var(H5SF_VAR_SAMENODE_WRITES);
    if (bool_env(H5SF_VAR_SAMENODE_READS, reads, e) < 0)
        return -1;
    if (!v || !*v || !strcmp(v, "1"))
        *writes = H5SF_SAMENODE_ALL;
    else if (!strcmp(v, "dense"))
        *writes = H5SF_SAMENODE_DENSE;
    else if (!strcmp(v, "0"))
        *writes = H5SF_SAMENODE_NONE;
    else
        return h5sf_fail(e, EINVAL, "%s=\"%.200s\": must be 0, 1 or dense", h5sf_var_name(H5SF_VAR_SAMENODE_WRITES), v);
    return 0;
}

int h5sf_pool_setting(int *threads, h5sf_errbuf_t *e)
{
    const char *v = h5sf_var(H5SF_VAR_POOL_THREADS);
    int32_t     n = H5SF_POOL_MAX_THREADS;
    if (v && *v && h5sf_parse_int(v, 0, H5SF_POOL_MAX_THREADS, &n, e, "H5SF_POOL_THREADS") < 0)
        return -1;
    *threads = (int)n;
    return 0;
}

/* ---- the settings of a fapl -------------------------------------------- */

int h5sf_fapl_resolve(hid_t fapl_id, H5FD_h5sf_config_t *out, h5sf_errbuf_t *e)
{
    const H5FD_h5sf_config_t *info = NULL;
    char                     *str  = NULL;
    h5sf_settings_t           s;
    int                       ret = -1;

    h5sf_config_defaults(out);
    if (fapl_id != H5P_DEFAULT && fapl_id != H5I_INVALID_HID) {
        H5E_BEGIN_TRY { info = H5Pget_driver_info(fapl_id); }
        H5E_END_TRY
        if (info) {
            if (h5sf_config_validate(info, e) < 0)
                goto done;
            *out = *info;
        }
        ssize_t len = -1;
        H5E_BEGIN_TRY { len = H5Pget_driver_config_str(fapl_id, NULL, 0); }
        H5E_END_TRY
        if (len > 0) {
            if (!(str = h5sf_malloc((size_t)len + 1))) {
                h5sf_fail(e, 0, "out of memory");
                goto done;
            }
            if (H5Pget_driver_config_str(fapl_id, str, (size_t)len + 1) < 0) {
                h5sf_fail(e, 0, "cannot read the driver configuration string");
                goto done;
            }
            h5sf_config_to_settings(out, &s);
            if (h5sf_settings_parse(str, &s, e) < 0)
                goto done;
            h5sf_config_from_settings(&s, out);
        }
    }
    h5sf_config_to_settings(out, &s);
    if (h5sf_settings_apply_env(&s, e) < 0)
        goto done;
    h5sf_config_from_settings(&s, out);
    ret = h5sf_settings_validate(&s, e);
    if (ret == 0)
        ret = h5sf_ioc_check_env(e);
    bool samenode_reads;
    int  samenode_writes, pool_threads;
    if (ret == 0)
        ret = h5sf_samenode_settings(&samenode_reads, &samenode_writes, e);
    if (ret == 0)
        ret = h5sf_pool_setting(&pool_threads, e);
done:
    h5sf_free(str);
    return ret;
}
