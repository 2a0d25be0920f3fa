package org.d2l.multigpu.runtime;

/**
 * Spares libtorch's arrays most of the page faults that glibc's allocator costs them in a JVM: freed
 * memory stays in the process, and large arrays get 2 MiB pages.
 *
 * <p>libtorch allocates each intermediate array with {@code malloc} and frees it when the array is
 * closed. The JVM calls libtorch from threads other than the process's first one, whose memory
 * comes from glibc's secondary arenas: heaps of at most 64 MiB that glibc unmaps or shrinks as soon
 * as they fall empty, and maps again a few operations later, so the kernel faults in and zeroes the
 * same memory again and again. Measured on a 2-core machine, batch 256: a LeNet step took 4,000 to
 * 14,000 minor page faults (10 to 40 ms of system time in a 65 ms step), a ResNet-18 step about
 * 900,000 (2.6 s of system time in 7.4 s). {@link #keepFreedMemory()} sets three {@code mallopt}
 * parameters: arrays up to 32 MiB (glibc's largest mmap threshold) come from the heaps, and up to
 * 64 MiB of free memory at a heap's top is kept, 32 MiB more asked for whenever a heap grows (trim
 * threshold and top pad); LeNet then takes tens of faults per step. {@link #hugePages()} asks
 * libtorch (its {@code THP_MEM_ALLOC_ENABLE}) for transparent huge pages on arrays of 2 MiB and more,
 * which still come and go with every step above 32 MiB: a ResNet-18 step then takes about 45,000
 * faults and 0.5-0.7 s of system time. Both cost memory: ResNet-18's peak resident memory at batch
 * 256 rose by about 2-10% (2.56 GB to 2.61-2.80 GB), and resident memory stays near its peak between
 * steps instead of falling back after each.
 *
 * <p>A lesson with many trainers and threads keeps far more: large-batches' kernel reached 2.9 GB resident,
 * where 1.6 GB were ever in use at once. So on a machine with less than {@link #KEEP_MIN_BYTES} for this
 * process ({@link Memory#availableBytes()}: Binder's 2 GB) the opposite is set: a fixed mmap threshold of
 * {@link #RETURN_MMAP_THRESHOLD}, so that every array of that size or more goes back to the system when
 * it is freed (glibc's own threshold grows to 32 MiB after the first such free, and then keeps them too).
 */
public final class NativeMemory {

    /** glibc's {@code M_TRIM_THRESHOLD} parameter of {@code mallopt}. */
    static final int M_TRIM_THRESHOLD = -1;
    /** glibc's {@code M_TOP_PAD} parameter of {@code mallopt}. */
    static final int M_TOP_PAD = -2;
    /** glibc's {@code M_MMAP_THRESHOLD} parameter of {@code mallopt}. */
    static final int M_MMAP_THRESHOLD = -3;
    /** Allocations up to this size come from the heaps: glibc's largest allowed value (HEAP_MAX_SIZE / 2). */
    public static final int MMAP_THRESHOLD = 32 << 20;
    /** Free memory at the top of a heap is kept up to this size. */
    public static final int TRIM_THRESHOLD = 64 << 20;
    /** Extra memory asked for whenever a heap grows, kept when it is freed. */
    public static final int TOP_PAD = 32 << 20;
    /** The least memory for which freed memory is kept; below it, freed arrays go back to the system. */
    public static final long KEEP_MIN_BYTES = 4L << 30;
    /** On a machine with less memory, arrays of this size or more come from the system and go back to it when freed. */
    public static final int RETURN_MMAP_THRESHOLD = 128 << 10;
    /** libtorch's switch for transparent huge pages on CPU arrays of 2 MiB and more, read at its first allocation. */
    public static final String THP_VARIABLE = "THP_MEM_ALLOC_ENABLE";

    private static volatile Boolean kept;
    private static volatile boolean returned;
    private static volatile Boolean huge;

    private NativeMemory() {}

