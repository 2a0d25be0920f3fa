package org.d2l.multigpu.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CpuQuotaTest {

    @TempDir
    Path root;

    private Path write(String relative, String content) throws IOException {
        Path p = root.resolve(relative);
        Files.createDirectories(p.getParent());
        Files.writeString(p, content);
        return p;
    }

    @Test
    void cgroupV2OneCpuQuotaGivesOneCpu() throws IOException {
        Path proc = write("proc/self/cgroup", "0::/\n");
        write("cg/cpu.max", "100000 100000\n");
        assertEquals(OptionalInt.of(1), CpuQuota.cpus(proc, root.resolve("cg")));
    }

    @Test
    void cgroupV2WithoutQuotaGivesNone() throws IOException {
        Path proc = write("proc/self/cgroup", "0::/\n");
        write("cg/cpu.max", "max 100000\n");
        assertEquals(OptionalInt.empty(), CpuQuota.cpus(proc, root.resolve("cg")));
    }

    @Test
    void aFractionalQuotaIsRoundedUpAsTheJvmDoes() throws IOException {
        Path proc = write("proc/self/cgroup", "0::/\n");
        write("cg/cpu.max", "150000 100000\n");
        assertEquals(OptionalInt.of(2), CpuQuota.cpus(proc, root.resolve("cg")));
        write("cg/cpu.max", "50000 100000\n");
        assertEquals(OptionalInt.of(1), CpuQuota.cpus(proc, root.resolve("cg")));
    }

    @Test
    void theLowestQuotaOnTheWayToTheProcessesCgroupCounts() throws IOException {
        Path proc = write("proc/self/cgroup", "0::/kubepods/pod1/container\n");
        write("cg/kubepods/cpu.max", "max 100000\n");
        write("cg/kubepods/pod1/cpu.max", "200000 100000\n");
        write("cg/kubepods/pod1/container/cpu.max", "400000 100000\n");
        assertEquals(OptionalInt.of(2), CpuQuota.cpus(proc, root.resolve("cg")));
    }

    @Test
    void cgroupV1CfsQuotaOfTheCpuControllerCounts() throws IOException {
        Path proc = write("proc/self/cgroup", "4:memory:/x\n1:cpu,cpuacct:/docker/abc\n0::/\n");
        write("cg/cpu,cpuacct/cpu.cfs_quota_us", "-1\n");
        write("cg/cpu,cpuacct/cpu.cfs_period_us", "100000\n");
        assertEquals(OptionalInt.empty(), CpuQuota.cpus(proc, root.resolve("cg")));
        // a container that mounts its own cgroup at the root (its path in /proc/self/cgroup is the host's)
        write("cg/cpu,cpuacct/cpu.cfs_quota_us", "300000\n");
        assertEquals(OptionalInt.of(3), CpuQuota.cpus(proc, root.resolve("cg")));
    }

    @Test
    void noCgroupFilesMeanNoQuota() {
        assertEquals(OptionalInt.empty(), CpuQuota.cpus(root.resolve("missing"), root.resolve("missing-too")));
    }

    @Test
    void threadsFollowTheQuotaUnlessTheUserChose() {
        assertEquals(OptionalInt.of(1), CpuQuota.threads(OptionalInt.of(1), 16, Optional.empty()));
        assertEquals(OptionalInt.of(2), CpuQuota.threads(OptionalInt.of(4), 2, Optional.empty()));
        assertEquals(OptionalInt.empty(), CpuQuota.threads(OptionalInt.empty(), 16, Optional.empty()));
        assertEquals(OptionalInt.empty(), CpuQuota.threads(OptionalInt.of(1), 16, Optional.of("8")));
    }
}
