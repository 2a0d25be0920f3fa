package org.d2l.multigpu.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class CpuCheckTest {

    private static final String ZEN5_ISA = "Intel AVX-512 with Intel DL Boost and bfloat16 support";
    /** What oneDNN 3.7.1 reports capped at AVX512_CORE (seen on an Intel Xeon). */
    private static final String AVX512_CORE_ISA = "Intel AVX-512 with AVX512BW, AVX512VL, and AVX512DQ extensions";

    @Test
    void capsBelowTheDefaultAreTriedHighestFirstAndNoneEqualToIt() {
        assertEquals(List.of("AVX512_CORE", "AVX2", "AVX", "SSE41"), CpuCheck.capsBelow(ZEN5_ISA));
        assertEquals(List.of("AVX2", "AVX", "SSE41"), CpuCheck.capsBelow("Intel AVX-512"));
        assertEquals(List.of("AVX2", "AVX", "SSE41"), CpuCheck.capsBelow(AVX512_CORE_ISA));
        assertEquals(List.of("AVX", "SSE41"), CpuCheck.capsBelow("Intel AVX2"));
        assertEquals(List.of("AVX", "SSE41"), CpuCheck.capsBelow("Intel AVX2 with Intel DL Boost"));
        assertEquals(List.of(), CpuCheck.capsBelow("Intel SSE4.1"));
    }

    @Test
    void aFaultAtTheDefaultIsCappedAtTheHighestInstructionSetThatPasses() throws IOException {
        List<String> asked = new ArrayList<>();
        CpuCheck.Verdict v = CpuCheck.search(cap -> {
            asked.add(String.valueOf(cap));
            boolean ok = "AVX".equals(cap) || "SSE41".equals(cap);
            return new CpuCheck.ChildResult(ok, "v3.7.1", cap == null ? ZEN5_ISA : "Intel " + cap,
                    ok ? List.of() : List.of("training run 1 of 20: the loss is not finite from step 1 on"), ok ? 0 : 1);
        }, null);
        assertEquals(List.of("null", "AVX512_CORE", "AVX2", "AVX"), asked, "stops at the first cap that passes");
        assertEquals("capped", v.outcome());
        assertEquals("AVX", v.cap());
        assertTrue(v.details().startsWith("default " + ZEN5_ISA + ": training run 1"), v.details());
        assertTrue(v.describe().contains("ONEDNN_MAX_CPU_ISA=AVX"), v.describe());
    }

    @Test
    void aPassAtTheDefaultCapsNothingAndAFaultEverywhereSaysSo() throws IOException {
        CpuCheck.Verdict pass = CpuCheck.search(cap -> new CpuCheck.ChildResult(true, "v3.7.1", "Intel AVX2", List.of(), 0), null);
        assertEquals("pass", pass.outcome());
        assertNull(pass.cap());
        CpuCheck.Verdict fault = CpuCheck.search(cap -> new CpuCheck.ChildResult(false, "v3.7.1", "Intel AVX2", List.of(), 134), null);
        assertEquals("fault", fault.outcome());
        assertNull(fault.cap());
        assertTrue(fault.details().contains("status 134"), fault.details());
    }

    @Test
    void aCpuWithFloat16ArithmeticStartsAtAvx512WithoutItAndOthersAtTheDefault() {
        String xeon = "vendor_id\t: GenuineIntel\ncpu family\t: 6\nmodel\t\t: 143\n"
                + "flags\t\t: fpu sse4_1 avx avx2 fma f16c avx512f avx512_bf16 avx512_fp16 amx_bf16 amx_tile\n";
        assertEquals("AVX512_CORE", CpuCheck.startingCap(CpuInfo.parse(xeon, 2)));
        assertNull(CpuCheck.startingCap(CpuInfo.parse(xeon.replace(" avx512_fp16", ""), 2)));
    }

    @Test
    void aPassAtTheSpeedCapKeepsItAndSaysWhy() throws IOException {
        List<String> asked = new ArrayList<>();
        CpuCheck.Verdict v = CpuCheck.search(cap -> {
            asked.add(String.valueOf(cap));
            return new CpuCheck.ChildResult(true, "v3.7.1", AVX512_CORE_ISA, List.of(), 0);
        }, CpuCheck.FLOAT16_SPEED_CAP);
        assertEquals(List.of("AVX512_CORE"), asked, "oneDNN's default is not run");
        assertEquals("speed", v.outcome());
        assertEquals("AVX512_CORE", v.cap());
        assertTrue(v.describe().contains("ONEDNN_MAX_CPU_ISA=AVX512_CORE") && v.describe().contains("avx512_fp16"),
                v.describe());
    }

    @Test
    void aFaultAtTheSpeedCapGoesOnBelowIt() throws IOException {
        List<String> asked = new ArrayList<>();
        CpuCheck.Verdict v = CpuCheck.search(cap -> {
            asked.add(String.valueOf(cap));
            boolean ok = !"AVX512_CORE".equals(cap);
            return new CpuCheck.ChildResult(ok, "v3.7.1", cap.equals("AVX512_CORE") ? AVX512_CORE_ISA : "Intel " + cap,
                    ok ? List.of() : List.of("training run 3 of 20: the loss is not finite from step 2 on"), ok ? 0 : 1);
        }, CpuCheck.FLOAT16_SPEED_CAP);
        assertEquals(List.of("AVX512_CORE", "AVX2"), asked, "the failed start is not run again");
        assertEquals("capped", v.outcome());
        assertEquals("AVX2", v.cap());
        assertTrue(v.details().startsWith("AVX512_CORE " + AVX512_CORE_ISA + ": training run 3"), v.details());
    }

    @Test
    void aVerdictReadBackFromItsFileIsTheSame() {
        CpuCheck.Verdict v = new CpuCheck.Verdict("capped", "SSE41", "v3.7.1", "Intel SSE4.1", "default: NaN", "2026-11-25", 12.5);
        assertEquals(v, CpuCheck.Verdict.of(v.toProperties()));
    }

    @Test
    void theSelfTestPassesInThisJvmWithWhatTheCheckChose() {
        Djl.setup();
        KernelSelfTest t = new KernelSelfTest(8, 4, 5, 1, false);
        assertTrue(t.run(), t.summary() + "; CPU check: " + CpuCheck.describe());
    }

    @Test
    void aZen5IsReadFromItsCpuinfo() {
        CpuInfo c = CpuInfo.parse("processor\t: 0\nvendor_id\t: AuthenticAMD\ncpu family\t: 26\nmodel\t\t: 2\n"
                + "model name\t: AMD EPYC 9B45\nstepping\t: 1\nmicrocode\t: 0xb002116\n"
                + "flags\t\t: fpu sse4_1 avx avx2 fma avx512f avx512_bf16 avx512_vp2intersect\n\nprocessor\t: 1\n", 2);
        assertEquals(26, c.family());
        assertEquals(2, c.model());
        assertTrue(c.x86());
        assertEquals(Set.of("fpu", "sse4_1", "avx", "avx2", "fma", "avx512f", "avx512_bf16", "avx512_vp2intersect"), c.flags());
        assertTrue(c.describeFlags().startsWith("has sse4_1 avx avx2 fma avx512f avx512_bf16 avx512_vp2intersect; lacks f16c"),
                c.describeFlags());
        assertTrue(c.describe().startsWith("AMD EPYC 9B45 (AuthenticAMD, family 26 model 2 stepping 1, microcode 0xb002116), 2 CPUs"),
                c.describe());
    }
}
