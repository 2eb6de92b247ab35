// SPDX-License-Identifier: MIT
// scan_mpi.h in a build without MPI: the scan is one process.
#include "scan_mpi.h"

#include "util/error.h"

namespace quantscope::cli {

std::string mpiDescription()
{
    return "not built (configure with libopenmpi-dev)";
}

bool launchedByMpirun()
{
    return false;
}

void pinRankDevice()
{
}

DistributedScan runMpiScan(const Checkpoint &, const ScanOptions &, const ScanProgress &)
{
    throw UnsupportedError("this quantscope-cli is built without MPI (configure with libopenmpi-dev)");
}

} // namespace quantscope::cli
