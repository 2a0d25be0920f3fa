package org.d2l.multigpu.runtime;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.Reader;
import java.io.Writer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;

/**
 * Makes sure this CPU computes training right before PyTorch starts: once per machine (the answer is
 * kept in DJL's cache folder), a child JVM runs {@link KernelSelfTest} with oneDNN's default instruction
 * set; where it fails (on an AMD Zen 5, oneDNN 3.7.1's AVX2 and AVX-512 convolutions gave NaN at
 * random) the test runs again with oneDNN capped at lower instruction sets, and this process then runs
 * with the highest cap that passed ({@code ONEDNN_MAX_CPU_ISA}, set before oneDNN reads it) and says so
 * in one line. On a CPU with float16 arithmetic ({@code avx512_fp16}) the check starts from AVX-512 without
 * it ({@link #FLOAT16_SPEED_CAP}) instead of oneDNN's default, whose float16 kernels there are slow. Nothing is
 * checked where the user set {@code ONEDNN_MAX_CPU_ISA} (or {@code DNNL_MAX_CPU_ISA}), off x86-64 Linux, or with
 * {@code D2L_CPU_CHECK=false}.
 */
public final class CpuCheck {

    /** The switch that turns the check off ({@code D2L_CPU_CHECK=false}, or property {@code d2l.cpu.check}). */
    public static final String SWITCH = "D2L_CPU_CHECK";
    /** oneDNN's cap on its instruction sets, read once when it first runs. */
    public static final String ISA_VARIABLE = "ONEDNN_MAX_CPU_ISA";
    /** The older name of the same cap, which oneDNN still reads. */
    static final String OLD_ISA_VARIABLE = "DNNL_MAX_CPU_ISA";
    /** The caps tried, highest first, with the rank of the instruction set each allows at most. */
    static final List<String> CAPS = List.of("AVX512_CORE", "AVX2", "AVX", "SSE41");
    /**
     * Where the check starts on a CPU with {@code avx512_fp16}: oneDNN 3.7.1's kernels for that extension trained
     * LeNet in float16 about 8 times slower than those of AVX-512 without it, and float32 no faster (two Intel Xeons,
     * bench/RESULTS.md).
     */
    static final String FLOAT16_SPEED_CAP = "AVX512_CORE";
    /** Bumped whenever the self-test or where it starts changes, so that answers of an older check are not reused. */
    static final int TEST_VERSION = 2;
    /** The self-test's settings in the check (about 5 s on a 2-core machine): the reported loop, then one checked run. */
    static final List<String> TEST_ARGS = List.of("--batch", "8", "--runs", "20", "--steps", "20", "--op-runs", "1",
            "--stop-at-first");
    private static final long CHILD_TIMEOUT_SECONDS = 600;

    private static volatile Verdict verdict;
    private static volatile String state = "not run";

    private CpuCheck() {}

    /**
     * What was found, once per machine: pass (nothing capped), speed (capped at {@link #FLOAT16_SPEED_CAP}, which
     * passed), capped (wrong results where the check started; the cap that passed), or fault (no cap passed), with
     * oneDNN's version and instruction set as it reported them in the passing run.
     */
    public record Verdict(String outcome, String cap, String onednn, String isa, String details, String checkedOn,
            double seconds) {

        /** The verdict in one line. */
        public String describe() {
            String where = "oneDNN " + onednn + " on " + isa;
            switch (outcome) {
                case "pass":
                    return "passed with oneDNN's default instruction set (" + where + "), checked " + checkedOn;
                case "speed":
                    return "capped at " + ISA_VARIABLE + "=" + cap + " (" + where + "), which passed, because oneDNN's "
                            + "default float16 kernels for this CPU's avx512_fp16 are slow; checked " + checkedOn;
                case "capped":
                    return "oneDNN's kernels gave wrong results (" + details + "); capped at "
                            + ISA_VARIABLE + "=" + cap + " (" + where + "), which passed; checked " + checkedOn;
                default:
                    return "wrong results at every instruction set tried (" + details + "), checked " + checkedOn;
            }
        }

        Properties toProperties() {
            Properties p = new Properties();
            p.setProperty("outcome", outcome);
            p.setProperty("cap", cap == null ? "" : cap);
            p.setProperty("onednn", onednn);
            p.setProperty("isa", isa);
            p.setProperty("details", details);
            p.setProperty("checkedOn", checkedOn);
            p.setProperty("seconds", Double.toString(seconds));
            return p;
        }

        static Verdict of(Properties p) {
            String cap = p.getProperty("cap", "");
            return new Verdict(p.getProperty("outcome"), cap.isEmpty() ? null : cap, p.getProperty("onednn"),
                    p.getProperty("isa"), p.getProperty("details"), p.getProperty("checkedOn"),
                    Double.parseDouble(p.getProperty("seconds", "0")));
        }
    }

