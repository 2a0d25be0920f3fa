package org.d2l.multigpu.lesson;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import ai.djl.ndarray.NDManager;
import org.d2l.multigpu.runtime.Djl;
import org.junit.jupiter.api.Test;

class Float16Test {

    @Test
    void theLimitsAreWhatTheEngineRoundsTo() {
        Djl.setup();
        try (NDManager m = NDManager.newBaseManager()) {
            float[] r = Float16.round(m, Float16.SMALLEST_SUBNORMAL, Float16.SMALLEST_SUBNORMAL / 2,
                    Float16.SMALLEST_NORMAL, Float16.MAX, 65520f, 1f + Float16.EPSILON, 1f + Float16.EPSILON / 4);
            assertArrayEquals(new float[] {Float16.SMALLEST_SUBNORMAL, 0f, Float16.SMALLEST_NORMAL, Float16.MAX,
                Float.POSITIVE_INFINITY, 1f + Float16.EPSILON, 1f}, r, 0f);
            assertEquals(5.96e-8, Float16.SMALLEST_SUBNORMAL, 1e-10);
            assertEquals(6.10e-5, Float16.SMALLEST_NORMAL, 1e-7);
        }
    }

    @Test
    void roundingKeepsThreeDecimalDigitsAndFlushesTinyValues() {
        Djl.setup();
        try (NDManager m = NDManager.newBaseManager()) {
            float[] r = Float16.round(m, 1e-8f, 0.1f, 1.0001f, 70000f);
            assertArrayEquals(new float[] {0f, 0.099975586f, 1f, Float.POSITIVE_INFINITY}, r, 0f);
        }
    }

    @Test
    void theCpuIsSaidToConvertOnlyUnlessItHasFloat16Arithmetic() {
        String amd = "model name\t: AMD EPYC\nflags\t\t: fpu fma f16c avx2\n";
        assertEquals("AMD EPYC: float16 conversion only (f16c), no float16 arithmetic", Float16.cpuSupport(amd));
        String spr = "model name\t: Xeon\nflags\t\t: f16c avx512f avx512_fp16 amx_tile amx_fp16\n";
        assertEquals("Xeon: float16 arithmetic (avx512_fp16, amx_fp16)", Float16.cpuSupport(spr));
        assertEquals("this CPU: no float16 instructions (neither conversion nor arithmetic)",
                Float16.cpuSupport("flags : sse2\n"));
    }
}
