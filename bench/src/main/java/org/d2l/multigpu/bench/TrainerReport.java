package org.d2l.multigpu.bench;

import java.io.IOException;
import java.util.Arrays;
import java.util.Locale;
import org.d2l.multigpu.bench.harness.Machine;
import org.d2l.multigpu.bench.harness.MarkdownTable;
import org.d2l.multigpu.bench.harness.Measurements;

/**
 * The table of the trainers, averaging, precision and gpu suites: examples per second, the ratio to
 * the first configuration, peak RSS and (averaging) the bytes synchronised per epoch; and the heading
 * and run names that every suite's table uses.
 */
final class TrainerReport {

    /** The examples of a full Fashion-MNIST epoch, to which the bytes synchronised are scaled. */
    static final int EPOCH = 60_000;

    private TrainerReport() {}

    /** The heading and table of {@code runs} ({@code [examples/s, peak RSS kB, (averaging) bytes/epoch]} each). */
    static String table(BenchOptions o, Measurements runs) throws IOException {
        String base = runs.configs().get(0);
        boolean averaging = base.equals("ga2");
        String baseName = averaging ? "gradient averaging" : base.equals("fp32") ? "FLOAT32"
                : o.suite.equals("isa") ? "oneDNN's default" : o.suite.equals("largebatch") ? "plain BatchNorm"
                : "DJL Trainer";
        MarkdownTable t = new MarkdownTable().text("trainer").number("examples/s (median)", 1)
                .number("ratio to " + baseName + " (median of per-round ratios)", 3).number("peak RSS MB (max)", 0);
        if (averaging) {
            t.number("MB synchronised per " + EPOCH + "-example epoch", 1);
        }
        for (String c : runs.configs()) {
            Object[] row = {label(c, o), runs.median(c, 0), runs.ratio(c, base, 0), runs.max(c, 1) / 1024,
                    runs.run(c, 0)[2] / 1e6};
            t.row(averaging ? row : Arrays.copyOf(row, 4));
        }
        return heading(o) + t;
    }

    /** The heading of a table: the settings and the machine. */
    static String heading(BenchOptions o) throws IOException {
        return String.format(Locale.ROOT, "### %s, global batch %d, %d timed steps after %d warm-up, "
                + "%d interleaved rounds, DATASET_LIMIT %d%n%n", o.model, o.batch, o.steps, o.warmup, o.rounds, o.limit)
                + Machine.line(o.gpu() ? ", " + Machine.gpuName() + ("random".equals(o.data) ? ", random images" : "") : "");
    }

    /** What a configuration's row is called. */
    static String label(String config, BenchOptions o) {
        if (o.gpu()) {
            switch (config) {
                case "djl":
                    return "DJL Trainer + EasyTrain, gpu(0)";
                case "dp1":
                    return "DataParallelTrainer, 1 replica on gpu(0)";
                case "torch":
                    return "PyTorch (Python), cuda:0";
                default:
                    return "DataParallelTrainer, " + config.substring(2) + " replicas on gpu(0)";
            }
        }
        switch (config) {
            case "djl":
                return "DJL Trainer + EasyTrain, 1 device";
            case "djl-metrics":
                return "DJL Trainer + EasyTrain, 1 device, with the training loss and accuracy (Accuracy evaluator)";
            case "dp1":
                return "DataParallelTrainer, 1 replica" + (o.suite.equals("isa") ? ", oneDNN's default instruction set" : "");
            case "dp1-AVX512_CORE":
            case "dp1-AVX2":
            case "dp1-AVX":
            case "dp1-SSE41":
                return "DataParallelTrainer, 1 replica, ONEDNN_MAX_CPU_ISA=" + BenchOptions.isaCap(config);
            case "dp2-sync":
                return "DataParallelTrainer, 2 virtual replicas, synchronised BatchNorm (SyncBatchNorm, optSyncBatchNorm)";
            case "dp2-acc4":
                return "DataParallelTrainer, 2 virtual replicas, 4 micro-batches per step (optAccumulate(4))";
            case "dp1-glibc":
                return "DataParallelTrainer, 1 replica, without NativeMemory (before: glibc defaults, no huge pages)";
            case "torch":
                return "PyTorch (Python, Debian python3-torch)";
            case "fp32":
                return "DataParallelTrainer, 1 replica, FLOAT32";
            case "fp16":
                return "DataParallelTrainer, 1 replica, FLOAT16 (float32 master, loss scaling)";
            case "ga2":
                return "gradient averaging, 2 virtual replicas, global batch " + o.batch;
            default:
                if (config.startsWith("pa")) {
                    return "parameter averaging every " + config.substring(config.indexOf('f') + 1)
                            + " round(s), 2 workers x batch " + o.batch / 2;
                }
                return "DataParallelTrainer, " + config.substring(2) + " virtual replicas"
                        + (o.suite.equals("largebatch") ? ", plain BatchNorm" : "");
        }
    }
}
