package org.d2l.multigpu.lesson;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;

/**
 * IEEE half precision (float16: 1 sign, 5 exponent and 10 fraction bits) in numbers: what it can
 * hold, and values rounded to it by the engine.
 */
public final class Float16 {

    /** The smallest positive float16 number, 2^-24 (about 5.96e-8): anything below half of it rounds to zero. */
    public static final float SMALLEST_SUBNORMAL = 0x1p-24f;
    /** The smallest float16 number with full precision (11 significant bits), 2^-14 (about 6.10e-5). */
    public static final float SMALLEST_NORMAL = 0x1p-14f;
    /** The largest finite float16 number, 65504: anything from 65520 up rounds to infinity. */
    public static final float MAX = 65504f;
    /** The spacing of float16 numbers next to 1, 2^-10 (about 0.001). */
    public static final float EPSILON = 0x1p-10f;

    private Float16() {}

    /** The values of {@code x} rounded to float16 (round to nearest even) and widened back to float32. */
    public static NDArray round(NDArray x) {
        try (NDArray half = x.toType(DataType.FLOAT16, true)) {
            return half.toType(DataType.FLOAT32, false);
        }
    }

    /**
     * What this machine's CPU offers for float16, from {@code /proc/cpuinfo} (Linux): conversion only
     * (F16C) or arithmetic (AVX512-FP16, AMX-FP16); "unknown" where that file cannot be read.
     */
    public static String cpuSupport() {
        try {
            return cpuSupport(Files.readString(Path.of("/proc/cpuinfo")));
        } catch (IOException | RuntimeException e) {
            return "unknown (no /proc/cpuinfo on this system)";
        }
    }

    /** The same, from the text of a {@code /proc/cpuinfo}. */
    static String cpuSupport(String cpuinfo) {
        Set<String> flags = new HashSet<>();
        cpuinfo.lines().filter(l -> l.startsWith("flags")).findFirst()
                .ifPresent(l -> flags.addAll(List.of(l.substring(l.indexOf(':') + 1).trim().split("\\s+"))));
        String model = cpuinfo.lines().filter(l -> l.startsWith("model name")).findFirst()
                .map(l -> l.substring(l.indexOf(':') + 1).trim()).orElse("this CPU");
        List<String> arithmetic = Stream.of("avx512_fp16", "amx_fp16")
                .filter(flags::contains).toList();
        if (!arithmetic.isEmpty()) {
            return model + ": float16 arithmetic (" + String.join(", ", arithmetic) + ")";
        }
        return model + (flags.contains("f16c") ? ": float16 conversion only (f16c), no float16 arithmetic"
                : ": no float16 instructions (neither conversion nor arithmetic)");
    }

    /** The values of {@code values} rounded to float16 by the engine, as Java floats. */
    public static float[] round(NDManager manager, float... values) {
        try (NDArray x = manager.create(values); NDArray r = round(x)) {
            return r.toFloatArray();
        }
    }
}