    /** One run of the self-test in a child JVM: whether it passed, what oneDNN reported, and the first findings. */
    record ChildResult(boolean passed, String onednn, String isa, List<String> findings, int exitCode) {

        /** The findings in a few words: the first of them, or the exit status. */
        String firstFinding() {
            return findings.isEmpty() ? "the self-test exited with status " + exitCode : findings.get(0);
        }
    }

    /** What the check did in this process, in one line (also when it did not run, and why). */
    public static String describe() {
        Verdict v = verdict;
        return v != null ? v.describe() : state;
    }

    /** The verdict this process runs under, or null when the check did not run (off, not x86-64 Linux, the user's cap). */
    public static Verdict verdict() {
        return verdict;
    }

    /**
     * Runs the check if it applies and caps oneDNN where the verdict says so; called by {@link Djl#setup()}
     * before the engine starts. Prints one line when it caps, or when no cap made the kernels right.
     */
    static synchronized void beforeEngineStarts() {
        if (!state.equals("not run")) {
            return;
        }
        CpuInfo cpu = CpuInfo.local();
        java.util.Optional<String> user = Env.get(ISA_VARIABLE, ISA_VARIABLE).or(() -> Env.get(OLD_ISA_VARIABLE, OLD_ISA_VARIABLE));
        if (!Env.isOn(SWITCH, true)) {
            state = "off (" + SWITCH + "=false)";
        } else if (user.isPresent()) {
            state = "not run: oneDNN capped by the user (" + ISA_VARIABLE + "=" + user.get() + ")";
        } else if (!cpu.x86() || !com.sun.jna.Platform.isLinux()) {
            state = "not run: only x86-64 Linux has the instruction-set caps it chooses from";
        } else {
            state = "running";
            try {
                Verdict v = cachedOrRun(cpu);
                verdict = v;
                if (v.cap() != null) {
                    Libc.setenv(ISA_VARIABLE, v.cap());
                    System.out.println("CPU check: " + v.describe() + ". (" + ISA_VARIABLE + " set for this process; "
                            + "scripts/cpu-check.sh reproduces it.)");
                } else if (v.outcome().equals("fault")) {
                    System.out.println("CPU check: WARNING, this CPU's oneDNN kernels gave " + v.describe()
                            + ": training may compute NaN. Run scripts/cpu-check.sh for the details.");
                }
            } catch (IOException | RuntimeException e) {
                state = "could not run (" + e + "); training goes on uncapped";
                System.out.println("CPU check: " + state);
            }
        }
    }

    /** The cached verdict for this CPU and these libraries, or a new one from the child runs (then cached). */
    private static Verdict cachedOrRun(CpuInfo cpu) throws IOException {
        Path dir = cacheDir();
        Files.createDirectories(dir);
        Path file = dir.resolve("cpu-check-" + key(cpu) + ".properties");
        try (FileChannel lockFile = FileChannel.open(dir.resolve("cpu-check.lock"), StandardOpenOption.CREATE,
                StandardOpenOption.WRITE); FileLock lock = lockFile.lock()) {
            if (Files.isRegularFile(file)) {
                Properties p = new Properties();
                try (Reader r = Files.newBufferedReader(file)) {
                    p.load(r);
                }
                return Verdict.of(p);
            }
            Verdict v = search(CpuCheck::runChild, startingCap(cpu));
            Path tmp = Files.createTempFile(dir, "cpu-check", ".tmp");
            try (Writer w = Files.newBufferedWriter(tmp)) {
                v.toProperties().store(w, "d2l-multigpu CPU check: " + cpu.describe());
            }
            Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            return v;
        }
    }

    /** A run of the self-test with oneDNN capped at the given instruction set (null: its default). */
    interface Runner {
        ChildResult run(String cap) throws IOException;
    }

    /** Where the check starts on {@code cpu}: {@link #FLOAT16_SPEED_CAP} with {@code avx512_fp16}, else null (oneDNN's default). */
    static String startingCap(CpuInfo cpu) {
        return cpu.flags().contains("avx512_fp16") ? FLOAT16_SPEED_CAP : null;
    }

    /**
     * Runs the self-test at {@code start} (null: oneDNN's default), then, if it failed, at each cap below both
     * {@code start} and the instruction set oneDNN reported there until one passes.
     */
    static Verdict search(Runner runner, String start) throws IOException {
        long t0 = System.nanoTime();
        ChildResult first = runner.run(start);
        String today = LocalDate.now().toString();
        if (first.passed()) {
            return new Verdict(start == null ? "pass" : "speed", start, first.onednn(), first.isa(), "", today, seconds(t0));
        }
        List<String> tried = new ArrayList<>(List.of((start == null ? "default " : start + " ") + first.isa() + ": "
                + first.firstFinding()));
        List<String> below = capsBelow(first.isa());
        if (start != null) {
            below.retainAll(CAPS.subList(CAPS.indexOf(start) + 1, CAPS.size()));
        }
        for (String cap : below) {
            ChildResult r = runner.run(cap);
            if (r.passed()) {
                return new Verdict("capped", cap, r.onednn(), r.isa(), String.join("; ", tried), today, seconds(t0));
            }
            tried.add(cap + ": " + r.firstFinding());
        }
        return new Verdict("fault", null, first.onednn(), first.isa(), String.join("; ", tried), today, seconds(t0));
    }

