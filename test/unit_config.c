/* unit_config -- config strings, value parsers, validation, environment
 * precedence and format/parse round trips.  Serial; common/ only: needs neither MPI nor HDF5. */
#define _XOPEN_SOURCE 700
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "settings.h"
#include "h5sf_test.h"

/* Every variable the code reads, so the environment of the runner cannot leak in. */
static void clear_env(void)
{
    for (const h5sf_option_t *o = h5sf_options; o->key; o++) {
        unsetenv(o->env);
        if (o->fallback)
            unsetenv(o->fallback);
    }
    unsetenv("H5FD_SUBFILING_IOC_SELECTION_CRITERIA");
}

/* Parse str onto defaults; returns the rc, *c the result, e the message. */
static int parse(const char *str, h5sf_settings_t *c, h5sf_errbuf_t *e)
{
    h5sf_settings_defaults(c);
    memset(e, 0, sizeof *e);
    return h5sf_settings_parse(str, c, e);
}

/* str must fail, with a message containing each of the given words. */
static void bad(int line, const char *str, const char *w1, const char *w2)
{
    h5sf_settings_t c, before;
    h5sf_errbuf_t   e;
    h5sf_settings_defaults(&before);
    int rc = parse(str, &c, &e);
    CHECK_AT(line, rc != 0 && strstr(e.msg, w1) && (!w2 || strstr(e.msg, w2)),
             "parse(\"%s\") rc=%d msg=\"%s\" (want \"%s\"%s%s)", str, rc, e.msg, w1, w2 ? " and " : "", w2 ? w2 : "");
    /* all or nothing: a failed parse leaves the struct alone */
    CHECK_AT(line, rc == 0 || memcmp(&c, &before, sizeof c) == 0, "failed parse(\"%s\") modified the config", str);
}
#define BAD(s, w1, w2) bad(__LINE__, s, w1, w2)

static h5sf_settings_t good(int line, const char *str)
{
    h5sf_settings_t c;
    h5sf_errbuf_t   e;
    if (parse(str, &c, &e) != 0)
        CHECK_AT(line, 0, "parse(\"%s\"): %s", str, e.msg);
    else
        CHECK_AT(line, h5sf_settings_validate(&c, &e) == 0, "parse(\"%s\") gave an invalid config: %s", str, e.msg);
    return c;
}
#define GOOD(s) good(__LINE__, s)

static void test_sizes(void)
{
    static const struct {
        const char *s;
        int64_t     v;
    } ok[] = {
        {"1", 1},
        {"4096", 4096},
        {"+7", 7},
        {" 12 ", 12},
        {"1B", 1},
        {"3b", 3},
        {"1K", 1024},
        {"2k", 2048},
        {"1KiB", 1024},
        {"1kib", 1024},
        {"1KIB", 1024},
        {"2M", 2 << 20},
        {"3MiB", 3 << 20},
        {"32 MiB", 32 << 20},
        {"1G", (int64_t)1 << 30},
        {"1GiB", (int64_t)1 << 30},
        {"1T", (int64_t)1 << 40},
        {"2TiB", (int64_t)2 << 40},
        {"9223372036854775807", INT64_MAX},
        {"8388607TiB", (int64_t)8388607 << 40},
        {"007", 7},
    };
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        int64_t       v = -1;
        h5sf_errbuf_t e = {0};
        CHECK(h5sf_parse_size(ok[i].s, &v, &e, "stripe_size") == 0 && v == ok[i].v, "size \"%s\": %lld (%s)", ok[i].s,
              (long long)v, e.msg);
    }
    static const char *const no[] = {"0",
                                     "-1",
                                     "-0",
                                     "abc",
                                     "",
                                     "  ",
                                     "12Q",
                                     "1.5MiB",
                                     "12MiBx",
                                     "MiB",
                                     "1MB",
                                     "1 2",
                                     "1KB",
                                     "0x10",
                                     "1e6",
                                     "1,5M",
                                     "9223372036854775808",
                                     "8388608TiB",
                                     "99999999999999999999999",
                                     "1 MiB x",
                                     "0KiB",
                                     "--1",
                                     "KiB5"};
    for (size_t i = 0; i < sizeof no / sizeof no[0]; i++) {
        int64_t       v = 42;
        h5sf_errbuf_t e = {0};
        CHECK(h5sf_parse_size(no[i], &v, &e, "H5SF_STRIPE_SIZE") < 0 && v == 42, "size \"%s\" accepted", no[i]);
        CHECK(strstr(e.msg, "H5SF_STRIPE_SIZE") != NULL, "size \"%s\": message lacks the variable: %s", no[i], e.msg);
        if (no[i][0] && no[i][0] != ' ')
            CHECK(strstr(e.msg, no[i]) != NULL, "size \"%s\": message lacks the value: %s", no[i], e.msg);
    }
    /* the exact message promised in the docs */
    h5sf_errbuf_t e = {0};
    int64_t       v;
    h5sf_parse_size("12Q", &v, &e, "H5SF_STRIPE_SIZE");
    CHECK(strcmp(e.msg, "H5SF_STRIPE_SIZE=\"12Q\": unknown size unit \"Q\" (use B, KiB, MiB, GiB, TiB)") == 0,
          "message: %s", e.msg);
    /* a huge value does not overflow the message buffer and keeps the reason visible */
    char big[3000];
    memset(big, '7', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    CHECK(h5sf_parse_size(big, &v, &e, "stripe_size") < 0 && strstr(e.msg, "too large"), "big: %s", e.msg);
}

