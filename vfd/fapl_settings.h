/*
 * fapl_settings.h -- the public settings struct against common/'s (fapl_settings.c).
 *
 * common/ parses and checks an h5sf_settings_t, which has no MPI handles,
 * magic or version; H5Pset_fapl_h5sf takes an H5FD_h5sf_config_t
 * (include/h5sf.h).  These convert between the two and give the public
 * struct its defaults and checks.  Included by internal.h.
 */
#ifndef H5SF_VFD_FAPL_SETTINGS_H
#define H5SF_VFD_FAPL_SETTINGS_H

#include "h5sf.h"
#include "../common/settings.h"

/* Fill defaults: magic/version set, comm/info null, everything else "default". */
void h5sf_config_defaults(H5FD_h5sf_config_t *c);
/* Check a struct handed to H5Pset_fapl_h5sf: magic, version, then common/'s
 * checks of ranges, enums and strings. */
int h5sf_config_validate(const H5FD_h5sf_config_t *c, h5sf_errbuf_t *e);
/* The settings in c (its MPI handles, magic and version stay behind). */
void h5sf_config_to_settings(const H5FD_h5sf_config_t *c, h5sf_settings_t *s);
/* Copy s into c; c keeps its magic, version, comm and info. */
void h5sf_config_from_settings(const h5sf_settings_t *s, H5FD_h5sf_config_t *c);

#endif
