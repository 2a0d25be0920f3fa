package org.d2l.multigpu.bench;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.d2l.multigpu.bench.harness.ChildProcess;
import org.d2l.multigpu.bench.harness.Cli;
import org.d2l.multigpu.bench.harness.Measurements;
import org.d2l.multigpu.bench.harness.Rounds;

/**
 * Examples per second of the data-parallel trainer with 1, 2 and 4 virtual replicas against DJL's own
 * single-device {@code Trainer} with {@code EasyTrain} (suite {@code trainers}), or of parameter
 * averaging at frequencies 1 and 3 against gradient averaging on 2 replicas with the same global
 * work per step and the bytes each synchronises per epoch (suite {@code averaging}), or of FLOAT16
 * training (float32 master weights, loss scaling) against FLOAT32 on 1 replica (suite
 * {@code precision}), or on a GPU (suite {@code gpu}, {@code --device gpu}: the trainer with 1 replica
 * and with 2 replicas on one GPU against DJL's Trainer on that GPU), or of the trainer and DJL's
 * Trainer against PyTorch in Python in step time (suite {@code peer}, {@link PeerReport}); every
 * measurement runs in its own process (so that peak RSS is its own) and the configurations are
 * interleaved round by round, so that a noisy machine slows them alike.
 */
public final class Bench {

    /** The PyTorch peer's script, run with {@code --python}, relative to the repository root. */
    static final String PEER_SCRIPT = "bench/peer/peer.py";

    private Bench() {}

    public static void main(String[] args) throws Exception {
        BenchOptions o = Cli.parseOrExit(new BenchOptions(), args);
        if (o.child != null) {
            TrainerChild.run(o);
        } else {
            parent(o.withDefaults());
        }
    }

    /** Runs every configuration once per round, each in a fresh process, and prints a table. */
    private static void parent(BenchOptions o) throws Exception {
        boolean peer = o.suite.equals("peer") || o.configs().get(0).equals("torch");
        Measurements runs = Rounds.run(o.configs(), o.rounds, c -> runChild(c, o),
                (r, c, res) -> System.err.printf(Locale.ROOT, "round %d %-9s %9.1f examples/s  peak RSS %6.0f MB%s%n",
                        r, c, res[0], res[1] / 1024, peer ? String.format(Locale.ROOT,
                        "  %8.1f ms/step  %6.0f page faults/step", res[2], res[3]) : ""));
        System.out.println(peer ? PeerReport.table(o, runs) : TrainerReport.table(o, runs));
    }

    /**
     * Runs one measurement in its own process: a JVM for the Java trainers (with {@code --threads}
     * intra-op threads when given), or {@code --python} running the PyTorch peer for {@code torch};
     * returns its figures, at least 4 (examples/s, peak RSS kB, ms/step, page faults/step).
     */
    private static double[] runChild(String config, BenchOptions o) throws Exception {
        List<String> cmd;
        List<String> child = o.childArgs(config);
        if (config.equals("torch")) {
            cmd = new ArrayList<>(List.of(o.python, PEER_SCRIPT, "--config", config, "--device", o.gpu() ? "cuda" : "cpu"));
            if (o.threads != null) {
                cmd.addAll(List.of("--threads", String.valueOf(o.threads)));
            }
            cmd.addAll(child.subList(child.indexOf("--model"), child.size()));
        } else {
            List<String> jvm = new ArrayList<>();
            if (o.threads != null) {
                jvm.add("-Dai.djl.pytorch.num_threads=" + o.threads);
            }
            if (config.endsWith("-glibc")) {
                jvm.add("-Dd2l.malloc.tuning=false");
            }
            cmd = ChildProcess.java(jvm, Bench.class);
            cmd.addAll(child);
        }
        Map<String, String> env = new HashMap<>();
        if (o.suite.equals("isa")) {
            // every run at the instruction set it names, with the CPU check's own cap out of the way
            env.put("D2L_CPU_CHECK", "false");
            String cap = BenchOptions.isaCap(config);
            env.put("ONEDNN_MAX_CPU_ISA", cap == null ? "" : cap);
        }
        double[] f = ChildProcess.measure(cmd, config, env);
        return Arrays.copyOf(f, Math.max(f.length, 4));
    }
}
