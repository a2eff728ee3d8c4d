/*
 * ioc_channel.c -- the "h5sf_ioc" VFD class: one instance per subfile, it
 * turns each vector call into one request to the IOC that owns the subfile.
 *
 * Between COBEGIN and COEND requests are only posted; COEND waits for all of
 * them and reports the first failure.  Outside a bracket every call waits.
 * h5sf's bracket spans one of its calls, or, inside the caller's own
 * COBEGIN/COEND on the h5sf file, all calls up to its COEND (channel.c).
 * The instance never opens the subfile itself: the owner's daemon holds the
 * only descriptor (opened by h5sf at open time).  Also the public getter and
 * switch of the channel's stage account (ioc/account.c keeps it).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "internal.h"
#include "../ioc/account.h"

typedef struct ioc_chan {
    H5FD_t                  pub;
    h5sf_ioc_fa_t           fa;
    haddr_t                 eoa;
    bool                    co;      /* inside COBEGIN/COEND             */
    h5sf_ioc_client_req_t **pending; /* posted, not yet waited           */
    size_t                  npending, cap;
} ioc_chan_t;

static hid_t ioc_id = H5I_INVALID_HID;

static H5FD_t *chan_open(const char *name, unsigned flags, hid_t fapl, haddr_t maxaddr)
{
    const h5sf_ioc_fa_t *fa;
    ioc_chan_t          *c         = NULL;
    H5FD_t              *ret_value = NULL;
    (void)name;
    (void)flags;
    (void)maxaddr;

    if (!(fa = H5Pget_driver_info(fapl)) || !fa->ctx)
        H5SF_GOTO(NULL, H5E_VFL, H5E_BADVALUE, "the IOC channel is opened by h5sf only");
    if (!(c = h5sf_calloc(1, sizeof *c)))
        H5SF_GOTO(NULL, H5E_RESOURCE, H5E_NOSPACE, "out of memory");
    c->fa     = *fa;
    ret_value = &c->pub;
done:
    return ret_value;
}

/* Wait for everything posted; keep the first error. */
static int wait_all(ioc_chan_t *c, h5sf_errbuf_t *eb)
{
    int failed = 0;
    for (size_t i = 0; i < c->npending; i++) {
        h5sf_errbuf_t tmp = {0};
        if (h5sf_ioc_wait(c->pending[i], &tmp) < 0 && !failed) {
            *eb    = tmp;
            failed = 1;
        }
    }
    c->npending = 0;
    return failed ? -1 : 0;
}

static herr_t chan_close(H5FD_t *file)
{
    ioc_chan_t   *c         = (ioc_chan_t *)file;
    h5sf_errbuf_t eb        = {0};
    herr_t        ret_value = 0;
    if (c->npending && !h5sf_mpi_finalizing() && wait_all(c, &eb) < 0)
        H5SF_GOTO_EB(-1, H5E_IO, H5E_WRITEERROR, &eb);
done:
    h5sf_free(c->pending);
    h5sf_free(c);
    return ret_value;
}

static haddr_t chan_get_eoa(const H5FD_t *file, H5FD_mem_t type)
{
    (void)type;
    return ((const ioc_chan_t *)file)->eoa;
}

static herr_t chan_set_eoa(H5FD_t *file, H5FD_mem_t type, haddr_t addr)
{
    (void)type;
    ((ioc_chan_t *)file)->eoa = addr;
    return 0;
}

static haddr_t chan_get_eof(const H5FD_t *file, H5FD_mem_t type)
{
    const ioc_chan_t *c    = (const ioc_chan_t *)file;
    h5sf_errbuf_t     eb   = {0};
    uint64_t          size = 0;
    haddr_t           ret_value;
    (void)type;
    if (h5sf_ioc_get_size(c->fa.ctx, c->fa.ioc_rank, c->fa.file_id, c->fa.subfile, &size, &eb) < 0)
        H5SF_GOTO(HADDR_UNDEF, H5E_IO, H5E_CANTGET, "%s", eb.msg);
    ret_value = size;
done:
    return ret_value;
}

