/*
 * fapl.c -- the file-access property list side of h5sf.
 *
 * Driver info is an H5FD_h5sf_config_t.  The settings in effect for a file
 * are resolved in one place, h5sf_fapl_resolve(): driver info (or defaults),
 * then HDF5's driver config string (H5Pset_driver_by_name /
 * HDF5_DRIVER_CONFIG), then the environment.  open and H5Pget_fapl_h5sf both
 * use it, so the getter reports exactly what an open would use.
 */
#include <stdlib.h>
#include <string.h>
#include "internal.h"

int h5sf_fapl_resolve(hid_t fapl_id, H5FD_h5sf_config_t *out, h5sf_errbuf_t *e);

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
    if (ret == 0)
        ret = h5sf_local_settings(&local_reads, &local_writes, e);
done:
    free(str);
    return ret;
}

H5SF_API herr_t H5FD_h5sf_config_init(H5FD_h5sf_config_t *config)
{
    herr_t ret_value = 0;
    if (!config)
        H5SF_GOTO(-1, H5E_ARGS, H5E_BADVALUE, "config is NULL");
    h5sf_config_defaults(config);
done:
    return ret_value;
}

H5SF_API hid_t H5FD_h5sf_init(void) { return h5sf_register(); }

H5SF_API herr_t H5Pset_fapl_h5sf(hid_t fapl_id, const H5FD_h5sf_config_t *config)
{
    H5FD_h5sf_config_t cfg;
    h5sf_errbuf_t      eb = {0};
    herr_t             ret_value = 0;
    hid_t              id;

    if (config)
        cfg = *config;
    else
        h5sf_config_defaults(&cfg);
    if (h5sf_config_validate(&cfg, &eb) < 0)
        H5SF_GOTO_EB(-1, H5E_PLIST, H5E_BADVALUE, &eb);
    if ((id = h5sf_register()) < 0)
        H5SF_GOTO(-1, H5E_VFL, H5E_CANTREGISTER, "cannot register the h5sf driver");
    if (H5Pset_driver(fapl_id, id, &cfg) < 0)
        H5SF_GOTO(-1, H5E_PLIST, H5E_CANTSET, "cannot set the h5sf driver on the fapl");
done:
    return ret_value;
}

H5SF_API herr_t H5Pget_fapl_h5sf(hid_t fapl_id, H5FD_h5sf_config_t *config)
{
    h5sf_errbuf_t eb = {0};
    herr_t        ret_value = 0;

    if (!config)
        H5SF_GOTO(-1, H5E_ARGS, H5E_BADVALUE, "config is NULL");
    if (H5Pget_driver(fapl_id) != h5sf_register())
        H5SF_GOTO(-1, H5E_PLIST, H5E_BADVALUE, "the fapl does not use the h5sf driver");
    if (h5sf_fapl_resolve(fapl_id, config, &eb) < 0)
        H5SF_GOTO_EB(-1, H5E_PLIST, H5E_BADVALUE, &eb);
    /* The fapl keeps its handles; the caller gets its own. */
    if (config->comm != MPI_COMM_NULL && MPI_Comm_dup(config->comm, &config->comm) != MPI_SUCCESS)
        H5SF_GOTO(-1, H5E_PLIST, H5E_CANTCOPY, "cannot duplicate the fapl's communicator");
    if (config->info != MPI_INFO_NULL && MPI_Info_dup(config->info, &config->info) != MPI_SUCCESS)
        H5SF_GOTO(-1, H5E_PLIST, H5E_CANTCOPY, "cannot duplicate the fapl's MPI info");
done:
    return ret_value;
}
