package org.d2l.multigpu.runtime;

import com.sun.jna.Function;
import com.sun.jna.NativeLibrary;
import com.sun.jna.Platform;

/**
 * Keeps glibc's allocator from giving freed tensor memory back to the operating system after every
 * operation, which in a JVM costs a small model a page fault per 4 KiB of many intermediate arrays.
 *
 * <p>libtorch allocates each intermediate array with {@code malloc} and frees it when the array is
 * closed. The JVM calls libtorch from threads other than the process's first one, whose memory
 * comes from glibc's secondary arenas: heaps of at most 64 MiB that glibc unmaps or shrinks as soon
 * as they fall empty, and maps again a few operations later. A LeNet step at batch 256 then took
 * 4,000 to 15,000 minor page faults (16 to 60 MB of pages the kernel zeroes, 10 to 40 ms of system
 * time on a 2-core machine). Three {@code mallopt} settings keep that memory in the process: arrays
 * up to 32 MiB (glibc's largest mmap threshold) come from the heaps, new heaps are made at their
 * full size, and up to 64 MiB of free memory at the top of a heap is kept (top pad and trim
 * threshold). Measured: tens to a few hundred faults per LeNet step. Arrays above 32 MiB (the first
 * layers of ResNet-18 at batch 256) are still mapped and unmapped each time, in Python as here.
 * Resident memory stays near its peak between steps instead of falling back after each.
 */
public final class NativeMemory {

    /** glibc's {@code M_TRIM_THRESHOLD} parameter of {@code mallopt}. */
    static final int M_TRIM_THRESHOLD = -1;
    /** glibc's {@code M_TOP_PAD} parameter of {@code mallopt}. */
    static final int M_TOP_PAD = -2;
    /** glibc's {@code M_MMAP_THRESHOLD} parameter of {@code mallopt}. */
    static final int M_MMAP_THRESHOLD = -3;
    /** Allocations up to this size come from the heap: glibc's largest allowed value (HEAP_MAX_SIZE / 2). */
    public static final int MMAP_THRESHOLD = 32 << 20;
    /** Free memory at the top of a heap is kept up to this size, and new heaps get this much extra: a whole heap. */
    public static final int KEEP = 64 << 20;

    private static volatile Boolean tuned;

    private NativeMemory() {}

    /**
     * Sets glibc's mmap threshold, trim threshold and top pad for this process (once; later calls
     * return the first answer) and returns whether they were set: only with glibc (Linux), not when
     * the user has chosen any of them through {@code MALLOC_MMAP_THRESHOLD_}, {@code MALLOC_TRIM_THRESHOLD_}
     * or {@code MALLOC_TOP_PAD_}, and not when turned off with the environment variable
     * {@code D2L_MALLOC_TUNING=false} or the property {@code d2l.malloc.tuning=false}.
     */
    public static boolean keepFreedMemory() {
        Boolean t = tuned;
        if (t == null) {
            synchronized (NativeMemory.class) {
                t = tuned;
                if (t == null) {
                    t = enabled() && mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD) && mallopt(M_TRIM_THRESHOLD, KEEP)
                            && mallopt(M_TOP_PAD, KEEP);
                    tuned = t;
                }
            }
        }
        return t;
    }

    /** Whether this process runs with the thresholds of {@link #keepFreedMemory()} (false before it is called). */
    public static boolean isTuned() {
        return Boolean.TRUE.equals(tuned);
    }

    static boolean enabled() {
        return glibc() && System.getenv("MALLOC_MMAP_THRESHOLD_") == null
                && System.getenv("MALLOC_TRIM_THRESHOLD_") == null && System.getenv("MALLOC_TOP_PAD_") == null
                && switchedOn(System.getenv("D2L_MALLOC_TUNING"), System.getProperty("d2l.malloc.tuning"));
    }

    /** The switch: the environment variable wins over the property; anything but false or 0 means on. */
    static boolean switchedOn(String env, String property) {
        String v = env != null ? env : property;
        return v == null || !(v.equalsIgnoreCase("false") || v.equals("0"));
    }

    /** Whether the C library is glibc (musl's {@code mallopt} does nothing; other systems lack it). */
    static boolean glibc() {
        return Platform.isLinux() && libc("gnu_get_libc_version") != null;
    }

    private static boolean mallopt(int param, int value) {
        Function f = libc("mallopt");
        return f != null && f.invokeInt(new Object[] {param, value}) == 1;
    }

    private static Function libc(String name) {
        try {
            return NativeLibrary.getInstance(Platform.C_LIBRARY_NAME).getFunction(name);
        } catch (UnsatisfiedLinkError ex) {
            return null;
        }
    }
}
