package org.d2l.multigpu.runtime;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.OptionalLong;

/**
 * The memory this process may use (physical memory, or the container's cgroup limit when lower) and the
 * largest batch that fits in it, so that a lesson picks a smaller batch instead of being killed (Binder: 2 GB).
 */
public final class Memory {

    /** Resident memory of the JVM, PyTorch and the Fashion-MNIST arrays before any batch (measured: ~0.7 GB). */
    public static final long BASE_BYTES = 700L << 20;
    /** Memory per training image of the book's ResNet-18 variant, width 64 (batch 256 needs ~2.7 GB resident). */
    public static final long RESNET18_BYTES_PER_EXAMPLE = 8L << 20;

    private static final List<Path> CGROUP_LIMITS = List.of(Path.of("/sys/fs/cgroup/memory.max"),
            Path.of("/sys/fs/cgroup/memory/memory.limit_in_bytes"));

    private Memory() {}

    /** The setting that caps the memory this process counts on, as Binder's 2 GB would ({@code 2g}, {@code 1536m}). */
    public static final String LIMIT_VARIABLE = "D2L_MEMORY_LIMIT";

    /**
     * Total physical memory, or the cgroup (container) limit or {@value #LIMIT_VARIABLE} (property
     * {@code d2l.memory.limit}) when lower, in bytes.
     */
    public static long availableBytes() {
        long physical = ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
                .getTotalMemorySize();
        long available = physical;
        OptionalLong limit = cgroupLimit();
        if (limit.isPresent()) {
            available = Math.min(available, limit.getAsLong());
        }
        OptionalLong set = Env.get(LIMIT_VARIABLE).map(Memory::parseBytes).orElse(OptionalLong.empty());
        return set.isPresent() ? Math.min(available, set.getAsLong()) : available;
    }

    /** Bytes from {@code 2147483648}, {@code 2048m}, {@code 2g} (or {@code k}); a value in another form is refused. */
    static OptionalLong parseBytes(String value) {
        String v = value.strip().toLowerCase(Locale.ROOT);
        if (v.isEmpty()) {
            return OptionalLong.empty();
        }
        long unit = switch (v.charAt(v.length() - 1)) {
            case 'k' -> 1L << 10;
            case 'm' -> 1L << 20;
            case 'g' -> 1L << 30;
            default -> 1;
        };
        String digits = unit == 1 ? v : v.substring(0, v.length() - 1);
        if (!digits.matches("\\d{1,12}") || Long.parseLong(digits) == 0) {
            throw new IllegalArgumentException(LIMIT_VARIABLE + " must be a size such as 2g, 1536m or 2147483648 "
                    + "(bytes), got \"" + value + "\"; unset it to use the machine's memory.");
        }
        return OptionalLong.of(Long.parseLong(digits) * unit);
    }

    /** The batch size for the book's ResNet-18 on this machine: {@code requested}, or smaller with a printed note. */
    public static int batchSize(int requested) {
        return batchSize(requested, 64);
    }

    /**
     * The batch size for a ResNet-18 of {@code width} first-stage channels on this machine (its activations
     * grow with the width): {@code requested}, or smaller with a printed note.
     */
    public static int batchSize(int requested, int width) {
        if (width < 1) {
            throw new IllegalArgumentException("width must be at least 1 (the book's ResNet-18 has 64), got " + width);
        }
        long perExample = resnet18BytesPerExample(width);
        long available = availableBytes();
        int batch = fittingBatch(requested, available, BASE_BYTES, perExample);
        if (batch < requested) {
            System.out.printf(Locale.ROOT, "This machine gives %.1f GB; batch %d needs about %.1f GB: using batch %d.%n",
                    available / 1e9, requested, (BASE_BYTES + requested * perExample) / 1e9, batch);
        }
        return batch;
    }

    /** Memory per training image of a ResNet-18 of {@code width} first-stage channels (activations scale with it). */
    public static long resnet18BytesPerExample(int width) {
        return Math.max(1, RESNET18_BYTES_PER_EXAMPLE * width / 64);
    }

    /**
     * The largest of {@code requested}, its half, its quarter, ... (at least 1) whose estimated need
     * {@code base + batch * perExample} stays within 90% of {@code available}; throws when even 1 does not fit.
     */
    public static int fittingBatch(int requested, long available, long base, long perExample) {
        if (requested < 1 || available <= 0 || base < 0 || perExample <= 0) {
            throw new IllegalArgumentException("batch, memory and bytes per example must be positive, got "
                    + requested + ", " + available + ", " + perExample);
        }
        long budget = (long) (available * 0.9);
        int batch = requested;
        while (batch > 1 && base + (long) batch * perExample > budget) {
            batch = (batch + 1) / 2;
        }
        if (base + (long) batch * perExample > budget) {
            throw new IllegalStateException(String.format(Locale.ROOT, "Only %.2f GB of memory: not enough for "
                    + "even one example (about %.2f GB); use a machine with more memory.",
                    available / 1e9, (base + perExample) / 1e9));
        }
        return batch;
    }

    /** The cgroup v2 or v1 memory limit, if this process runs under one ("max" or a huge value: none). */
    static OptionalLong cgroupLimit() {
        for (Path p : CGROUP_LIMITS) {
            try {
                String v = Files.readString(p).strip();
                if (!v.equals("max") && v.matches("\\d+") && v.length() < 19) {
                    return OptionalLong.of(Long.parseLong(v));
                }
            } catch (IOException | SecurityException e) {
                // not under this cgroup version
            }
        }
        return OptionalLong.empty();
    }
}
