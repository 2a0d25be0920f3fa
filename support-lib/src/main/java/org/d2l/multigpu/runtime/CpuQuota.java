package org.d2l.multigpu.runtime;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * The CPUs that a container's cgroup CPU quota gives this process (mybinder.org: 1), so that PyTorch
 * runs that many threads instead of one per CPU of the host.
 *
 * <p>PyTorch starts one intra-op thread per CPU it may be scheduled on, which in a container is every
 * CPU of the host; a quota of one CPU then time-slices those threads on one CPU's worth of time, and
 * every step pays for the switching and for threads waiting on each other.
 */
public final class CpuQuota {

    /** DJL's system property for PyTorch's intra-op threads, read when the engine starts. */
    public static final String THREADS_PROPERTY = "ai.djl.pytorch.num_threads";

    private static final Path PROC_SELF_CGROUP = Path.of("/proc/self/cgroup");
    private static final Path CGROUP_ROOT = Path.of("/sys/fs/cgroup");
    /** Where cgroup v1 mounts the cpu controller, by distribution. */
    private static final List<String> V1_CPU_DIRS = List.of("cpu,cpuacct", "cpu", "cpuacct,cpu");

    private CpuQuota() {}

    /** The whole CPUs (rounded up) of the lowest CPU quota on this process's cgroup and its parents, if any sets one. */
    public static OptionalInt cpus() {
        return cpus(PROC_SELF_CGROUP, CGROUP_ROOT);
    }

    /**
     * Caps PyTorch's intra-op threads at the quota's CPUs (or fewer, when the JVM sees fewer processors), by
     * setting {@link #THREADS_PROPERTY} before the engine starts; returns the threads set. Nothing is set
     * without a quota, or when the user has chosen already: the property, or {@code OMP_NUM_THREADS}.
     */
    public static OptionalInt capTorchThreads() {
        OptionalInt threads = threads(cpus(), Runtime.getRuntime().availableProcessors(),
                Env.get("OMP_NUM_THREADS", THREADS_PROPERTY));
        threads.ifPresent(n -> System.setProperty(THREADS_PROPERTY, Integer.toString(n)));
        return threads;
    }

    /** The threads to set: the quota's CPUs capped at the processors the JVM sees, unless the user chose some. */
    static OptionalInt threads(OptionalInt quota, int processors, Optional<String> userThreads) {
        if (quota.isEmpty() || userThreads.isPresent()) {
            return OptionalInt.empty();
        }
        return OptionalInt.of(Math.max(1, Math.min(quota.getAsInt(), processors)));
    }

    /** {@link #cpus()} for a given {@code /proc/self/cgroup} file and cgroup mount folder. */
    static OptionalInt cpus(Path procSelfCgroup, Path cgroupRoot) {
        double lowest = Double.POSITIVE_INFINITY;
        for (Path dir : candidateDirs(procSelfCgroup, cgroupRoot)) {
            lowest = Math.min(lowest, quotaIn(dir));
        }
        return lowest == Double.POSITIVE_INFINITY ? OptionalInt.empty()
                : OptionalInt.of((int) Math.max(1, Math.ceil(lowest - 1e-9)));
    }

    /** The process's cgroup folders and their parents, for cgroup v2 and the v1 cpu controller. */
    static List<Path> candidateDirs(Path procSelfCgroup, Path cgroupRoot) {
        List<Path> dirs = new ArrayList<>();
        List<String> lines;
        try {
            lines = Files.readAllLines(procSelfCgroup);
        } catch (IOException | SecurityException e) {
            lines = List.of("0::/");
        }
        for (String line : lines) {
            String[] f = line.split(":", 3); // hierarchy-ID:controllers:path
            if (f.length < 3) {
                continue;
            }
            List<String> controllers = List.of(f[1].split(","));
            if (f[1].isEmpty()) {
                addWithParents(dirs, cgroupRoot, f[2]); // v2: one unified hierarchy
            } else if (controllers.contains("cpu")) {
                for (String mount : V1_CPU_DIRS) {
                    addWithParents(dirs, cgroupRoot.resolve(mount), f[2]);
                }
            }
        }
        return dirs;
    }

    private static void addWithParents(List<Path> dirs, Path mount, String cgroupPath) {
        Path dir = mount;
        List<Path> chain = new ArrayList<>(List.of(mount));
        for (String part : cgroupPath.split("/")) {
            if (!part.isEmpty() && !part.equals("..")) {
                dir = dir.resolve(part);
                chain.add(dir);
            }
        }
        dirs.addAll(chain);
    }

    /** The CPUs of the quota set in {@code dir} (v2 {@code cpu.max}, v1 {@code cpu.cfs_quota_us}), or infinity. */
    static double quotaIn(Path dir) {
        try {
            Path max = dir.resolve("cpu.max");
            if (Files.isRegularFile(max)) {
                String[] f = Files.readString(max).trim().split("\\s+"); // "max 100000" or "150000 100000"
                return f.length == 2 && !f[0].equals("max") ? ratio(f[0], f[1]) : Double.POSITIVE_INFINITY;
            }
            Path quota = dir.resolve("cpu.cfs_quota_us");
            Path period = dir.resolve("cpu.cfs_period_us");
            if (Files.isRegularFile(quota) && Files.isRegularFile(period)) {
                return ratio(Files.readString(quota).trim(), Files.readString(period).trim()); // -1: none
            }
        } catch (IOException | SecurityException | NumberFormatException e) {
            // unreadable or unexpected: no quota known here
        }
        return Double.POSITIVE_INFINITY;
    }

    private static double ratio(String quota, String period) {
        long q = Long.parseLong(quota);
        long p = Long.parseLong(period);
        return q > 0 && p > 0 ? (double) q / p : Double.POSITIVE_INFINITY;
    }
}
