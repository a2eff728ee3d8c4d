/*
 * settings_impl.h -- shared by the files that implement common/settings.h
 * (options.c, settings.c, cfgstring.c); nobody else includes it.
 *
 * Calls go one way: cfgstring.c -> settings.c -> values.c, with options.c's
 * table read by both of the first; values.c knows none of them.
 */
#ifndef H5SF_SETTINGS_IMPL_H
#define H5SF_SETTINGS_IMPL_H

#include <stdbool.h>
#include "settings.h"

/* Rows of h5sf_options[] before its terminator; options.c and settings.c
 * check their tables against it at compile time. */
#define H5SF_NOPTIONS 9
/* Longest value a config string or the environment may give a setting:
 * a directory, with room for the surrounding blanks that get trimmed. */
#define H5SF_VALUE_MAX (H5SF_PATH_MAX + 64)
#define SHOW           H5SF_SHOW

/* settings.c: apply value v to option row i (what: the name to blame);
 * whether row i accepts an empty value (the directories). */
int  h5sf_option_set(size_t i, const char *v, h5sf_settings_t *c, h5sf_errbuf_t *e, const char *what);
bool h5sf_option_may_be_empty(size_t i);

/* options.c: the value of environment variable `name`, with "" taken as
 * unset (NULL); common/'s one reader of the environment. */
const char *h5sf_env_value(const char *name);

#endif