static void test_ints(void)
{
    int32_t       v;
    h5sf_errbuf_t e = {0};
    CHECK(h5sf_parse_int("5", 1, 10, &v, &e, "x") == 0 && v == 5, "5");
    CHECK(h5sf_parse_int(" -3 ", -5, 10, &v, &e, "x") == 0 && v == -3, "-3");
    CHECK(h5sf_parse_int("2147483647", 0, INT32_MAX, &v, &e, "x") == 0 && v == INT32_MAX, "max");
    CHECK(h5sf_parse_int("-2147483648", INT32_MIN, 0, &v, &e, "x") == 0 && v == INT32_MIN, "min");
    static const char *const no[] = {
        "", "x", "1x", "11", "0", "2147483648", "-2147483649", "1 1", "0x5", "1.0", "99999999999999999999999999"};
    for (size_t i = 0; i < sizeof no / sizeof no[0]; i++) {
        v = 77;
        CHECK(h5sf_parse_int(no[i], 1, 10, &v, &e, "H5SF_THREADS") < 0 && v == 77, "int \"%s\" accepted", no[i]);
        CHECK(strstr(e.msg, "H5SF_THREADS") && strstr(e.msg, no[i]), "int \"%s\": %s", no[i], e.msg);
    }
}

static void test_rank_list(void)
{
    int          *r = NULL, n = 0;
    h5sf_errbuf_t e = {0};
    CHECK(h5sf_parse_rank_list("0;4;8", 9, &r, &n, &e) == 0 && n == 3 && r[0] == 0 && r[1] == 4 && r[2] == 8,
          "0;4;8: %s", e.msg);
    free(r);
    CHECK(h5sf_parse_rank_list(" 8 ; 0;4 ", 9, &r, &n, &e) == 0 && n == 3 && r[0] == 0 && r[1] == 4 && r[2] == 8,
          "sorted: %s", e.msg);
    free(r);
    CHECK(h5sf_parse_rank_list("3", 4, &r, &n, &e) == 0 && n == 1 && r[0] == 3, "single");
    free(r);
    static const struct {
        const char *s;
        const char *why;
    } no[] = {{"0;4;4", "twice"},
              {"4;0;4", "twice"},
              {"0;9", "out of range"},
              {"-1", "negative"},
              {"", "expected"},
              {";", "expected"},
              {"0;;1", "expected"},
              {"0;", "expected"},
              {"a", "expected"},
              {"1;x", "expected"},
              {"1 2", "unexpected"},
              {"1,2", "unexpected"},
              {"99999999999", "out of range"}};
    for (size_t i = 0; i < sizeof no / sizeof no[0]; i++) {
        r = (int *)&n; /* must be reset */
        CHECK(h5sf_parse_rank_list(no[i].s, 9, &r, &n, &e) < 0 && r == NULL && n == 0, "list \"%s\" accepted", no[i].s);
        CHECK(strstr(e.msg, no[i].why) && strstr(e.msg, no[i].s), "list \"%s\": %s", no[i].s, e.msg);
    }
}