    /** The caps worth trying below oneDNN's instruction set {@code isa} (as oneDNN names it), highest first. */
    static List<String> capsBelow(String isa) {
        int rank = rank(isa);
        // AVX512_CORE itself, as oneDNN 3.7.1 names it (older versions: "Intel AVX-512")
        boolean plainAvx512 = isa.equals("Intel AVX-512") || isa.startsWith("Intel AVX-512 with AVX512BW");
        List<String> caps = new ArrayList<>();
        for (int i = 0; i < CAPS.size(); i++) {
            int capRank = CAPS.size() - 1 - i; // AVX512_CORE 3, AVX2 2, AVX 1, SSE41 0
            if (capRank < rank || (capRank == rank && capRank == 3 && !plainAvx512)) {
                caps.add(CAPS.get(i));
            }
        }
        return caps;
    }

    /** 3 for AVX-512 of any kind, 2 for AVX2, 1 for AVX, 0 below; oneDNN's own names ("Intel AVX2 with Intel DL Boost"). */
    static int rank(String isa) {
        String s = isa.toUpperCase(Locale.ROOT);
        return s.contains("AVX-512") || s.contains("AMX") ? 3 : s.contains("AVX2") ? 2 : s.contains("AVX") ? 1 : 0;
    }

    /** Runs {@link KernelSelfTest} in a child JVM with oneDNN capped at {@code cap} (null: its default). */
    static ChildResult runChild(String cap) throws IOException {
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx1g", "--enable-native-access=ALL-UNNAMED"));
        System.getProperties().stringPropertyNames().stream()
                .filter(k -> k.startsWith("d2l.") || k.startsWith("ai.djl."))
                .forEach(k -> cmd.add("-D" + k + "=" + System.getProperty(k)));
        cmd.addAll(List.of("-cp", ChildClassPath.of(KernelSelfTest.class), KernelSelfTest.class.getName()));
        cmd.addAll(TEST_ARGS);
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
        Map<String, String> env = pb.environment();
        env.put(SWITCH, "false");
        env.put("ONEDNN_VERBOSE", "profile_create");
        env.remove(OLD_ISA_VARIABLE);
        if (cap != null) {
            env.put(ISA_VARIABLE, cap);
        } else {
            env.remove(ISA_VARIABLE);
        }
        Process p = pb.start();
        List<String> findings = new ArrayList<>();
        String onednn = "?";
        String isa = "?";
        try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
            for (String line; (line = r.readLine()) != null; ) {
                if (line.startsWith(KernelSelfTest.PREFIX + " ") && !line.startsWith(KernelSelfTest.PREFIX + " pass")
                        && !line.startsWith(KernelSelfTest.PREFIX + " within")) {
                    findings.add(line.substring(KernelSelfTest.PREFIX.length() + 1));
                } else if (line.contains(",info,oneDNN v")) {
                    onednn = line.substring(line.indexOf("oneDNN v") + 7).split(" ")[0];
                } else if (line.contains(",info,cpu,isa:")) {
                    isa = line.substring(line.indexOf(",info,cpu,isa:") + 14).trim();
                }
            }
        }
        try {
            if (!p.waitFor(CHILD_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IOException("the self-test did not finish in " + CHILD_TIMEOUT_SECONDS + " s");
            }
        } catch (InterruptedException e) {
            p.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while the self-test ran", e);
        }
        int code = p.exitValue();
        if (code != 0 && code != 1 && findings.isEmpty()) {
            findings.add("the self-test's JVM ended with status " + code + " (a crash in native code, or it could not start)");
        }
        return new ChildResult(code == 0, onednn, isa, findings, code);
    }

    /** Where verdicts are kept: {@code d2l-multigpu} in DJL's cache folder ({@code DJL_CACHE_DIR}, else {@code ~/.djl.ai}). */
    static Path cacheDir() {
        return ai.djl.util.Utils.getCacheDir().resolve("d2l-multigpu");
    }

    /** A file name for this CPU, these native libraries, this test and the settings that change how PyTorch allocates. */
    static String key(CpuInfo cpu) {
        String natives = Djl.nativesVersion();
        String s = String.join("\n", cpu.fingerprint(), natives, ai.djl.engine.Engine.getDjlVersion(),
                Integer.toString(TEST_VERSION), Boolean.toString(NativeMemory.enabled()), System.getProperty("os.arch"));
        try {
            byte[] h = MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(h, 0, 8);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private static double seconds(long t0) {
        return (System.nanoTime() - t0) / 1e9;
    }
}
