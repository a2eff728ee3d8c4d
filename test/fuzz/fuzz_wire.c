/* fuzz_wire -- libFuzzer target for the IOC wire-format decoders.
 *
 * Input: one request message (or reply record), handed over in an exact-size
 * buffer so ASan sees any read past the bytes an IOC actually received.
 * Checks, beyond "no crash": an accepted request is self-consistent (sizes
 * add up, pairs and payload lie inside the buffer, pieces cannot wrap) and
 * re-encoding it gives back the same bytes; an accepted reply has a
 * terminated message and re-encodes to the input.
 *
 *   clang -g -fsanitize=fuzzer,address,undefined -Icommon test/fuzz/fuzz_wire.c \
 *         <every .c of common/> -o fuzz_wire
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "wire.h"

static void die(const char *what, size_t size)
{
    fprintf(stderr, "fuzz_wire: %s (input of %zu bytes)\n", what, size);
    abort();
}

static void check_request(const unsigned char *buf, size_t size)
{
    h5sf_wire_hdr_t      h;
    const unsigned char *pairs = NULL, *payload = NULL;
    h5sf_errbuf_t        e = {0};

    if (h5sf_wire_decode(buf, size, &h, &pairs, &payload, &e) != 0) {
        if (e.msg[0] == '\0' || !memchr(e.msg, '\0', sizeof e.msg))
            die("request rejected without a message", size);
        return;
    }
    if (h.op < H5SF_WIRE_WRITE || h.op > H5SF_WIRE_OP_MAX || h.tag < 0 ||
        (h.flags & ~(H5SF_WIRE_INLINE | H5SF_WIRE_SHM)))
        die("accepted a header with a bad op, tag or flags", size);
    if ((h.flags & H5SF_WIRE_SHM) &&
        ((h.flags & H5SF_WIRE_INLINE) || (h.op != H5SF_WIRE_WRITE && h.op != H5SF_WIRE_READ)))
        die("accepted a shared-memory payload with an inline one or on a control request", size);
    if (h.count > H5SF_WIRE_MAX_COUNT || h5sf_wire_msg_size(&h) != size)
        die("accepted a message whose size disagrees with its header", size);
    if (pairs != buf + H5SF_WIRE_HDR_SIZE)
        die("pair list is not right after the header", size);
    if ((payload != NULL) != ((h.flags & H5SF_WIRE_INLINE) != 0) ||
        (payload && (payload < buf || payload + h.total != buf + size)))
        die("inline payload pointer outside the message", size);

    /* What the progress thread does next: every piece must be usable. */
    uint64_t *offs = malloc((h.count ? h.count : 1) * sizeof *offs);
    uint64_t *lens = malloc((h.count ? h.count : 1) * sizeof *lens);
    uint64_t  sum  = 0;
    if (!offs || !lens)
        goto done;
    for (uint64_t i = 0; i < h.count; i++) {
        h5sf_wire_pair(pairs, i, &offs[i], &lens[i]);
        if (offs[i] > (uint64_t)INT64_MAX || lens[i] > (uint64_t)INT64_MAX - offs[i])
            die("accepted a piece that runs past the largest file offset", size);
        sum += lens[i];
    }
    if (sum != h.total)
        die("accepted pieces that do not add up to the header's total", size);

    /* Round trip: the encoder must reproduce the accepted bytes. */
    unsigned char *enc = malloc(size);
    if (!enc)
        goto done;
    h5sf_wire_encode(&h, offs, lens, enc);
    if (payload)
        memcpy(enc + size - h.total, payload, (size_t)h.total);
    if (memcmp(enc, buf, size) != 0)
        die("re-encoding an accepted request changed its bytes", size);
    free(enc);
done:
    free(offs);
    free(lens);
}

static void check_reply(const unsigned char *buf, size_t size)
{
    h5sf_wire_reply_t r;
    h5sf_errbuf_t     e = {0};
    if (h5sf_wire_reply_decode(buf, size, &r, &e) != 0) {
        if (e.msg[0] == '\0' || !memchr(e.msg, '\0', sizeof e.msg))
            die("reply rejected without a message", size);
        return;
    }
    if (size != H5SF_WIRE_REPLY_SIZE || !memchr(r.msg, '\0', sizeof r.msg))
        die("accepted a reply of the wrong size or with an unterminated message", size);
    unsigned char enc[H5SF_WIRE_REPLY_SIZE];
    h5sf_wire_reply_encode(&r, enc);
    /* The encoder forces the last message byte to NUL; all else must match. */
    if (memcmp(enc, buf, H5SF_WIRE_REPLY_SIZE - 1) != 0)
        die("re-encoding an accepted reply changed its bytes", size);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    unsigned char *buf = malloc(size ? size : 1);
    if (!buf)
        return 0;
    memcpy(buf, data, size);
    check_request(buf, size);
    check_reply(buf, size);
    /* A reply-sized input is also tried as a reply with a valid magic, so
     * the fuzzer does not have to find the magic before reaching the rest. */
    if (size == H5SF_WIRE_REPLY_SIZE) {
        h5sf_put_u32(buf, H5SF_WIRE_MAGIC);
        check_reply(buf, size);
    }
    free(buf);
    return 0;
}
