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
        Djl.setup();
        assertTrue(NativeMemory.isTuned(), "mallopt was not applied on this Linux system");
        assertTrue(NativeMemory.keepFreedMemory(), "a second call gives the first answer");
    }

    @Test
    void djlSetupAsksLibtorchForHugePagesUnlessTheUserChose() {
        assumeTrue(NativeMemory.enabled(), "not glibc, or switched off");
        Djl.setup();
        String user = System.getenv(NativeMemory.THP_VARIABLE);
        assertEquals(user != null ? user : "1", Libc.getenv(NativeMemory.THP_VARIABLE));
        assertEquals(user == null || user.equals("1"), NativeMemory.hugePages());
    }
}
