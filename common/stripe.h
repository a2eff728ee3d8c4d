/*
 * stripe.h -- RAID-0 stripe arithmetic, nothing else.
 *
 * Logical stripe k (bytes [k*S, (k+1)*S)) lives in subfile k mod N at
 * subfile offset (k div N)*S + (offset within the stripe).  This is the
 * layout of HDF5 1.14's built-in subfiling driver, so files are shared.
 */
#ifndef H5SF_STRIPE_H
#define H5SF_STRIPE_H

#include <stddef.h>
#include <stdint.h>

/* H5SF_MAX_PIECES: the one limit on pieces handled at once: a call's
 * rounds (vfd/io.c), a channel vector call, an IOC request message and its
 * decoded list (vfd/channel.c, ioc/client.c, common/wire.c).  What that
 * costs in memory and why it is enough: docs/architecture.md, "The path of
 * one H5Dwrite, step by step". */
#define H5SF_MAX_PIECES ((uint64_t)1 << 20)

/* Logical addresses h5sf accepts are below this (the driver's maxaddr is
 * one less): subfile offsets must fit an off_t, and stripe arithmetic on
 * two of them must not overflow 64 bits. */
#define H5SF_ADDR_LIMIT ((uint64_t)1 << 62)

typedef struct sf_piece {
    uint64_t off; /* offset inside the subfile      */
    uint64_t len; /* bytes                          */
    uint64_t mem; /* offset into the caller's data  */
} sf_piece_t;

/* Where logical byte `addr` lives. */
static inline int      sf_subfile_of(uint64_t addr, uint64_t S, int N) { return (int)((addr / S) % (uint64_t)N); }
static inline uint64_t sf_subfile_off(uint64_t addr, uint64_t S, int N)
{
    uint64_t k = addr / S;
    return (k / (uint64_t)N) * S + addr % S;
}

/* Stripes of S bytes over N subfiles fit h5sf's address space: the first
 * stripe of the last subfile starts below H5SF_ADDR_LIMIT, S x (N - 1), so
 * that every subfile holds bytes h5sf can address and S x N stays below
 * 2^64 (a stripe_size of 2^62 over 5 subfiles once made a file that would
 * not open, and put subfile 5's bytes at offset 0 of h5sf-fuse's output).
 * The one rule the config file, the driver info and a new file's settings
 * are checked against. */
static inline int sf_stripes_fit(uint64_t S, int64_t N)
{
    return S > 0 && S <= (uint64_t)INT64_MAX && N >= 1 && (N == 1 || S <= (H5SF_ADDR_LIMIT - 1) / (uint64_t)(N - 1));
}

/* Size a subfile must have for the logical file to end at `eof`. */
uint64_t sf_subfile_size(uint64_t eof, uint64_t S, int N, int subfile);

/* Logical EOF implied by subfile sizes (inverse of sf_subfile_size: the
 * largest logical address + 1 that any subfile holds). */
uint64_t sf_logical_eof(const uint64_t *sizes, uint64_t S, int N);
/* End of the longest logical prefix every subfile holds completely: what a
 * reader can trust.  Equals sf_logical_eof when every subfile has exactly
 * the size sf_subfile_size gives; smaller when one was cut short; a subfile
 * longer than needed does not raise it. */
uint64_t sf_complete_eof(const uint64_t *sizes, uint64_t S, int N);

/*
 * The plan: per-subfile piece lists for one request.  A request is a list of
 * logical (addr, len, mem offset) extents; sf_plan_add() cuts each at stripe
 * boundaries and appends the pieces to their subfile's list, merging a piece
 * with the previous one of the same subfile when both the subfile range and
 * the memory range continue (the common case of contiguous data).
 */
typedef struct sf_list {
    sf_piece_t *v;
    size_t      n, cap;
    uint64_t    bytes;
} sf_list_t;

typedef struct sf_plan {
    uint64_t   S;
    int        N;
    sf_list_t *lists;   /* N lists */
    int       *touched; /* subfiles with pieces: first-touch order, ascending after sf_plan_sort */
    int        ntouched;
    uint64_t   pieces_in;
    uint64_t   stored; /* pieces held by all lists (what memory follows) */
} sf_plan_t;

int  sf_plan_init(sf_plan_t *p, uint64_t stripe_size, int nsubfiles);
void sf_plan_reset(sf_plan_t *p); /* empty the lists, keep the memory */
void sf_plan_free(sf_plan_t *p);
/* Give back the lists' memory when together they can hold more than `keep`
 * pieces (the plan is reused across calls; one huge call must not pin its
 * peak for the file's lifetime).  Call on an empty plan. */
void sf_plan_trim(sf_plan_t *p, uint64_t keep);
int  sf_plan_add(sf_plan_t *p, uint64_t addr, uint64_t len, uint64_t mem);
/* Sort each touched list by subfile offset and merge what becomes adjacent in
 * both file and memory (needed when selections arrive out of order), and the
 * touched subfiles by number (every rank then sends in the same order). */
void     sf_plan_sort(sf_plan_t *p);
uint64_t sf_plan_pieces_out(const sf_plan_t *p);
/* End (exclusive) of the last byte a list touches; 0 for an empty list. */
uint64_t sf_list_end(const sf_list_t *l);

#endif