static void test_strings(void)
{
    h5sf_settings_t c;
    h5sf_errbuf_t   e;

    c = GOOD("");
    h5sf_settings_t d;
    h5sf_settings_defaults(&d);
    CHECK(memcmp(&c, &d, sizeof c) == 0, "empty string changes nothing");
    GOOD("  ");
    GOOD(",");
    GOOD(" , ,, ");
    CHECK(d.stripe_size == 0 && d.stripe_count == 0 && d.ioc_mode == H5SF_IOC_PER_NODE && d.ioc_param == 0 &&
              d.channel == H5SF_CHANNEL_AUTO && d.threads == 0 && d.timeout == 0 && d.fsync == 0 &&
              d.ioc_list[0] == '\0' && d.subfile_dir[0] == '\0' && d.config_dir[0] == '\0',
          "defaults");
    CHECK(h5sf_settings_validate(&d, &e) == 0, "defaults valid: %s", e.msg);

    c = GOOD("stripe_size=1MiB,stripe_count=4");
    CHECK(c.stripe_size == 1 << 20 && c.stripe_count == 4, "size/count");
    c = GOOD(" stripe_size = 64 KiB , threads = 8 ,");
    CHECK(c.stripe_size == 64 << 10 && c.threads == 8, "whitespace");
    c = GOOD("STRIPE_SIZE=2k");
    CHECK(c.stripe_size == 2048, "key case");
    c = GOOD("stripe_size=1M,stripe_size=2M");
    CHECK(c.stripe_size == 2 << 20, "last wins");
    c = GOOD("stripe_count=0");
    CHECK(c.stripe_count == 0, "count 0 = default");
    c = GOOD("stripe_count=65536");
    CHECK(c.stripe_count == 65536, "count max");

    c = GOOD("ioc=per_node");
    CHECK(c.ioc_mode == H5SF_IOC_PER_NODE && c.ioc_param == 0, "per_node");
    c = GOOD("ioc=per_node:2");
    CHECK(c.ioc_mode == H5SF_IOC_PER_NODE && c.ioc_param == 2, "per_node:2");
    c = GOOD("ioc=every:4");
    CHECK(c.ioc_mode == H5SF_IOC_EVERY_NTH && c.ioc_param == 4, "every");
    c = GOOD("ioc=total:3");
    CHECK(c.ioc_mode == H5SF_IOC_TOTAL && c.ioc_param == 3, "total");
    c = GOOD("ioc=ranks:8; 0 ;4");
    CHECK(c.ioc_mode == H5SF_IOC_LIST && strcmp(c.ioc_list, "0;4;8") == 0, "ranks: %s", c.ioc_list);
    c = GOOD("ioc=ranks:0;4,ioc=total:2");
    CHECK(c.ioc_mode == H5SF_IOC_TOTAL && c.ioc_list[0] == '\0', "list cleared");

    c = GOOD("threads=1");
    CHECK(c.threads == 1, "threads 1");
    c = GOOD("threads=256");
    CHECK(c.threads == 256, "threads 256");
    c = GOOD("channel=direct");
    CHECK(c.channel == H5SF_CHANNEL_DIRECT, "direct");
    c = GOOD("channel=IOC");
    CHECK(c.channel == H5SF_CHANNEL_IOC, "ioc");
    c = GOOD("channel=auto");
    CHECK(c.channel == H5SF_CHANNEL_AUTO, "auto");
    static const char *const yes[] = {"1", "true", "YES", "on"}, *const no[] = {"0", "false", "No", "OFF"};
    char s[64];
    for (int i = 0; i < 4; i++) {
        snprintf(s, sizeof s, "fsync=%s", yes[i]);
        c = GOOD(s);
        CHECK(c.fsync == 1, "%s", s);
        snprintf(s, sizeof s, "fsync=1,fsync=%s", no[i]);
        c = GOOD(s);
        CHECK(c.fsync == 0, "%s", s);
    }
    c = GOOD("timeout=1");
    CHECK(c.timeout == 1, "timeout 1");
    c = GOOD("timeout=86400");
    CHECK(c.timeout == 86400, "timeout max");
    c = GOOD("subfile_dir=/scratch/x,config_dir= /shared/cfg ");
    CHECK(strcmp(c.subfile_dir, "/scratch/x") == 0 && strcmp(c.config_dir, "/shared/cfg") == 0, "dirs");
    c = GOOD("subfile_dir=\"/a,b\\\"c\\\\d\" , config_dir=\" sp \"");
    CHECK(strcmp(c.subfile_dir, "/a,b\"c\\d") == 0 && strcmp(c.config_dir, " sp ") == 0, "quoted: [%s] [%s]",
          c.subfile_dir, c.config_dir);
    c = GOOD("subfile_dir=/a,subfile_dir=");
    CHECK(c.subfile_dir[0] == '\0', "empty dir resets to the default");
    c = GOOD("subfile_dir=a\"b");
    CHECK(strcmp(c.subfile_dir, "a\"b") == 0, "inner quote kept");

    /* bad values: the message names the key and the value */
    BAD("stripe_size=0", "stripe_size", "\"0\"");
    BAD("stripe_size=-4", "stripe_size", "-4");
    BAD("stripe_size=abc", "stripe_size", "abc");
    BAD("stripe_size=12Q", "stripe_size=\"12Q\": unknown size unit \"Q\"", NULL);
    BAD("stripe_size=4MiBx", "stripe_size", "4MiBx");
    BAD("stripe_size=99999999999999999999", "stripe_size", "too large");
    BAD("stripe_size=", "stripe_size", "empty");
    BAD("stripe_count=-1", "stripe_count", "-1");
    BAD("stripe_count=65537", "stripe_count", "65537");
    BAD("stripe_count=two", "stripe_count", "two");
    BAD("threads=0", "threads", "\"0\"");
    BAD("threads=257", "threads", "257");
    BAD("threads=4x", "threads", "4x");
    BAD("timeout=0", "timeout", "\"0\"");
    BAD("timeout=86401", "timeout", "86401");
    BAD("channel=mpi", "channel", "mpi");
    BAD("fsync=2", "fsync", "\"2\"");
    BAD("fsync=maybe", "fsync", "maybe");
    BAD("ioc=bogus", "ioc", "bogus");
    BAD("ioc=per_node:0", "ioc", "per_node:0");
    BAD("ioc=every", "ioc", "every");
    BAD("ioc=every:", "ioc", "every:");
    BAD("ioc=every:x", "ioc", "every:x");
    BAD("ioc=total:-1", "ioc", "total:-1");
    BAD("ioc=total:99999999999", "ioc", "total:99999999999");
    BAD("ioc=ranks:", "ioc", "ranks:");
    BAD("ioc=ranks:0;0", "ioc", "twice");
    BAD("ioc=ranks:0;;1", "ioc", "0;;1");
    BAD("ioc=ranks:a", "ioc", "ranks:a");
    BAD("ioc=ranks:0,1", "\"1\"", "key=value");
    BAD("ioc=per_nodes", "ioc", "per_nodes");
    BAD("bogus=1", "unknown key \"bogus\"",
        "stripe_size, stripe_count, ioc, threads, channel, fsync, timeout, "
        "subfile_dir, config_dir");
    BAD("stripe_size", "stripe_size", "key=value");
    BAD("=5", "unknown key \"\"", NULL);
    BAD("threads=4,junk", "junk", "key=value");
    BAD("subfile_dir=\"/a", "subfile_dir", "unterminated");
    BAD("subfile_dir=\"/a\" x", "subfile_dir", "after the quoted value");
    BAD("threads=4,stripe_size=1Q", "stripe_size", "1Q"); /* all or nothing: threads stays default */

    /* too long a path */
    char *lng = malloc(H5SF_PATH_MAX + 100);
    strcpy(lng, "subfile_dir=/");
    memset(lng + 13, 'p', H5SF_PATH_MAX);
    lng[13 + H5SF_PATH_MAX] = '\0';
    BAD(lng, "subfile_dir", "longer than");
    /* a path of exactly PATH_MAX-1 characters fits */
    lng[13 + H5SF_PATH_MAX - 2] = '\0';
    c                           = GOOD(lng);
    CHECK(strlen(c.subfile_dir) == H5SF_PATH_MAX - 1, "longest path");
    free(lng);
    /* a rank list longer than ioc_list */
    char *rl = malloc(8000), *p = rl;
    p += sprintf(p, "ioc=ranks:");
    for (int i = 0; i < 1000; i++)
        p += sprintf(p, "%s%d", i ? ";" : "", i + 1000);
    BAD(rl, "ioc", "long");
    free(rl);
}

