/* fdx_sim_output: what a run writes while it computes: PNG frames and the GIF
   (a 2D slice), HDF5 fields with their XDMF index, receiver CSV and
   seismogram.  A worker thread encodes and writes so the device never waits
   for the disk; fields leave the device through a spare device buffer and a
   pinned host buffer on the worker's own stream.  The worker is given a
   description of the grid and views of the fields it writes, not the
   simulation (fdx_sim_output_impl.h). */
#ifndef FDX_SIM_OUTPUT_H
#define FDX_SIM_OUTPUT_H

#include "solvers/fdx_sim_impl.h"

typedef struct fdx_sim_output fdx_sim_output;

/* Before anything is written to dir: a directory holding another run's
   files is refused (FDX_ERR_INVALID) unless it is the restart's own
   directory (restart may be NULL or "") or overwrite is set, which removes
   those files first.  Temporary files of processes that no longer run are
   removed too. */
FDX_HIDDEN fdx_status fdx_sim_output_claim(const char *dir, const char *restart, int overwrite);
/* dir must exist.  first_step: the step the run starts from.  When restart
   is dir itself the outputs continue: the receivers' rows up to first_step
   are read back, the GIF starts with the frames kept as PNGs, the XDMF index
   with the fields kept, and files of steps after first_step (left by a run
   killed after its checkpoint) are removed, to be computed again. */
FDX_HIDDEN fdx_status fdx_sim_output_create(fdx_sim *s, const char *dir, const char *restart, int64_t first_step,
                                            fdx_sim_output **out);
/* Queues a picture of s's current field (waits if the worker is behind):
   only the drawn plane leaves the device. */
FDX_HIDDEN fdx_status fdx_sim_output_snapshot(fdx_sim_output *o, fdx_sim *s);
/* Queues s's current field for HDF5 + XDMF: during the loop through the
   spare device copy; the final one (final = 1, nothing changes it any more)
   straight from where it is. */
FDX_HIDDEN fdx_status fdx_sim_output_field(fdx_sim_output *o, fdx_sim *s, int final);
/* Waits until everything queued is on disk and writes receivers.csv up to
   the current step (before a checkpoint). */
FDX_HIDDEN fdx_status fdx_sim_output_sync(fdx_sim_output *o, fdx_sim *s);
/* Waits for the worker, closes the GIF (abort: removes it; s may then be
   NULL), writes receivers. */
FDX_HIDDEN fdx_status fdx_sim_output_finish(fdx_sim_output *o, fdx_sim *s, int abort);
FDX_HIDDEN double fdx_sim_output_wait_s(const fdx_sim_output *o);
FDX_HIDDEN void fdx_sim_output_destroy(fdx_sim_output **o);

/* The slice drawn for pictures: the whole 2D field, the middle (or source)
   z-plane of a 3D one. */
FDX_HIDDEN int64_t fdx_sim_slice_k(const fdx_sim *s);

#endif