    /**
     * Sets glibc's mmap threshold, trim threshold and top pad for this process (once; later calls
     * return the first answer) and returns whether they were set: only with glibc (Linux), only where this
     * process has at least {@link #KEEP_MIN_BYTES} (else {@link #returnFreedMemory()} runs instead), not when
     * the user has chosen any of them through {@code MALLOC_MMAP_THRESHOLD_}, {@code MALLOC_TRIM_THRESHOLD_}
     * or {@code MALLOC_TOP_PAD_}, and not when turned off with the environment variable
     * {@code D2L_MALLOC_TUNING=false} or the property {@code d2l.malloc.tuning=false}.
     */
    public static boolean keepFreedMemory() {
        Boolean k = kept;
        if (k == null) {
            synchronized (NativeMemory.class) {
                k = kept;
                if (k == null) {
                    boolean chosen = System.getenv("MALLOC_MMAP_THRESHOLD_") != null
                            || System.getenv("MALLOC_TRIM_THRESHOLD_") != null || System.getenv("MALLOC_TOP_PAD_") != null;
                    Mode mode = mode(enabled(), chosen, Memory.availableBytes());
                    k = mode == Mode.KEEP && Libc.mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD)
                            && Libc.mallopt(M_TRIM_THRESHOLD, TRIM_THRESHOLD) && Libc.mallopt(M_TOP_PAD, TOP_PAD);
                    returned = mode == Mode.RETURN && Libc.mallopt(M_MMAP_THRESHOLD, RETURN_MMAP_THRESHOLD);
                    kept = k;
                }
            }
        }
        return k;
    }

    /** What this process's allocator is set to do with freed memory. */
    enum Mode {
        /** Keep it for the next arrays (fast). */
        KEEP,
        /** Give arrays of {@link #RETURN_MMAP_THRESHOLD} and more back at once (little memory). */
        RETURN,
        /** Leave glibc's settings alone (turned off, the user chose, or not glibc). */
        DEFAULTS
    }

    /** The mode for a process with {@code available} bytes, the tuning {@code enabled}, and the user's own choice or not. */
    static Mode mode(boolean enabled, boolean userChose, long available) {
        if (!enabled || userChose) {
            return Mode.DEFAULTS;
        }
        return available >= KEEP_MIN_BYTES ? Mode.KEEP : Mode.RETURN;
    }

    /** Whether freed arrays go back to the system at once (a machine with little memory; false before {@link #keepFreedMemory()}). */
    public static boolean returnFreedMemory() {
        keepFreedMemory();
        return returned;
    }

    /** What the allocator does with freed memory, in a few words, for {@link Platform}. */
    public static String describe() {
        return keepFreedMemory() ? "keeps freed memory" : returnFreedMemory()
                ? String.format(java.util.Locale.ROOT, "returns freed arrays of %d KiB and more (%.1f GB for this process)",
                        RETURN_MMAP_THRESHOLD >> 10, Memory.availableBytes() / 1e9)
                : "glibc's defaults";
    }

    /**
     * Sets {@code THP_MEM_ALLOC_ENABLE=1} in this process's environment unless the user has set it or the
     * process has less than {@link #KEEP_MIN_BYTES}
     * (once; later calls return the first answer) and returns whether it is 1 now; libtorch reads it
     * at its first allocation, so this must run before the first array is made (as {@link Djl#setup()}
     * does). Only with glibc, and not when turned off like {@link #keepFreedMemory()}; the kernel
     * honours it unless {@code /sys/kernel/mm/transparent_hugepage/enabled} says {@code never}.
     */
    public static boolean hugePages() {
        Boolean h = huge;
        if (h == null) {
            synchronized (NativeMemory.class) {
                h = huge;
                if (h == null) {
                    String user = System.getenv(THP_VARIABLE);
                    // with little memory, no huge pages: an array's last 2 MiB page counts whole (large-batches'
                    // kernel in smoke settings, 2 GB: 1,303 to 1,421 MB in 4 runs with them, 1,315 to 1,341 in 4 without)
                    Mode mode = mode(enabled(), false, Memory.availableBytes());
                    h = user != null ? user.equals("1") : mode == Mode.KEEP && Libc.setenv(THP_VARIABLE, "1");
                    huge = h;
                }
            }
        }
        return h;
    }

    /** Whether this process runs with the allocator settings of {@link #keepFreedMemory()} (false before it is called). */
    static boolean isTuned() {
        return Boolean.TRUE.equals(kept);
    }

    static boolean enabled() {
        return Libc.glibc() && Env.isOn("D2L_MALLOC_TUNING", true);
    }
}
