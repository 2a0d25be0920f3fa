package org.d2l.multigpu.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import org.junit.jupiter.api.Test;

class NativeMemoryTest {

    @Test
    void djlSetupKeepsFreedMemoryWithGlibc() {
        assumeTrue(NativeMemory.enabled(), "not glibc, or switched off");
        assumeTrue(Memory.availableBytes() >= NativeMemory.KEEP_MIN_BYTES, "a machine with little memory");
        Djl.setup();
        assertTrue(NativeMemory.isTuned(), "mallopt was not applied on this Linux system");
        assertTrue(NativeMemory.keepFreedMemory(), "a second call gives the first answer");
    }

    @Test
    void withLittleMemoryFreedArraysGoBackAndWithEnoughTheyAreKept() {
        assertEquals(NativeMemory.Mode.RETURN, NativeMemory.mode(true, false, 2L << 30)); // Binder's 2 GB
        assertEquals(NativeMemory.Mode.RETURN, NativeMemory.mode(true, false, NativeMemory.KEEP_MIN_BYTES - 1));
        assertEquals(NativeMemory.Mode.KEEP, NativeMemory.mode(true, false, NativeMemory.KEEP_MIN_BYTES));
        assertEquals(NativeMemory.Mode.KEEP, NativeMemory.mode(true, false, 24L << 30));
    }

    @Test
    void turnedOffOrTheUsersOwnSettingsLeaveGlibcAlone() {
        assertEquals(NativeMemory.Mode.DEFAULTS, NativeMemory.mode(false, false, 2L << 30));
        assertEquals(NativeMemory.Mode.DEFAULTS, NativeMemory.mode(true, true, 24L << 30));
    }

    @Test
    void djlSetupAsksLibtorchForHugePagesUnlessTheUserChose() {
        assumeTrue(NativeMemory.enabled(), "not glibc, or switched off");
        assumeTrue(Memory.availableBytes() >= NativeMemory.KEEP_MIN_BYTES, "a machine with little memory");
        Djl.setup();
        String user = System.getenv(NativeMemory.THP_VARIABLE);
        assertEquals(user != null ? user : "1", Libc.getenv(NativeMemory.THP_VARIABLE));
        assertEquals(user == null || user.equals("1"), NativeMemory.hugePages());
    }
}
