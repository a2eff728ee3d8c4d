/* placeholder until mpitype lands */
#include "internal.h"
int h5sf_coll_extents(sf_plan_t *plan, haddr_t addr, size_t size, const void *buf, MPI_Datatype btype,
                      MPI_Datatype ftype, h5sf_errbuf_t *e)
{
    (void)plan; (void)addr; (void)size; (void)buf; (void)btype; (void)ftype;
    return h5sf_fail(e, 0, "collective transfers with derived datatypes are not supported yet");
}
