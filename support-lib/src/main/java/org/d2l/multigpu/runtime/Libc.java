package org.d2l.multigpu.runtime;

import com.sun.jna.Function;
import com.sun.jna.NativeLibrary;
import com.sun.jna.Platform;

/** The few C library functions the runtime calls through JNA: {@code mallopt}, {@code setenv} and {@code getenv}. */
final class Libc {

    private Libc() {}

    /** Whether the C library is glibc (musl's {@code mallopt} does nothing; other systems lack it). */
    static boolean glibc() {
        return Platform.isLinux() && function("gnu_get_libc_version") != null;
    }

    /** Calls {@code mallopt(param, value)} and returns whether it succeeded. */
    static boolean mallopt(int param, int value) {
        Function f = function("mallopt");
        return f != null && f.invokeInt(new Object[] {param, value}) == 1;
    }

    /**
     * Sets {@code name} in the C library's environment, which native code reads with {@code getenv}
     * (Java's {@code System.getenv} does not see the change), overwriting any value; returns whether it worked.
     */
    static boolean setenv(String name, String value) {
        Function f = function("setenv");
        return f != null && f.invokeInt(new Object[] {name, value, 1}) == 0;
    }

    /** The value of {@code name} in the C library's environment, or null. */
    static String getenv(String name) {
        Function f = function("getenv");
        return f == null ? null : f.invokeString(new Object[] {name}, false);
    }

    private static Function function(String name) {
        try {
            return NativeLibrary.getInstance(Platform.C_LIBRARY_NAME).getFunction(name);
        } catch (UnsatisfiedLinkError ex) {
            return null;
        }
    }
}
