package org.d2l.multigpu.bench;

import ai.djl.nn.Block;
import ai.djl.training.dataset.ArrayDataset;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import org.apache.spark.api.java.JavaSparkContext;
import org.d2l.multigpu.bench.harness.ChildProcess;
import org.d2l.multigpu.bench.harness.Cli;
import org.d2l.multigpu.bench.harness.Machine;
import org.d2l.multigpu.bench.harness.MarkdownTable;
import org.d2l.multigpu.bench.harness.Measurements;
import org.d2l.multigpu.bench.harness.Rounds;
import org.d2l.multigpu.compression.Compressor;
import org.d2l.multigpu.data.FashionMnistData;
import org.d2l.multigpu.devices.Devices;
import org.d2l.multigpu.parallel.DataParallelTrainer;
import org.d2l.multigpu.parallel.GradientAveraging;
import org.d2l.multigpu.parallel.ParameterAveraging;
import org.d2l.multigpu.runtime.Djl;
import org.d2l.multigpu.spark.AllreduceEpoch;
import org.d2l.multigpu.spark.Models;
import org.d2l.multigpu.spark.OptimizerFactory;
import org.d2l.multigpu.spark.RoundResult;
import org.d2l.multigpu.spark.ShardedData;
import org.d2l.multigpu.spark.SplitData;
import org.d2l.multigpu.spark.driver.AllreduceTrainer;
import org.d2l.multigpu.spark.driver.SparkTrainer;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * Data parallelism on Spark against the in-process {@code DataParallelTrainer} on k virtual replicas,
 * LeNet on Fashion-MNIST: parameter averaging at frequencies 1 and 10 (against in-process
 * {@code ParameterAveraging}) and ring allreduce of the gradients in a barrier stage (against in-process
 * {@code GradientAveraging}, global batch k x batch): examples per second and milliseconds per step of
 * k x batch examples over whole epochs (wall clock, after a warm-up epoch); for parameter averaging the
 * overhead per round (round wall time minus the slowest partition's local steps: job, broadcast, task
 * start, parameters in and out, treeAggregate, the driver's mean); for the allreduce where a step's time
 * goes (forward and backward, allreduce, update), the driver's gap between epochs and the ring's one
 * join per fit (all epochs of a fit run in one barrier stage), also with the gradients compressed (1-bit
 * and PowerSGD of rank 2, error feedback on), whose bytes on the sockets it reports. Spark runs on {@code local-cluster[k,1,1024]} (k executor JVMs, as on a cluster;
 * {@code --master local} for {@code local[k]}). Each measurement runs in its own JVM; configurations are
 * interleaved round by round. Run it with {@code bench/run.sh spark} (options through {@code BENCH_ARGS}:
 * --workers --batch --limit --epochs --rounds --master --configs).
 */
public final class SparkBench {

    static final List<String> CONFIGS = List.of("inproc-f1", "spark-f1", "inproc-f10", "spark-f10", "inproc-grad",
            "allreduce", "allreduce-onebit", "allreduce-powersgd", "inproc-grad-full", "allreduce-full");

    /** Fashion-MNIST's training examples: the "-full" configurations time one whole epoch of them. */
    static final int FULL_EPOCH = 60_000;

    private SparkBench() {}

    /** The options of {@link SparkBench}; a child run also gets {@code --child config}. */
    @Command(name = "SparkBench", description = "Data parallelism on Spark (parameter averaging, ring allreduce) "
            + "against the in-process trainer, each configuration in its own JVM, interleaved round by round.")
    static final class Options implements Cli.Checked {
        @Option(names = "--workers", paramLabel = "K", description = "Spark partitions and virtual replicas (default 2)")
        int workers = 2;

        @Option(names = "--batch", paramLabel = "N", description = "minibatch per worker (default 128)")
        int batch = 128;

        @Option(names = "--limit", paramLabel = "N", description = "DATASET_LIMIT, training examples (default 12800)")
        int limit = 12800;

        @Option(names = "--epochs", paramLabel = "N", description = "timed epochs after one warm-up epoch (default 2)")
        int epochs = 2;

        @Option(names = "--rounds", paramLabel = "N", description = "interleaved rounds (default 3)")
        int rounds = 3;

        @Option(names = "--master", paramLabel = "M", description = "local-cluster (k executor JVMs, "
                + "local-cluster[k,1,1024]) or local (local[k]) (default local-cluster)")
        String master = "local-cluster";

        @Option(names = "--configs", paramLabel = "C,C", split = ",", description = "the configurations to run, "
                + "each with its in-process baseline (default all: inproc-f1, spark-f1, inproc-f10, spark-f10, inproc-grad, "
                + "allreduce, allreduce-onebit, allreduce-powersgd, inproc-grad-full, allreduce-full)")
        List<String> configs = CONFIGS;

        @Option(names = "--child", hidden = true, description = "measures this configuration in this JVM")
        String child;

        @Override
        public void check() {
            Cli.atLeast("--workers", workers, 1);
            Cli.atLeast("--batch", batch, 1);
            Cli.atLeast("--limit", limit, 1);
            Cli.atLeast("--epochs", epochs, 1);
            Cli.atLeast("--rounds", rounds, 1);
            Cli.oneOf("--master", master, List.of("local-cluster", "local"));
            if (child != null) {
                Cli.oneOf("--child", child, CONFIGS);
            }
            for (String c : configs) {
                Cli.oneOf("--configs", c, CONFIGS);
                if (!configs.contains(baseline(c))) {
                    throw new IllegalArgumentException("--configs " + c + " is measured against " + baseline(c)
                            + ": add it to --configs.");
                }
            }
        }
    }

    /** The in-process configuration that {@code config} is compared with (itself for an in-process one). */
    static String baseline(String config) {
        boolean full = config.endsWith("-full");
        String plain = full ? config.substring(0, config.length() - "-full".length()) : config;
        String base = plain.startsWith("allreduce") ? "inproc-grad" : "inproc-" + plain.substring(plain.indexOf('-') + 1);
        return full ? base + "-full" : base;
    }

    public static void main(String[] args) throws Exception {
        Options o = Cli.parseOrExit(new Options(), args);
        if (o.child != null) {
            child(o);
        } else {
            parent(o);
        }
    }

    private static void parent(Options o) throws Exception {
        int workers = o.workers;
        int batch = o.batch;
        Measurements runs = Rounds.run(o.configs, o.rounds, c -> runChild(c, o),
                (r, c, res) -> System.err.printf(Locale.ROOT, "round %d %-10s %8.1f examples/s  overhead/round %6.1f ms  "
                        + "round %6.1f ms  peak RSS %5.0f MB%n", r, c, res[0], res[1], res[2], res[3] / 1024));
        StringBuilder sb = new StringBuilder();
        String spark = LocalCluster.master(o.master, workers);
        sb.append(String.format(Locale.ROOT, "### Spark %s against the in-process trainer, %d workers, "
                + "LeNet, minibatch %d per worker, DATASET_LIMIT %d, %d timed epoch(s) after 1 warm-up, "
                + "%d interleaved rounds; the rows of one full epoch time 1 epoch of all %d examples after 1 warm-up%n%n",
                spark, workers, batch, o.limit, o.epochs, o.rounds, FULL_EPOCH));
        sb.append(Machine.line(""));
        MarkdownTable t = new MarkdownTable().text("run").text("synchronised").number("examples/s (median)", 1)
                .number("ms per step of " + workers + " x " + batch + " examples (median)", 1)
                .number("ratio to in-process (median of per-round ratios)", 3)
                .number("overhead per averaging, ms (median)", 1).number("round, ms (median)", 1)
                .number("peak RSS MB (max)", 0);
        for (String c : o.configs) {
            boolean full = c.endsWith("-full");
            String plain = full ? c.substring(0, c.length() - "-full".length()) : c;
            boolean averaging = plain.startsWith("spark");
            boolean gradients = plain.startsWith("allreduce") || plain.equals("inproc-grad");
            Compressor compressor = compressor(plain);
            String name = (plain.startsWith("allreduce") ? "AllreduceTrainer, " + spark + ", barrier stage of " + workers
                    : averaging ? "SparkTrainer, " + spark + ", " + workers + " partitions"
                    : "DataParallelTrainer, " + workers + " virtual replicas")
                    + (full ? ", one full epoch (" + FULL_EPOCH + " examples)" : "");
            t.row(name, gradients ? "gradients every step" + (compressor == null ? "" : ", " + compressor.describe())
                            : "parameters every " + plain.substring(plain.indexOf("-f") + 2) + " step(s)",
                    runs.median(c, 0), runs.median(c, 4), runs.ratio(c, baseline(c), 0),
                    averaging ? runs.median(c, 1) : null, averaging ? runs.median(c, 2) : null, runs.max(c, 3) / 1024);
        }
        sb.append(t);
        for (String c : o.configs) {
            if (!c.startsWith("allreduce")) {
                continue;
            }
            Compressor compressor = compressor(c.replace("-full", ""));
            sb.append(String.format(Locale.ROOT, "%nWhere the allreduce trainer's time goes%s (medians): per step %.1f ms "
                    + "forward and backward, %.1f ms ring allreduce (waiting for the slower peer included), %.1f ms "
                    + "update; %.0f ms once per fit joining the ring (all-gather through the driver, connections) and "
                    + "%.0f ms per epoch outside the tasks' work (the ranks' reports to the driver); %.0f bytes sent "
                    + "per step and rank on the sockets against 2(k-1)/k x gradient bytes = %.0f.%n",
                    c.endsWith("-full") ? " in the full epoch" : compressor != null ? " with " + compressor.describe() : "",
                    runs.median(c, 5), runs.median(c, 6),
                    runs.median(c, 7), runs.median(c, 9), runs.median(c, 8), runs.median(c, 10), runs.median(c, 11)));
        }
        System.out.println(sb);
    }

    private static double[] runChild(String config, Options o) throws IOException, InterruptedException {
        List<String> jvm = new ArrayList<>();
        String sparkOpts = System.getProperty("spark.module.options", "");
        if (!sparkOpts.isBlank()) {
            jvm.addAll(Arrays.asList(sparkOpts.trim().split("\\s+")));
            jvm.add("-Dspark.module.options=" + sparkOpts.trim()); // for local-cluster's executor JVMs
        }
        List<String> cmd = ChildProcess.java(jvm, SparkBench.class);
        cmd.addAll(List.of("--child", config, "--workers", String.valueOf(o.workers), "--batch", String.valueOf(o.batch),
                "--limit", String.valueOf(o.limit), "--epochs", String.valueOf(o.epochs), "--master", o.master));
        return ChildProcess.measure(cmd, config);
    }

    /** The compressor of an allreduce configuration (-onebit, -powersgd), or null. */
    private static Compressor compressor(String config) {
        return config.endsWith("-onebit") ? Compressor.oneBit(true)
                : config.endsWith("-powersgd") ? Compressor.powerSgd(2, 10, true) : null;
    }

    /**
     * One configuration in this JVM: prints {@code RESULT config examples/s overheadMs roundMs peakRssKb msPerStep
     * computeMs allreduceMs updateMs stageOverheadMs joinMs bytesSentPerStep ringBytesPerStep} (the last seven for
     * the allreduce trainer, else 0; its epochs run in one stage, so stageOverheadMs is the driver's gap between
     * epochs and joinMs the ring's one join per fit).
     */
    private static void child(Options o) throws Exception {
        Djl.setup();
        String config = o.child;
        int workers = o.workers;
        int batch = o.batch;
        boolean full = config.endsWith("-full");
        config = full ? config.substring(0, config.length() - "-full".length()) : config;
        int limit = full ? FULL_EPOCH : o.limit;
        int epochs = full ? 1 : o.epochs;
        boolean gradients = config.startsWith("allreduce") || config.equals("inproc-grad");
        int frequency = gradients ? 1 : Integer.parseInt(config.substring(config.indexOf("-f") + 2));
        FashionMnistData fashion = FashionMnistData.builder().setSampling(gradients ? workers * batch : batch, false)
                .optLimit(limit).build();
        ArrayDataset train = fashion.train();
        OptimizerFactory opt = OptimizerFactory.sgd(0.05f);
        double examplesPerSecond;
        double[] extra = new double[9]; // overheadMs roundMs, then the allreduce trainer's seven figures
        if (config.startsWith("spark")) {
            try (JavaSparkContext sc = LocalCluster.start(o.master, workers);
                    SparkTrainer spark = SparkTrainer.builder(Models.LENET).optContext(sc)
                    .setPartitions(workers).optAveragingFrequency(frequency).optOptimizer(opt).build();
                    ShardedData data = spark.distribute(train)) {
                spark.trainEpoch(data, null); // warm-up: JIT, engine, executors' replicas
                int warmRounds = spark.getRounds().size();
                long t0 = System.nanoTime();
                for (int e = 0; e < epochs; e++) {
                    spark.trainEpoch(data, null);
                }
                examplesPerSecond = epochs * data.examples() / ((System.nanoTime() - t0) / 1e9);
                List<RoundResult> timed = spark.getRounds().subList(warmRounds, spark.getRounds().size());
                extra[0] = 1000 * Measurements.median(timed.stream().mapToDouble(RoundResult::overheadSeconds).toArray());
                extra[1] = 1000 * Measurements.median(timed.stream().mapToDouble(RoundResult::seconds).toArray());
            }
        } else if (config.startsWith("allreduce")) {
            try (JavaSparkContext sc = LocalCluster.start(o.master, workers);
                    AllreduceTrainer spark = AllreduceTrainer.builder(Models.LENET).optContext(sc).setPartitions(workers)
                    .optOptimizer(opt).optCompression(compressor(config)).build(); SplitData data = spark.distribute(train)) {
                spark.fit(data, null, 1 + epochs); // one stage: a warm-up epoch (JIT, engine, join), then the timed ones
                List<AllreduceEpoch> timed = spark.getEpochLog().subList(1, spark.getEpochLog().size());
                examplesPerSecond = epochs * data.examples() / timed.stream().mapToDouble(AllreduceEpoch::stageSeconds).sum();
                extra[2] = 1000 * Measurements.median(timed.stream().mapToDouble(AllreduceEpoch::computeSecondsPerStep).toArray());
                extra[3] = 1000 * Measurements.median(timed.stream().mapToDouble(AllreduceEpoch::allreduceSecondsPerStep).toArray());
                extra[4] = 1000 * Measurements.median(timed.stream().mapToDouble(AllreduceEpoch::updateSecondsPerStep).toArray());
                extra[5] = 1000 * Measurements.median(timed.stream().mapToDouble(AllreduceEpoch::stageOverheadSeconds).toArray());
                extra[6] = 1000 * spark.getEpochLog().get(0).joinSeconds(); // once per fit
                extra[7] = timed.get(0).bytesSentPerStep(0);
                extra[8] = timed.get(0).ringBytesPerStep();
            }
        } else {
            Block net = Models.LENET.newBlock();
            try (DataParallelTrainer t = DataParallelTrainer.builder(net).setDevices(Devices.virtual(workers))
                    .optOptimizer(opt.newOptimizer()).optInputShape(Models.LENET.inputShape())
                    .optSync(gradients ? GradientAveraging.mean()
                            : ParameterAveraging.builder().optAveragingFrequency(frequency).optAverageUpdaters(true).build())
                    .optProgress(false).build()) {
                t.trainEpoch(train, null); // warm-up
                long t0 = System.nanoTime();
                for (int e = 0; e < epochs; e++) {
                    t.trainEpoch(train, null);
                }
                examplesPerSecond = epochs * train.size() / ((System.nanoTime() - t0) / 1e9);
            }
        }
        double msPerStep = 1000.0 * workers * batch / examplesPerSecond;
        System.out.printf(Locale.ROOT, "RESULT %s %.3f %.3f %.3f %d %.3f %.3f %.3f %.3f %.3f %.3f %.1f %.1f%n", o.child,
                examplesPerSecond, extra[0], extra[1], Machine.peakRssKb(), msPerStep, extra[2], extra[3], extra[4],
                extra[5], extra[6], extra[7], extra[8]);
    }
}
