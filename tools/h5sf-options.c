/*
 * h5sf-options -- print h5sf's settings from the code's own option table.
 *
 *   h5sf-options             plain text, one block per setting
 *   h5sf-options --markdown  the reference tables of docs/configuration.md
 *
 * Both forms read h5sf_options[] and h5sf_runtime_vars[] (common/options.c),
 * the same tables the parser uses; a test compares the Markdown form with
 * the text between the OPTIONS markers of docs/configuration.md, so the
 * documentation cannot drift from the code.
 */
#include <stdio.h>
#include <string.h>
#include "settings.h"

#ifndef H5SF_VERSION_STRING /* set by tools/tools.cmake */
#define H5SF_VERSION_STRING "unknown"
#endif

/* Text for a Markdown table cell: pipes would end the cell and <...> would
 * be taken for HTML, so both are escaped; newlines would end the row. */
static void md_cell(const char *s)
{
    for (; s && *s; s++) {
        switch (*s) {
            case '|': fputs("\\|", stdout); break;
            case '<': fputs("&lt;", stdout); break;
            case '>': fputs("&gt;", stdout); break;
            case '&': fputs("&amp;", stdout); break;
            case '\n': putchar(' '); break;
            default: putchar(*s);
        }
    }
}

/* A code span, or "-" for "none"; names and keys never contain a backtick. */
static void md_code(const char *s)
{
    if (!s || !*s || !strcmp(s, "-")) {
        fputs("-", stdout);
        return;
    }
    printf("`%s`", s);
}

static void markdown(void)
{
    puts("### Options");
    puts("");
    puts("Config-string key (`H5Pset_driver_by_name`, `HDF5_DRIVER_CONFIG`), its environment variable, the");
    puts("variable of HDF5's built-in subfiling driver that h5sf also honours, and the default.");
    puts("");
    puts("| Key | Environment variable | Built-in driver's variable | Default | Values | Meaning |");
    puts("| --- | --- | --- | --- | --- | --- |");
    for (const h5sf_option_t *o = h5sf_options; o->key; o++) {
        fputs("| ", stdout);
        md_code(o->key);
        fputs(" | ", stdout);
        md_code(o->env);
        fputs(" | ", stdout);
        md_code(o->fallback);
        fputs(" | ", stdout);
        md_cell(o->def);
        fputs(" | ", stdout);
        md_cell(o->syntax);
        fputs(" | ", stdout);
        md_cell(o->help);
        puts(" |");
    }
    puts("");
    puts("### Runtime variables");
    puts("");
    puts("Environment variables that are not layout options.");
    puts("");
    puts("| Variable | Default | Values | Meaning |");
    puts("| --- | --- | --- | --- |");
    for (const h5sf_option_t *o = h5sf_runtime_vars; o->key; o++) {
        fputs("| ", stdout);
        md_code(o->env);
        if (o->fallback) {
            fputs(" (old name ", stdout);
            md_code(o->fallback);
            fputs(", still read when the new one is unset)", stdout);
        }
        fputs(" | ", stdout);
        md_cell(o->def);
        fputs(" | ", stdout);
        md_cell(o->syntax);
        fputs(" | ", stdout);
        md_cell(o->help);
        puts(" |");
    }
}

static void text_block(const h5sf_option_t *o)
{
    if (o->key && strcmp(o->key, "-"))
        printf("%s\n", o->key);
    else
        printf("%s\n", o->env);
    if (o->key && strcmp(o->key, "-"))
        printf("    environment:  %s%s%s\n", o->env, o->fallback ? ", fallback " : "", o->fallback ? o->fallback : "");
    else if (o->fallback)
        printf("    old name:     %s (still read when %s is unset)\n", o->fallback, o->env);
    printf("    default:      %s\n", o->def);
    printf("    values:       %s\n", o->syntax);
    printf("    %s\n\n", o->help);
}

static void text(void)
{
    puts("Options (config-string key; precedence: defaults < fapl / config string < built-in's variable");
    puts("< H5SF_* variable; an existing file's stored layout wins):\n");
    for (const h5sf_option_t *o = h5sf_options; o->key; o++)
        text_block(o);
    puts("Runtime variables:\n");
    for (const h5sf_option_t *o = h5sf_runtime_vars; o->key; o++)
        text_block(o);
}

static void usage(FILE *fp)
{
    fputs("usage: h5sf-options [--markdown]\n"
          "Print every h5sf config-string key and environment variable with its default.\n"
          "  -m, --markdown  Markdown tables, as in docs/configuration.md\n"
          "  -V, --version   h5sf version\n"
          "  -h, --help      this text\n",
          fp);
}

int main(int argc, char **argv)
{
    int md = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--markdown") || !strcmp(argv[i], "-m"))
            md = 1;
        else if (!strcmp(argv[i], "--version") || !strcmp(argv[i], "-V")) {
            printf("h5sf-options (h5sf) %s\n", H5SF_VERSION_STRING);
            return 0;
        }
        else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            usage(stdout);
            return 0;
        }
        else {
            fprintf(stderr, "h5sf-options: unknown argument '%s'\n", argv[i]);
            usage(stderr);
            return 2;
        }
    }
    if (md)
        markdown();
    else
        text();
    if (fflush(stdout) != 0 || ferror(stdout)) {
        perror("h5sf-options: writing the output");
        return 1;
    }
    return 0;
}
