package org.d2l.multigpu.runtime;

import ai.djl.engine.Engine;
import java.util.List;

/**
 * Where a run ran, in a few lines for the head of a log: the CPU and the instruction sets that choose
 * PyTorch's kernels, what the CPU check found (oneDNN's version and instruction set), and the versions of
 * PyTorch (the bundled natives, and where the libtorch in use was loaded from), DJL and Java.
 */
public final class Platform {

    private Platform() {}

    /** The lines, after starting the engine the way every entry point starts it ({@link Djl#setup()}). */
    public static List<String> describe() {
        Djl.setup();
        CpuInfo cpu = CpuInfo.local();
        Engine engine = Engine.getInstance();
        return List.of("CPU: " + cpu.describe(),
                "CPU flags that choose kernels: " + cpu.describeFlags(),
                "CPU check: " + CpuCheck.describe(),
                String.format("%s %s (natives %s; libtorch loaded from %s), DJL %s, Java %s (%s), allocator %s, %s=%s",
                        engine.getEngineName(), engine.getVersion(), Djl.nativesVersion(),
                        ai.djl.pytorch.jni.LibUtils.getLibtorchPath(), Engine.getDjlVersion(),
                        System.getProperty("java.version"), System.getProperty("java.vendor"),
                        NativeMemory.describe(), CpuCheck.ISA_VARIABLE,
                        java.util.Optional.ofNullable(Libc.getenv(CpuCheck.ISA_VARIABLE)).orElse("unset")));
    }

    /** Prints {@link #describe()}. */
    public static void main(String[] args) {
        describe().forEach(System.out::println);
    }
}
