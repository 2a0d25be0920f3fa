package org.d2l.multigpu.bench.harness;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.Locale;

/** What a benchmark reports of the machine and of its own process: CPU, GPU, peak RSS, page faults. */
public final class Machine {

    private Machine() {}

    /**
     * The line under a table's heading: {@code Machine: CPU, N cores, JDK v, date} and {@code extra}
     * (e.g. the GPU), followed by a blank line.
     */
    public static String line(String extra) throws IOException {
        return String.format(Locale.ROOT, "Machine: %s, %d cores, JDK %s, %s%s%n%n", cpuModel(),
                Runtime.getRuntime().availableProcessors(), System.getProperty("java.version"), LocalDate.now(), extra);
    }

    /** The CPU's model name from /proc/cpuinfo, or the architecture where there is none. */
    public static String cpuModel() throws IOException {
        Path p = Path.of("/proc/cpuinfo");
        if (Files.exists(p)) {
            for (String line : Files.readAllLines(p)) {
                if (line.startsWith("model name")) {
                    return line.substring(line.indexOf(':') + 1).trim();
                }
            }
        }
        return System.getProperty("os.arch");
    }

    /** The first GPU's name, from nvidia-smi (or "GPU" when it cannot be asked). */
    public static String gpuName() {
        try {
            Process p = new ProcessBuilder("nvidia-smi", "--query-gpu=name", "--format=csv,noheader", "-i", "0").start();
            String name = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
            return p.waitFor() == 0 && !name.isEmpty() ? name : "GPU";
        } catch (IOException | InterruptedException e) {
            return "GPU";
        }
    }

    /** Minor page faults of this process so far (field 10 of /proc/self/stat), or 0 where there is none. */
    public static long minorFaults() throws IOException {
        Path p = Path.of("/proc/self/stat");
        if (!Files.exists(p)) {
            return 0;
        }
        String s = Files.readString(p);
        return Long.parseLong(s.substring(s.lastIndexOf(')') + 2).split(" ")[7]);
    }

    /** This process's peak resident set in kB (VmHWM of /proc/self/status), or -1 where there is none. */
    public static long peakRssKb() throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
            if (line.startsWith("VmHWM:")) {
                return Long.parseLong(line.replaceAll("[^0-9]", ""));
            }
        }
        return -1;
    }
}
