// SPDX-License-Identifier: MIT
#pragma once
/// \file scan_mpi.h
/// The scan over MPI ranks (`mpirun -np N quantscope-cli scan …`): the only place that knows
/// MPI. scan_mpi.cpp is built with QUANTSCOPE_WITH_MPI, scan_mpi_none.cpp without. Rank 0
/// coordinates (hands out modules largest first to the rank that asks, re-assigns a module whose
/// rank failed, writes the report in checkpoint order) and also computes, in a second thread;
/// the other ranks compute. docs/cluster.md.
#include <string>
#include <vector>

#include "scan/scan.h"

namespace quantscope::cli {

/// "OpenMPI 4.1.4 (built)" or "not built (configure with libopenmpi-dev)".
std::string mpiDescription();

/// Whether this process was started by mpirun/srun (OMPI_COMM_WORLD_SIZE, PMI_SIZE or
/// PMIX_RANK in the environment) in a build with MPI. Without it the scan is one process and
/// MPI is never initialised.
bool launchedByMpirun();

/// Before any backend is created: one GPU per rank on each host, by setting
/// CUDA_VISIBLE_DEVICES (and HIP_VISIBLE_DEVICES) to the (local rank % GPUs)-th visible GPU.
/// Does nothing without a local rank, with QUANTSCOPE_MPI_PIN=0, or with no NVIDIA GPU listed in
/// /proc/driver/nvidia/gpus and no CUDA_VISIBLE_DEVICES list.
void pinRankDevice();

struct DistributedScan {
    bool writer = true; ///< rank 0: it holds the result and the report
    int ranks = 1;
    ScanResult result;                  ///< the writer's
    std::vector<RankTimeline> timeline; ///< per rank, the writer's
    int reassigned = 0;                 ///< modules handed out again after their rank failed
};

/// Runs the scan as this rank of MPI_COMM_WORLD (MPI_Init and MPI_Finalize inside). Errors of
/// rank 0 (an unwritable report, another scan's report) stop every rank (MPI_Abort) after
/// the message is printed.
DistributedScan runMpiScan(const Checkpoint &ck, const ScanOptions &options, const ScanProgress &progress);

} // namespace quantscope::cli
