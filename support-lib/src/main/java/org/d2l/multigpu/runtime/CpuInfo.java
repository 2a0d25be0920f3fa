package org.d2l.multigpu.runtime;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * This machine's CPU as Linux reports it in {@code /proc/cpuinfo}: vendor, model, family, model
 * number, stepping, microcode and the instruction-set flags that decide which kernels oneDNN runs.
 */
public record CpuInfo(String vendor, String modelName, int family, int model, int stepping, String microcode,
        Set<String> flags, int processors) {

    /** The flags that choose oneDNN's and PyTorch's kernels, in the order they are printed. */
    public static final List<String> FLAGS_THAT_MATTER = List.of("sse4_1", "avx", "avx2", "fma", "f16c",
            "avx512f", "avx512bw", "avx512vl", "avx512_vnni", "avx512_bf16", "avx512_fp16", "avx512_vp2intersect",
            "avx_vnni", "amx_tile", "amx_bf16", "amx_fp16");

    private static volatile CpuInfo local;

    /** The CPU this JVM runs on (read once; an unknown CPU, with no flags, where {@code /proc/cpuinfo} is missing). */
    public static CpuInfo local() {
        CpuInfo c = local;
        if (c == null) {
            String text;
            try {
                text = Files.readString(Path.of("/proc/cpuinfo"));
            } catch (IOException | SecurityException e) {
                text = "";
            }
            c = parse(text, Runtime.getRuntime().availableProcessors());
            local = c;
        }
        return c;
    }

    /** The CPU described by the text of a {@code /proc/cpuinfo} file (its first processor's block). */
    static CpuInfo parse(String cpuinfo, int processors) {
        Map<String, String> first = new LinkedHashMap<>();
        for (String line : cpuinfo.split("\n")) {
            if (line.isBlank()) {
                if (!first.isEmpty()) {
                    break;
                }
                continue;
            }
            int colon = line.indexOf(':');
            if (colon > 0) {
                first.putIfAbsent(line.substring(0, colon).trim(), line.substring(colon + 1).trim());
            }
        }
        Set<String> flags = new TreeSet<>(List.of(first.getOrDefault("flags", "").split("\\s+")));
        flags.remove("");
        return new CpuInfo(first.getOrDefault("vendor_id", "unknown"),
                first.getOrDefault("model name", System.getProperty("os.arch")), number(first.get("cpu family")),
                number(first.get("model")), number(first.get("stepping")), first.getOrDefault("microcode", "unknown"),
                flags, processors);
    }

    private static int number(String s) {
        try {
            return s == null ? -1 : Integer.parseInt(s.trim());
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    /** Whether this is an x86-64 CPU, where oneDNN's instruction sets can be capped. */
    public boolean x86() {
        return vendor.equals("GenuineIntel") || vendor.equals("AuthenticAMD") || flags.contains("sse2");
    }

    /** One line: model name, vendor, family, model, stepping and microcode, and the CPUs this JVM may use. */
    public String describe() {
        return String.format(Locale.ROOT, "%s (%s, family %d model %d stepping %d, microcode %s), %d CPU%s", modelName,
                vendor, family, model, stepping, microcode, processors, processors == 1 ? "" : "s");
    }

    /** The flags of {@link #FLAGS_THAT_MATTER} this CPU has, then those it lacks, in one line. */
    public String describeFlags() {
        List<String> has = new ArrayList<>();
        List<String> lacks = new ArrayList<>();
        for (String f : FLAGS_THAT_MATTER) {
            (flags.contains(f) ? has : lacks).add(f);
        }
        return "has " + (has.isEmpty() ? "none of them" : String.join(" ", has))
                + (lacks.isEmpty() ? "" : "; lacks " + String.join(" ", lacks));
    }

    /** What identifies this CPU for a cached check: vendor, model, stepping, microcode, every flag and the CPU count. */
    public String fingerprint() {
        return String.join("|", vendor, modelName, Integer.toString(family), Integer.toString(model),
                Integer.toString(stepping), microcode, String.join(" ", flags), Integer.toString(processors));
    }
}
