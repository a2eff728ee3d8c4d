/*
 * wire.h -- the IOC wire format: request headers and replies as bytes.
 *
 * One request per (rank, subfile, round of a call): a call is cut into
 * rounds of at most H5SF_WIRE_MAX_COUNT pieces (the planner's rounds), and
 * a request's payload may follow its header as further parts (below).
 * The header:
 *
 *   offset size  field
 *   0      4     magic "H5SW" (0x57533548 little-endian)
 *   4      2     version (1)
 *   6      2     op (H5SF_WIRE_*)
 *   8      8     request id (client-local; also picks the message tags)
 *   16     4     file id (per context, same on every rank)
 *   20     4     subfile index (0-based)
 *   24     8     count of (offset, length) pairs
 *   32     8     total payload bytes (sum of lengths)
 *   40     8     argument (truncate size; with H5SF_WIRE_SHM the payload's
 *                offset in the client's shared-memory segment; 0 otherwise)
 *   48     4     flags (H5SF_WIRE_INLINE: write payload follows the list;
 *                H5SF_WIRE_SHM: the payload is in shared memory, ioc/shm.c)
 *   52     4     data/reply tag
 *   56     16*count  (offset u64, length u64) pairs
 *   ...    total bytes of inline payload, if H5SF_WIRE_INLINE
 *
 * All integers little-endian.  Large payloads do not travel inline: between
 * ranks of one node they are in the client's shared-memory segment
 * (H5SF_WIRE_SHM), otherwise they go as further messages (tag + 1 to the
 * IOC, tag + 2 back; ioc/internal.h) cut in transfer chunks.  The reply is a fixed-size record carrying the
 * status (errno), a value (a size) and the IOC's error text.
 *
 * Nothing here calls MPI: the decoder is a pure function over bytes, fuzzed
 * by test/fuzz/fuzz_wire.c.
 */
#ifndef H5SF_WIRE_H
#define H5SF_WIRE_H

#include <stddef.h>
#include <stdint.h>
#include "bytes.h" /* the fields are read and written with its helpers */
#include "errbuf.h"
#include "stripe.h"

#define H5SF_WIRE_MAGIC      0x57533548u
#define H5SF_WIRE_VERSION    1u
#define H5SF_WIRE_HDR_SIZE   56u
#define H5SF_WIRE_INLINE_MAX (64u * 1024u) /* writes up to this go in the header message */
/* Pieces one message may carry: clients never send more (ioc/client.c
 * splits at it), so a decoder sees a larger count only from a damaged or
 * foreign message.  The same number as the planner's rounds (stripe.h). */
#define H5SF_WIRE_MAX_COUNT H5SF_MAX_PIECES

enum {
    H5SF_WIRE_WRITE = 1,
    H5SF_WIRE_READ,
    H5SF_WIRE_GET_SIZE,
    H5SF_WIRE_TRUNCATE,
    H5SF_WIRE_FSYNC,
    H5SF_WIRE_NOP, /* used to wake and stop the progress thread */
    H5SF_WIRE_OP_MAX = H5SF_WIRE_NOP
};
#define H5SF_WIRE_INLINE 0x1u
#define H5SF_WIRE_SHM    0x2u

typedef struct h5sf_wire_hdr {
    uint16_t op;
    uint64_t id;
    uint32_t file_id, subfile;
    uint64_t count, total, arg;
    uint32_t flags;
    int32_t  tag;
} h5sf_wire_hdr_t;

/* Size of a request message with this header (list + inline payload). */
size_t h5sf_wire_msg_size(const h5sf_wire_hdr_t *h);
/* Encode the header and the pair list; inline payload (if any) goes at
 * buf + h5sf_wire_msg_size(h) - h->total and is the caller's job. */
void h5sf_wire_encode(const h5sf_wire_hdr_t *h, const uint64_t *offs, const uint64_t *lens, unsigned char *buf);
/* Decode and check a request message of len bytes.  On success *pairs points
 * at the encoded list inside buf (read it with h5sf_wire_pair) and *payload at
 * the inline payload (NULL if none). */
int  h5sf_wire_decode(const unsigned char *buf, size_t len, h5sf_wire_hdr_t *h, const unsigned char **pairs,
                      const unsigned char **payload, h5sf_errbuf_t *e);
void h5sf_wire_pair(const unsigned char *pairs, uint64_t i, uint64_t *off, uint64_t *len);

/* The reply. */
#define H5SF_WIRE_REPLY_MSG  400u
#define H5SF_WIRE_REPLY_SIZE (4u + 4u + 8u + 8u + H5SF_WIRE_REPLY_MSG)
typedef struct h5sf_wire_reply {
    int32_t  status; /* 0, or the errno (or -1) of the failure */
    uint64_t id;
    uint64_t value;
    char     msg[H5SF_WIRE_REPLY_MSG];
} h5sf_wire_reply_t;
void h5sf_wire_reply_encode(const h5sf_wire_reply_t *r, unsigned char *buf);
int  h5sf_wire_reply_decode(const unsigned char *buf, size_t len, h5sf_wire_reply_t *r, h5sf_errbuf_t *e);

#endif