/* The request takes offsets and lengths as uint64_t, which haddr_t and
 * size_t are on LP64 systems: there HDF5's arrays go to the IOC client as
 * they are (it copies them into the request before it returns), and a piece
 * costs no copy here; elsewhere they are converted. */
#define ADDRS_ARE_U64 _Generic((haddr_t)0, uint64_t : 1, default : 0)
#define SIZES_ARE_U64 _Generic((size_t)0, uint64_t : 1, default : 0)

static herr_t chan_io(ioc_chan_t *c, int op, uint32_t count, haddr_t addrs[], size_t sizes[], void *bufs[])
{
    h5sf_errbuf_t          eb   = {0};
    h5sf_ioc_client_req_t *req  = NULL;
    uint64_t              *offs = NULL, *lens = NULL; /* copies, where the types differ */
    const uint64_t        *o = (const uint64_t *)(const void *)addrs, *l = (const uint64_t *)(const void *)sizes;
    herr_t                 ret_value = 0;
    uint64_t               acct      = ioc_acct_now();

    if (count == 0)
        goto done;
    if (h5sf_mpi_finalizing())
        H5SF_GOTO(-1, H5E_IO, op == H5SF_IOC_OP_WRITE ? H5E_WRITEERROR : H5E_READERROR,
                  "MPI has been finalized: the I/O concentrators of subfile %u are gone", c->fa.subfile);
    if (!ADDRS_ARE_U64) {
        if (!(offs = h5sf_malloc(count * sizeof *offs)))
            H5SF_GOTO(-1, H5E_RESOURCE, H5E_NOSPACE, "out of memory");
        for (uint32_t i = 0; i < count; i++)
            offs[i] = addrs[i];
        o = offs;
    }
    if (!SIZES_ARE_U64) {
        if (!(lens = h5sf_malloc(count * sizeof *lens)))
            H5SF_GOTO(-1, H5E_RESOURCE, H5E_NOSPACE, "out of memory");
        for (uint32_t i = 0; i < count; i++)
            lens[i] = sizes[i];
        l = lens;
    }
    if (c->co && c->npending == c->cap) {
        size_t                  cap = c->cap ? 2 * c->cap : 8;
        h5sf_ioc_client_req_t **p   = h5sf_realloc(c->pending, cap * sizeof *p);
        if (!p)
            H5SF_GOTO(-1, H5E_RESOURCE, H5E_NOSPACE, "out of memory");
        c->pending = p;
        c->cap     = cap;
    }
    if (h5sf_ioc_post(c->fa.ctx, op, c->fa.ioc_rank, c->fa.file_id, c->fa.subfile, count, o, l, bufs, &req, &eb) < 0)
        H5SF_GOTO_EB(-1, H5E_IO, op == H5SF_IOC_OP_WRITE ? H5E_WRITEERROR : H5E_READERROR, &eb);
    if (c->co)
        c->pending[c->npending++] = req;
    else if (h5sf_ioc_wait(req, &eb) < 0)
        H5SF_GOTO_EB(-1, H5E_IO, op == H5SF_IOC_OP_WRITE ? H5E_WRITEERROR : H5E_READERROR, &eb);
done:
    h5sf_free(offs);
    h5sf_free(lens);
    ioc_acct_stop(IOC_ACCT_CALL, acct, 0);
    return ret_value;
}

static herr_t chan_read(H5FD_t *file, H5FD_mem_t type, hid_t dxpl, haddr_t addr, size_t size, void *buf)
{
    (void)type;
    (void)dxpl;
    return chan_io((ioc_chan_t *)file, H5SF_IOC_OP_READ, 1, &addr, &size, &buf);
}

static herr_t chan_write(H5FD_t *file, H5FD_mem_t type, hid_t dxpl, haddr_t addr, size_t size, const void *buf)
{
    void *b = (void *)(uintptr_t)buf;
    (void)type;
    (void)dxpl;
    return chan_io((ioc_chan_t *)file, H5SF_IOC_OP_WRITE, 1, &addr, &size, &b);
}

static herr_t chan_read_vector(H5FD_t *file, hid_t dxpl, uint32_t count, H5FD_mem_t types[], haddr_t addrs[],
                               size_t sizes[], void *bufs[])
{
    (void)dxpl;
    (void)types;
    return chan_io((ioc_chan_t *)file, H5SF_IOC_OP_READ, count, addrs, sizes, bufs);
}

