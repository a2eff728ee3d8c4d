/*
 * fapl.c -- the file-access property list side of h5sf.
 *
 * Driver info is an H5FD_h5sf_config_t.  The settings in effect for a file
 * are resolved in one place, h5sf_fapl_resolve() (fapl_settings.c), which open
 * uses too, so H5Pget_fapl_h5sf reports exactly what an open would use.
 * The driver's id comes from h5sf_register() (plugin.c).
 */
#include <stdlib.h>
#include <string.h>
#include "internal.h"

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
    h5sf_errbuf_t      eb        = {0};
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
    h5sf_errbuf_t eb        = {0};
    herr_t        ret_value = 0;

    if (!config)
        H5SF_GOTO(-1, H5E_ARGS, H5E_BADVALUE, "config is NULL");
    if (H5Pget_driver(fapl_id) != h5sf_register())
        H5SF_GOTO(-1, H5E_PLIST, H5E_BADVALUE, "the fapl does not use the h5sf driver");
    if (h5sf_fapl_resolve(fapl_id, config, &eb) < 0)
        H5SF_GOTO_EB(-1, H5E_PLIST, H5E_BADVALUE, &eb);
    /* The fapl keeps its handles; the caller gets its own. */
    if (config->comm != MPI_COMM_NULL && h5sf_mpisite_comm_dup(config->comm, &config->comm) != MPI_SUCCESS)
        H5SF_GOTO(-1, H5E_PLIST, H5E_CANTCOPY, "cannot duplicate the fapl's communicator");
    if (config->info != MPI_INFO_NULL && h5sf_mpisite_info_dup(config->info, &config->info) != MPI_SUCCESS)
        H5SF_GOTO(-1, H5E_PLIST, H5E_CANTCOPY, "cannot duplicate the fapl's MPI info");
done:
    return ret_value;
}