static void test_validate(void)
{
    h5sf_settings_t c;
    h5sf_errbuf_t   e;
#define INVALID(stmt, word)                                                                                            \
    do {                                                                                                               \
        h5sf_settings_defaults(&c);                                                                                    \
        stmt;                                                                                                          \
        memset(&e, 0, sizeof e);                                                                                       \
        CHECK(h5sf_settings_validate(&c, &e) < 0 && strstr(e.msg, word), "validate %s: %s", #stmt, e.msg);             \
    } while (0)
    /* magic and version are the public struct's: t_config (H5Pset_fapl_h5sf). */
    INVALID(c.stripe_size = -1, "stripe_size");
    INVALID(c.stripe_count = -1, "stripe_count");
    INVALID(c.stripe_count = H5SF_MAX_STRIPE_COUNT + 1, "stripe_count");
    INVALID(c.ioc_mode = (int32_t)4, "ioc_mode");
    INVALID(c.ioc_mode = (int32_t)-1, "ioc_mode");
    INVALID(c.ioc_param = -1, "ioc_param");
    INVALID(c.ioc_param = 1 << 30, "ioc_param");
    INVALID((c.ioc_mode = H5SF_IOC_LIST, c.ioc_list[0] = '\0'), "ioc_list");
    INVALID((c.ioc_mode = H5SF_IOC_LIST, strcpy(c.ioc_list, "1;1")), "ioc_list");
    INVALID(memset(c.ioc_list, 'x', sizeof c.ioc_list), "ioc_list");
    INVALID(c.threads = -1, "threads");
    INVALID(c.threads = H5SF_MAX_THREADS + 1, "threads");
    INVALID(c.channel = (int32_t)3, "channel");
    INVALID(c.fsync = 2, "fsync");
    INVALID(c.timeout = -5, "timeout");
    INVALID(c.timeout = 86401, "timeout");
    INVALID(memset(c.subfile_dir, 'x', sizeof c.subfile_dir), "subfile_dir");
    INVALID(memset(c.config_dir, 'x', sizeof c.config_dir), "config_dir");
    CHECK(h5sf_settings_validate(NULL, &e) < 0, "NULL");
    /* stripes past the address space (common/stripe.h sf_stripes_fit) */
    h5sf_settings_defaults(&c);
    c.stripe_size  = (int64_t)1 << 62;
    c.stripe_count = 5;
    CHECK(h5sf_settings_validate(&c, &e) < 0 && strstr(e.msg, "address space"), "2^62 x 5: %s", e.msg);
    /* extremes that are fine */
    h5sf_settings_defaults(&c);
    c.stripe_size  = INT64_MAX;
    c.stripe_count = 1;
    CHECK(h5sf_settings_validate(&c, &e) == 0, "INT64_MAX x 1: %s", e.msg);
    c.stripe_size  = (int64_t)((((uint64_t)1 << 62) - 1) / (H5SF_MAX_STRIPE_COUNT - 1));
    c.stripe_count = H5SF_MAX_STRIPE_COUNT;
    c.threads      = H5SF_MAX_THREADS;
    c.timeout      = 86400;
    c.ioc_mode     = H5SF_IOC_LIST;
    strcpy(c.ioc_list, "0;1;2");
    CHECK(h5sf_settings_validate(&c, &e) == 0, "extremes: %s", e.msg);
}

static void set(const char *k, const char *v) { setenv(k, v, 1); }

static h5sf_settings_t env_result(int line, const char *str)
{
    h5sf_settings_t c = good(line, str);
    h5sf_errbuf_t   e = {0};
    CHECK_AT(line, h5sf_settings_apply_env(&c, &e) == 0, "apply_env: %s", e.msg);
    return c;
}
#define ENV(s) env_result(__LINE__, s)

static void env_bad(int line, const char *want1, const char *want2)
{
    h5sf_settings_t c, before;
    h5sf_errbuf_t   e = {0};
    h5sf_settings_defaults(&c);
    before = c;
    int rc = h5sf_settings_apply_env(&c, &e);
    CHECK_AT(line, rc != 0 && strstr(e.msg, want1) && (!want2 || strstr(e.msg, want2)),
             "apply_env: \"%s\" (want \"%s\")", e.msg, want1);
    CHECK(memcmp(&c, &before, sizeof c) == 0, "failed apply_env (line %d) modified the config", line);
}
#define ENV_BAD(w1, w2) env_bad(__LINE__, w1, w2)

static void test_env(void)
{
    h5sf_settings_t c;
    clear_env();

    /* defaults < string < fallback < H5SF_* */
    c = ENV("");
    CHECK(c.stripe_size == 0, "no env: default");
    c = ENV("stripe_size=1MiB");
    CHECK(c.stripe_size == 1 << 20, "string");
    set("H5FD_SUBFILING_STRIPE_SIZE", "2097152");
    c = ENV("stripe_size=1MiB");
    CHECK(c.stripe_size == 2 << 20, "fallback beats string");
    set("H5SF_STRIPE_SIZE", "4MiB");
    c = ENV("stripe_size=1MiB");
    CHECK(c.stripe_size == 4 << 20, "H5SF beats fallback");
    set("H5SF_STRIPE_SIZE", "");
    c = ENV("stripe_size=1MiB");
    CHECK(c.stripe_size == 2 << 20, "empty H5SF_* is unset");
    set("H5FD_SUBFILING_STRIPE_SIZE", "");
    c = ENV("stripe_size=1MiB");
    CHECK(c.stripe_size == 1 << 20, "empty fallback is unset");
    set("H5SF_STRIPE_SIZE", "12Q");
    ENV_BAD("H5SF_STRIPE_SIZE=\"12Q\": unknown size unit \"Q\" (use B, KiB, MiB, GiB, TiB)", NULL);
    set("H5SF_STRIPE_SIZE", "");
    set("H5FD_SUBFILING_STRIPE_SIZE", "abc");
    ENV_BAD("H5FD_SUBFILING_STRIPE_SIZE", "abc");
    set("H5SF_STRIPE_SIZE", "8MiB"); /* a bad fallback fails even if H5SF_* would override it */
    ENV_BAD("H5FD_SUBFILING_STRIPE_SIZE", "abc");
    clear_env();

    set("H5SF_STRIPE_COUNT", "7");
    c = ENV("stripe_count=2");
    CHECK(c.stripe_count == 7, "stripe_count env");
    set("H5SF_STRIPE_COUNT", "70000");
    ENV_BAD("H5SF_STRIPE_COUNT", "70000");
    clear_env();

    set("H5FD_IOC_THREAD_POOL_SIZE", "8");
    c = ENV("threads=2");
    CHECK(c.threads == 8, "thread fallback");
    set("H5SF_THREADS", " 16 ");
    c = ENV("threads=2");
    CHECK(c.threads == 16, "H5SF_THREADS");
    set("H5SF_THREADS", "   ");
    c = ENV("threads=2");
    CHECK(c.threads == 8, "blank is unset");
    set("H5FD_IOC_THREAD_POOL_SIZE", "0");
    ENV_BAD("H5FD_IOC_THREAD_POOL_SIZE", "\"0\"");
    clear_env();

    set("H5SF_CHANNEL", "direct");
    set("H5SF_FSYNC", "yes");
    set("H5SF_TIMEOUT", "60");
    c = ENV("channel=ioc,fsync=0,timeout=5");
    CHECK(c.channel == H5SF_CHANNEL_DIRECT && c.fsync == 1 && c.timeout == 60, "channel/fsync/timeout");
    set("H5SF_TIMEOUT", "1e3");
    ENV_BAD("H5SF_TIMEOUT", "1e3");
    set("H5SF_TIMEOUT", "");
    set("H5SF_CHANNEL", "fast");
    ENV_BAD("H5SF_CHANNEL", "fast");
    set("H5SF_CHANNEL", "");
    set("H5SF_FSYNC", "sometimes");
    ENV_BAD("H5SF_FSYNC", "sometimes");
    clear_env();

    set("H5FD_SUBFILING_SUBFILE_PREFIX", "/fb/sub");
    set("H5FD_SUBFILING_CONFIG_FILE_PREFIX", "/fb/cfg");
    c = ENV("subfile_dir=/s,config_dir=/c");
    CHECK(strcmp(c.subfile_dir, "/fb/sub") == 0 && strcmp(c.config_dir, "/fb/cfg") == 0, "dir fallbacks");
    set("H5SF_SUBFILE_DIR", "/ours/sub");
    set("H5SF_CONFIG_DIR", "/ours/cfg");
    c = ENV("subfile_dir=/s,config_dir=/c");
    CHECK(strcmp(c.subfile_dir, "/ours/sub") == 0 && strcmp(c.config_dir, "/ours/cfg") == 0, "dir H5SF");
    char *lng = malloc(H5SF_PATH_MAX + 10);
    memset(lng, 'd', H5SF_PATH_MAX + 9);
    lng[H5SF_PATH_MAX + 9] = '\0';
    set("H5SF_SUBFILE_DIR", lng);
    ENV_BAD("H5SF_SUBFILE_DIR", "longer than");
    free(lng);
    clear_env();

    /* IOC: the built-in's two variables, then ours */
    set("H5FD_SUBFILING_IOC_PER_NODE", "2");
    c = ENV("ioc=every:3");
    CHECK(c.ioc_mode == H5SF_IOC_PER_NODE && c.ioc_param == 2, "IOC_PER_NODE => per_node:2");
    set("H5FD_SUBFILING_IOC_SELECTION_CRITERIA", "1:64");
    c = ENV("");
    CHECK(c.ioc_mode == H5SF_IOC_EVERY_NTH && c.ioc_param == 64, "criteria 1:64 (per-node ignored)");
    set("H5FD_SUBFILING_IOC_SELECTION_CRITERIA", "3:5");
    c = ENV("ioc=ranks:0;1");
    CHECK(c.ioc_mode == H5SF_IOC_TOTAL && c.ioc_param == 5 && c.ioc_list[0] == '\0', "criteria 3:5");
    set("H5FD_SUBFILING_IOC_SELECTION_CRITERIA", "0:9");
    c = ENV("ioc=total:4");
    CHECK(c.ioc_mode == H5SF_IOC_PER_NODE && c.ioc_param == 2, "criteria 0 + per node 2");
    unsetenv("H5FD_SUBFILING_IOC_PER_NODE");
    c = ENV("ioc=per_node:3");
    CHECK(c.ioc_mode == H5SF_IOC_PER_NODE && c.ioc_param == 3, "criteria 0 keeps per_node:3");
    set("H5FD_SUBFILING_IOC_SELECTION_CRITERIA", "6");
    c = ENV("ioc=every:2");
    CHECK(c.ioc_mode == H5SF_IOC_EVERY_NTH && c.ioc_param == 6, "bare value parameterizes every");
    c = ENV("");
    CHECK(c.ioc_mode == H5SF_IOC_PER_NODE && c.ioc_param == 0, "bare value ignored for per_node");
    set("H5FD_SUBFILING_IOC_SELECTION_CRITERIA", "2:/some/file");
    ENV_BAD("H5FD_SUBFILING_IOC_SELECTION_CRITERIA", "not supported");
    set("H5FD_SUBFILING_IOC_SELECTION_CRITERIA", "7:1");
    ENV_BAD("H5FD_SUBFILING_IOC_SELECTION_CRITERIA", "7:1");
    set("H5FD_SUBFILING_IOC_SELECTION_CRITERIA", "x:1");
    ENV_BAD("H5FD_SUBFILING_IOC_SELECTION_CRITERIA", "x:1");
    set("H5FD_SUBFILING_IOC_SELECTION_CRITERIA", "1:0");
    ENV_BAD("H5FD_SUBFILING_IOC_SELECTION_CRITERIA", "1:0");
    set("H5FD_SUBFILING_IOC_SELECTION_CRITERIA", "1:");
    ENV_BAD("H5FD_SUBFILING_IOC_SELECTION_CRITERIA", "1:");
    set("H5FD_SUBFILING_IOC_SELECTION_CRITERIA", "abc");
    ENV_BAD("H5FD_SUBFILING_IOC_SELECTION_CRITERIA", "abc");
    set("H5FD_SUBFILING_IOC_SELECTION_CRITERIA",
        "00000000000000000000000000000000000000000000000000000000000000000001:4");
    ENV_BAD("H5FD_SUBFILING_IOC_SELECTION_CRITERIA", "unknown selection criteria");
    unsetenv("H5FD_SUBFILING_IOC_SELECTION_CRITERIA");
    set("H5FD_SUBFILING_IOC_PER_NODE", "-2");
    ENV_BAD("H5FD_SUBFILING_IOC_PER_NODE", "-2");
    set("H5FD_SUBFILING_IOC_PER_NODE", "2");
    set("H5SF_IOC", "ranks:4;0");
    c = ENV("");
    CHECK(c.ioc_mode == H5SF_IOC_LIST && strcmp(c.ioc_list, "0;4") == 0, "H5SF_IOC beats fallbacks");
    set("H5SF_IOC", "ranks:0;0");
    ENV_BAD("H5SF_IOC", "twice");
    clear_env();
}

/* format -> parse -> format is a fixed point; explicit settings survive exactly. */
static void roundtrip(int line, const char *str)
{
    h5sf_settings_t c = good(line, str), r;
    h5sf_errbuf_t   e = {0};
    char            s1[12000], s2[12000];
    int             n1 = h5sf_settings_format(&c, s1, sizeof s1);
    CHECK(n1 > 0 && (size_t)n1 == strlen(s1), "format(%s) = %d (line %d)", str, n1, line);
    h5sf_settings_defaults(&r);
    CHECK(h5sf_settings_parse(s1, &r, &e) == 0, "parse(format(%s)) = parse(%s): %s (line %d)", str, s1, e.msg, line);
    int n2 = h5sf_settings_format(&r, s2, sizeof s2);
    CHECK(n2 == n1 && strcmp(s1, s2) == 0, "format not a fixed point: %s vs %s (line %d)", s1, s2, line);
    /* fields set explicitly must come back identical */
    if (c.stripe_size)
        CHECK(r.stripe_size == c.stripe_size, "stripe_size (line %d)", line);
    CHECK(r.stripe_count == c.stripe_count && r.ioc_mode == c.ioc_mode && r.channel == c.channel &&
              r.fsync == c.fsync && strcmp(r.ioc_list, c.ioc_list) == 0 && strcmp(r.subfile_dir, c.subfile_dir) == 0 &&
              strcmp(r.config_dir, c.config_dir) == 0,
          "fields differ after round trip of \"%s\" via \"%s\" (line %d)", str, s1, line);
    if (c.ioc_param)
        CHECK(r.ioc_param == c.ioc_param, "ioc_param (line %d)", line);
    if (c.threads)
        CHECK(r.threads == c.threads, "threads (line %d)", line);
    if (c.timeout)
        CHECK(r.timeout == c.timeout, "timeout (line %d)", line);
}
#define ROUNDTRIP(s) roundtrip(__LINE__, s)

static void test_format(void)
{
    char            buf[4096];
    h5sf_settings_t c;
    h5sf_settings_defaults(&c);
    int n = h5sf_settings_format(&c, buf, sizeof buf);
    CHECK(n > 0 && strcmp(buf, "stripe_size=32MiB,stripe_count=0,ioc=per_node,threads=4,channel=auto,fsync=0,"
                               "timeout=300") == 0,
          "defaults: %s", buf);
    ROUNDTRIP("");
    ROUNDTRIP("stripe_size=1,stripe_count=1");
    ROUNDTRIP("stripe_size=1536KiB,stripe_count=65536,ioc=per_node:3,threads=256,channel=direct,fsync=1");
    ROUNDTRIP("stripe_size=9223372036854775807,ioc=every:7,timeout=86400,channel=ioc");
    ROUNDTRIP("stripe_size=3TiB,ioc=total:2,timeout=1");
    ROUNDTRIP("stripe_size=1000,ioc=ranks:9;3;1");
    ROUNDTRIP("subfile_dir=/tmp/a b,config_dir=/x");
    ROUNDTRIP("subfile_dir=\"/tmp/a,b\",config_dir=\" lead\"");
    ROUNDTRIP("subfile_dir=\"q\\\"uo\\\\te\\\\\",config_dir=\"\\\"start\"");
    ROUNDTRIP("subfile_dir=back\\slash,config_dir=tab\there");
    ROUNDTRIP("subfile_dir=\"trailing \",config_dir=a=b");
    c = good(__LINE__, "stripe_size=1MiB");
    CHECK(h5sf_settings_format(&c, buf, 10) < 0 && strlen(buf) < 10, "too small a buffer");
    CHECK(h5sf_settings_format(&c, buf, 0) < 0, "zero buffer");
    c.fsync = 2;
    CHECK(h5sf_settings_format(&c, buf, sizeof buf) < 0, "invalid config");
}

static void test_tables(void)
{
    size_t n = 0;
    for (const h5sf_option_t *o = h5sf_options; o->key; o++, n++) {
        CHECK(o->env && strncmp(o->env, "H5SF_", 5) == 0, "%s: env %s", o->key, o->env);
        CHECK(o->def && o->syntax && o->help && *o->help, "%s: doc fields", o->key);
        /* the key is accepted by the parser (with a value from its default where numeric) */
    }
    CHECK(n == 9, "%zu options", n);
    static const char *const rt[] = {"H5SF_STATS",         "H5SF_LOG",    "H5SF_FAULT",
                                     "H5SF_REDIRECT_MPIO", "HDF5_DRIVER", "HDF5_DRIVER_CONFIG"};
    for (size_t i = 0; i < 6; i++) {
        const h5sf_option_t *o = h5sf_runtime_vars;
        while (o->key && strcmp(o->env, rt[i]) != 0)
            o++;
        CHECK(o->key && strcmp(o->key, "-") == 0 && o->help && *o->help, "runtime var %s", rt[i]);
    }
}

/* The environment read by row: each H5SF_VAR_* names its own row (the
 * names below are written out, not taken from the table), and
 * h5sf_option_env takes the H5SF_* variable over the built-in's, counting
 * "" as unset. */
static void test_env_rows(void)
{
    static const char *const names[H5SF_NVARS] = {
        [H5SF_VAR_STATS]                   = "H5SF_STATS",
        [H5SF_VAR_LOG]                     = "H5SF_LOG",
        [H5SF_VAR_IOC_MEMORY]              = "H5SF_IOC_MEMORY",
        [H5SF_VAR_IOC_SHM]                 = "H5SF_IOC_SHM",
        [H5SF_VAR_IOC_MAX_FDS]             = "H5SF_IOC_MAX_FDS",
        [H5SF_VAR_IOC_MERGE_WAIT]          = "H5SF_IOC_MERGE_WAIT",
        [H5SF_VAR_SAMENODE_READS]          = "H5SF_SAMENODE_READS",
        [H5SF_VAR_SAMENODE_WRITES]         = "H5SF_SAMENODE_WRITES",
        [H5SF_VAR_IOC_AFFINITY]            = "H5SF_IOC_AFFINITY",
        [H5SF_VAR_POOL_THREADS]            = "H5SF_POOL_THREADS",
        [H5SF_VAR_FAULT]                   = "H5SF_FAULT",
        [H5SF_VAR_ALLOW_UNTESTED_HDF5]     = "H5SF_ALLOW_UNTESTED_HDF5",
        [H5SF_VAR_TEST_NO_PRIVATE_HDF5]    = "H5SF_TEST_NO_PRIVATE_HDF5",
        [H5SF_VAR_TEST_TAG_UB]             = "H5SF_TEST_TAG_UB",
        [H5SF_VAR_TEST_MAX_PIECES]         = "H5SF_TEST_MAX_PIECES",
        [H5SF_VAR_TEST_BELL_WAIT_S]        = "H5SF_TEST_BELL_WAIT_S",
        [H5SF_VAR_TEST_SITES_TRACE]        = "H5SF_TEST_SITES_TRACE",
        [H5SF_VAR_REDIRECT_MPIO]           = "H5SF_REDIRECT_MPIO",
        [H5SF_VAR_PRELOAD_THREAD_MULTIPLE] = "H5SF_PRELOAD_THREAD_MULTIPLE",
        [H5SF_VAR_HDF5_DRIVER]             = "HDF5_DRIVER",
        [H5SF_VAR_HDF5_DRIVER_CONFIG]      = "HDF5_DRIVER_CONFIG",
    };
    size_t rows = 0;
    for (const h5sf_option_t *o = h5sf_runtime_vars; o->key; o++)
        rows++;
    CHECK(rows == H5SF_NVARS, "%zu runtime rows before the terminator, %d names", rows, (int)H5SF_NVARS);
    for (int v = 0; v < H5SF_NVARS; v++) {
        const char *env = h5sf_runtime_vars[v].env;
        CHECK(names[v] && env && strcmp(env, names[v]) == 0, "row %d is %s, not %s", v, env ? env : "(none)",
              names[v] ? names[v] : "(none)");
        if (!names[v])
            continue;
        char *old = getenv(names[v]) ? strdup(getenv(names[v])) : NULL;
        unsetenv(names[v]);
        CHECK(h5sf_var((h5sf_var_t)v) == NULL, "%s unset", names[v]);
        setenv(names[v], "row-value", 1);
        CHECK(h5sf_var((h5sf_var_t)v) && strcmp(h5sf_var((h5sf_var_t)v), "row-value") == 0, "%s set", names[v]);
        setenv(names[v], "", 1);
        CHECK(h5sf_var((h5sf_var_t)v) && !*h5sf_var((h5sf_var_t)v), "%s empty: as getenv gives it", names[v]);
        if (old)
            setenv(names[v], old, 1);
        else
            unsetenv(names[v]);
        free(old);
    }
    CHECK(h5sf_var(H5SF_NVARS) == NULL && h5sf_var((h5sf_var_t)-1) == NULL, "out-of-range rows");

    unsetenv("H5SF_CONFIG_DIR");
    unsetenv("H5FD_SUBFILING_CONFIG_FILE_PREFIX");
    CHECK(h5sf_option_env("config_dir") == NULL, "config_dir: neither set");
    setenv("H5FD_SUBFILING_CONFIG_FILE_PREFIX", "/builtin", 1);
    CHECK(h5sf_option_env("config_dir") && !strcmp(h5sf_option_env("config_dir"), "/builtin"), "fallback");
    setenv("H5SF_CONFIG_DIR", "", 1);
    CHECK(h5sf_option_env("config_dir") && !strcmp(h5sf_option_env("config_dir"), "/builtin"), "empty H5SF_*");
    setenv("H5SF_CONFIG_DIR", "/ours", 1);
    CHECK(h5sf_option_env("config_dir") && !strcmp(h5sf_option_env("config_dir"), "/ours"), "H5SF_* wins");
    setenv("H5FD_SUBFILING_CONFIG_FILE_PREFIX", "", 1);
    unsetenv("H5SF_CONFIG_DIR");
    CHECK(h5sf_option_env("config_dir") == NULL, "config_dir: both empty or unset");
    unsetenv("H5FD_SUBFILING_CONFIG_FILE_PREFIX");
    setenv("H5SF_CHANNEL", "ioc", 1);
    CHECK(h5sf_option_env("channel") && !strcmp(h5sf_option_env("channel"), "ioc"), "an option without fallback");
    unsetenv("H5SF_CHANNEL");
    CHECK(h5sf_option_env("no_such_key") == NULL && h5sf_option_env(NULL) == NULL, "unknown key");
}

/* Renamed variables: the old name (written out here) is read only while
 * the new one is unset, and messages name the one read. */
static void test_env_alias(void)
{
    static const struct {
        h5sf_var_t  v;
        const char *now, *old;
    } renamed[] = {
        {H5SF_VAR_SAMENODE_READS, "H5SF_SAMENODE_READS", "H5SF_IOC_LOCAL_READS"},
        {H5SF_VAR_SAMENODE_WRITES, "H5SF_SAMENODE_WRITES", "H5SF_IOC_LOCAL_WRITES"},
    };
    for (size_t i = 0; i < sizeof renamed / sizeof renamed[0]; i++) {
        const char *now = renamed[i].now, *old = renamed[i].old;
        h5sf_var_t  v = renamed[i].v;
        unsetenv(now);
        unsetenv(old);
        CHECK(h5sf_var(v) == NULL && !strcmp(h5sf_var_name(v), now), "%s: neither set", now);
        setenv(old, "dense", 1);
        CHECK(h5sf_var(v) && !strcmp(h5sf_var(v), "dense"), "%s: the old name %s is read", now, old);
        CHECK(!strcmp(h5sf_var_name(v), old), "%s: messages name %s, not %s", now, old, h5sf_var_name(v));
        setenv(now, "0", 1);
        CHECK(h5sf_var(v) && !strcmp(h5sf_var(v), "0") && !strcmp(h5sf_var_name(v), now), "%s: the new name wins", now);
        setenv(now, "", 1);
        CHECK(h5sf_var(v) && !*h5sf_var(v), "%s set empty still hides %s", now, old);
        unsetenv(now);
        unsetenv(old);
    }
    CHECK(!strcmp(h5sf_var_name(H5SF_VAR_STATS), "H5SF_STATS"), "a variable without an old name");
}

int main(void)
{
    t_start("unit_config");
    test_sizes();
    test_ints();
    test_rank_list();
    test_strings();
    test_validate();
    test_env();
    test_format();
    test_tables();
    test_env_rows();
    test_env_alias();
    return t_verdict();
}