static herr_t chan_write_vector(H5FD_t *file, hid_t dxpl, uint32_t count, H5FD_mem_t types[], haddr_t addrs[],
                                size_t sizes[], const void *bufs[])
{
    (void)dxpl;
    (void)types;
    return chan_io((ioc_chan_t *)file, H5SF_IOC_OP_WRITE, count, addrs, sizes, (void **)(uintptr_t)bufs);
}

static herr_t chan_ctl(H5FD_t *file, uint64_t op, uint64_t flags, const void *input, void **output)
{
    ioc_chan_t   *c         = (ioc_chan_t *)file;
    h5sf_errbuf_t eb        = {0};
    herr_t        ret_value = 0;
    (void)input;
    (void)output;

    switch (op) {
        case H5FD_H5SF_CTL_COBEGIN: c->co = true; break;
        case H5FD_H5SF_CTL_COEND:
            c->co = false;
            if (wait_all(c, &eb) < 0)
                H5SF_GOTO_EB(-1, H5E_IO, H5E_WRITEERROR, &eb);
            break;
        default:
            if (flags & H5FD_CTL_FAIL_IF_UNKNOWN_FLAG)
                H5SF_GOTO(-1, H5E_VFL, H5E_FCNTL, "unknown ctl opcode %llu", (unsigned long long)op);
    }
done:
    return ret_value;
}

static herr_t chan_query(const H5FD_t *file, unsigned long *flags)
{
    (void)file;
    *flags = 0;
    return 0;
}

static herr_t chan_term(void)
{
    ioc_id = H5I_INVALID_HID;
    return 0;
}

static const H5FD_class_t ioc_class = {
    .version      = H5FD_CLASS_VERSION,
    .value        = H5FD_H5SF_IOC_VALUE,
    .name         = H5FD_H5SF_IOC_NAME,
    .maxaddr      = H5SF_MAXADDR,
    .fc_degree    = H5F_CLOSE_WEAK,
    .terminate    = chan_term,
    .fapl_size    = sizeof(h5sf_ioc_fa_t),
    .open         = chan_open,
    .close        = chan_close,
    .query        = chan_query,
    .get_eoa      = chan_get_eoa,
    .set_eoa      = chan_set_eoa,
    .get_eof      = chan_get_eof,
    .read         = chan_read,
    .write        = chan_write,
    .read_vector  = chan_read_vector,
    .write_vector = chan_write_vector,
    .ctl          = chan_ctl,
    .fl_map       = H5FD_FLMAP_DICHOTOMY,
};

hid_t h5sf_ioc_channel_register(void)
{
    if (ioc_id < 0 || H5Iis_valid(ioc_id) <= 0)
        ioc_id = H5FDregister(&ioc_class);
    return ioc_id;
}

/* The stage account (include/h5sf.h): ioc/account.c's counters, copied out. */
_Static_assert((int)H5FD_H5SF_STAGES == (int)IOC_ACCT_STAGES, "ioc/account.h and h5sf.h list the same stages");

H5SF_API herr_t H5FD_h5sf_get_account_sized(H5FD_h5sf_account_t *account, int reset, size_t size)
{
    ioc_acct_t          a;
    H5FD_h5sf_account_t all;
    herr_t              ret_value = 0;
    if (!account || size < sizeof account->size)
        H5SF_GOTO(-1, H5E_ARGS, H5E_BADVALUE, "H5FD_h5sf_get_account: account is NULL or too small");
    ioc_acct_get(&a, reset != 0);
    all.size = size < sizeof all ? size : sizeof all;
    memcpy(all.ns, a.ns, sizeof a.ns);
    memcpy(all.count, a.count, sizeof a.count);
    memcpy(all.bytes, a.bytes, sizeof a.bytes);
    all.messages = a.messages;
    memcpy(account, &all, all.size); /* an older caller's struct gets its own prefix */
done:
    return ret_value;
}

H5SF_API herr_t H5FD_h5sf_set_account(int on)
{
    ioc_acct_enable(on != 0);
    return 0;
}
