/* fuzz_orphans -- libFuzzer target for the orphan decision (common/orphans.c):
 * a config file's name and text, parsed as h5sf-orphans, H5Fcreate's reclaim
 * and the preload shim read them, then judged against file-system facts
 * taken from the input.
 *
 * Input: one byte of facts (bit 0 the stub exists, 1 it has the set's inode
 * and a create is replacing that inode, 2 a file beside the stub has it,
 * 3 one beside the subfiles, 4 the config file is a symlink, 5 it is
 * another uid's, 6 it has two links, 7 only sets naming this stub), the
 * config file's name up to the first '\n', then its text (exact-size
 * buffer, no NUL).  Checks: no crash; an accepted set names only files of
 * its own set (h5sf_setname_match), an absolute stub ending in its base and
 * an absolute subfile_dir; the judge never calls a set with a live stub an
 * orphan and lets the caller remove only its own regular, single-link
 * config file.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "orphans.h"

#define BAD(...)                                                                                                       \
    do {                                                                                                               \
        fprintf(stderr, "fuzz_orphans: " __VA_ARGS__);                                                                 \
        fprintf(stderr, "\n");                                                                                         \
        abort();                                                                                                       \
    } while (0)

static void check_set(const h5sf_orphan_t *o)
{
    const h5sf_layout_t *l  = &o->layout;
    const char          *cn = strrchr(o->config, '/') + 1;
    size_t               bl = strlen(l->base), sl = strlen(o->stub);
    char                 path[2 * H5SF_LAYOUT_PATH_MAX];
    if (h5sf_setname_match(cn, l->base, l->inode, NULL, NULL) != H5SF_SETNAME_CONFIG)
        BAD("config file %s is not named for (%s, %llu)", o->config, l->base, (unsigned long long)l->inode);
    if (o->stub[0] != '/' || sl <= bl || strcmp(o->stub + sl - bl, l->base) != 0 || o->stub[sl - bl - 1] != '/')
        BAD("stub %s does not end in /%s", o->stub, l->base);
    if (l->stub_dir[0] != '/' || (l->subfile_dir[0] && l->subfile_dir[0] != '/'))
        BAD("relative directory: stub_dir %s, subfile_dir %s", l->stub_dir, l->subfile_dir);
    for (int s = 0; s < l->stripe_count && s < 64; s++) {
        int k = 0, n = 0;
        if (h5sf_subfile_path(l, s, path, sizeof path, NULL) < 0)
            continue;
        if (h5sf_setname_match(strrchr(path, '/') + 1, l->base, l->inode, &k, &n) != H5SF_SETNAME_SUBFILE ||
            k != s + 1 || n != l->stripe_count)
            BAD("subfile %d path %s is not its set's", s + 1, path);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    const unsigned facts = data[0];
    const char    *in = (const char *)data + 1, *nl = memchr(in, '\n', size - 1);
    size_t         nlen = nl ? (size_t)(nl - in) : size - 1;
    char          *name = malloc(nlen + 1);
    size_t         tlen = nl ? size - 1 - nlen - 1 : 0;
    char          *text = malloc(tlen ? tlen : 1);
    h5sf_orphan_t *o    = malloc(sizeof *o);
    h5sf_errbuf_t  e    = {0};
    if (!name || !text || !o)
        goto done;
    memcpy(name, in, nlen);
    name[nlen] = '\0'; /* an embedded NUL just shortens it */
    memcpy(text, nl ? nl + 1 : in, tlen);
    if (h5sf_orphan_parse("/cfg", name, text, tlen, o, &e) < 0) {
        if (e.msg[0] == '\0' || !memchr(e.msg, '\0', sizeof e.msg))
            BAD("refused without a message");
        goto done;
    }
    check_set(o);

    h5sf_orphan_facts_t f;
    memset(&f, 0, sizeof f);
    const uint64_t ino    = o->layout.inode;
    f.stub_found          = facts & 1;
    f.stub_ino            = facts & 2 ? ino : ino + 1;
    f.inode_by_stub       = (facts & 4) != 0;
    f.inode_by_subfiles   = (facts & 8) != 0;
    f.config.st_mode      = facts & 16 ? S_IFLNK | 0777 : S_IFREG | 0644;
    f.config.st_uid       = facts & 32 ? 1000 : 0;
    f.config.st_nlink     = facts & 64 ? 2 : 1;
    const char *want      = facts & 128 ? o->stub : NULL;
    uint64_t    replacing = facts & 2 ? ino : ino + 7;
    int         j         = h5sf_orphan_judge(o, want, replacing, &f, 0);
    int         replaced  = want && replacing == ino;
    if (j && f.inode_by_subfiles)
        BAD("a set with a file of its inode beside its subfiles is an orphan");
    if (j && !replaced && ((f.stub_found && f.stub_ino == ino) || f.inode_by_stub))
        BAD("a set whose stub is alive is an orphan");
    if (j && (o->keep[0] == '\0') != (!(facts & (16 | 32 | 64))))
        BAD("keep \"%s\" for facts 0x%02x", o->keep, facts);
    if (j && (!o->why[0] || !memchr(o->why, '\0', sizeof o->why)))
        BAD("an orphan without a reason");
done:
    free(o);
    free(text);
    free(name);
    return 0;
}
