package org.d2l.multigpu.bench;

import ai.djl.nn.Block;
import ai.djl.training.dataset.ArrayDataset;
import java.io.IOException;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.d2l.multigpu.data.FashionMnistData;
import org.d2l.multigpu.devices.Devices;
import org.apache.spark.api.java.JavaSparkContext;
import org.d2l.multigpu.parallel.DataParallelTrainer;
import org.d2l.multigpu.parallel.GradientAveraging;
import org.d2l.multigpu.parallel.ParameterAveraging;
import org.d2l.multigpu.runtime.Djl;
import org.d2l.multigpu.spark.AllreduceEpoch;
import org.d2l.multigpu.spark.AllreduceTrainer;
import org.d2l.multigpu.spark.Models;
import org.d2l.multigpu.spark.OptimizerFactory;
import org.d2l.multigpu.spark.RoundResult;
import org.d2l.multigpu.spark.ShardedData;
import org.d2l.multigpu.spark.SparkTrainer;
import org.d2l.multigpu.spark.SplitData;

/**
 * Data parallelism on Spark against the in-process {@code DataParallelTrainer} on k virtual replicas,
 * LeNet on Fashion-MNIST: parameter averaging at frequencies 1 and 10 (against in-process
 * {@code ParameterAveraging}) and ring allreduce of the gradients in a barrier stage (against in-process
 * {@code GradientAveraging}, global batch k x batch): examples per second and milliseconds per step of
 * k x batch examples over whole epochs (wall clock, after a warm-up epoch); for parameter averaging the
 * overhead per round (round wall time minus the slowest partition's local steps: job, broadcast, task
 * start, parameters in and out, treeAggregate, the driver's mean); for the allreduce where a step's time
 * goes (forward and backward, allreduce, update) and the seconds per epoch of Spark's stage start and
 * the ring's join. Spark runs on {@code local-cluster[k,1,1024]} (k executor JVMs, as on a cluster;
 * {@code --master local} for {@code local[k]}). Each measurement runs in its own JVM; configurations are
 * interleaved round by round. Run it with {@code bench/run.sh spark} (options through {@code BENCH_ARGS}:
 * --workers --batch --limit --epochs --rounds --master).
 */
public final class SparkBench {

    static final List<String> CONFIGS = List.of("inproc-f1", "spark-f1", "inproc-f10", "spark-f10", "inproc-grad",
            "allreduce");

    private SparkBench() {}

    public static void main(String[] args) throws Exception {
        Map<String, String> o = new LinkedHashMap<>();
        for (int i = 0; i < args.length; i++) {
            if (!args[i].startsWith("--") || i + 1 >= args.length) {
                throw new IllegalArgumentException("usage: SparkBench [--workers K] [--batch N (per worker)] "
                        + "[--limit N] [--epochs N (timed)] [--rounds N]; got " + Arrays.toString(args));
            }
            o.put(args[i].substring(2), args[++i]);
        }
        if (o.containsKey("child")) {
            child(o);
        } else {
            parent(o);
        }
    }

    private static void parent(Map<String, String> o) throws Exception {
        int workers = Integer.parseInt(o.getOrDefault("workers", "2"));
        int batch = Integer.parseInt(o.getOrDefault("batch", "128"));
        int limit = Integer.parseInt(o.getOrDefault("limit", "12800"));
        int epochs = Integer.parseInt(o.getOrDefault("epochs", "2"));
        int rounds = Integer.parseInt(o.getOrDefault("rounds", "3"));
        String master = o.getOrDefault("master", "local-cluster");
        Map<String, List<double[]>> runs = new LinkedHashMap<>();
        CONFIGS.forEach(c -> runs.put(c, new ArrayList<>()));
        for (int r = 0; r < rounds; r++) {
            for (int j = 0; j < CONFIGS.size(); j++) {
                String c = CONFIGS.get((j + r) % CONFIGS.size());
                double[] res = runChild(c, workers, batch, limit, epochs, master);
                runs.get(c).add(res);
                System.err.printf(Locale.ROOT, "round %d %-10s %8.1f examples/s  overhead/round %6.1f ms  "
                        + "round %6.1f ms  peak RSS %5.0f MB%n", r + 1, c, res[0], res[1], res[2], res[3] / 1024);
            }
        }
        StringBuilder sb = new StringBuilder();
        String spark = LocalCluster.master(master, workers);
        sb.append(String.format(Locale.ROOT, "### Spark %s against the in-process trainer, %d workers, "
                + "LeNet, minibatch %d per worker, DATASET_LIMIT %d, %d timed epoch(s) after 1 warm-up, "
                + "%d interleaved rounds%n%n", spark, workers, batch, limit, epochs, rounds));
        sb.append(String.format(Locale.ROOT, "Machine: %s, %d cores, JDK %s, %s%n%n", Bench.cpuModel(),
                Runtime.getRuntime().availableProcessors(), System.getProperty("java.version"), LocalDate.now()));
        sb.append("| run | synchronised | examples/s (median) | ms per step of " + workers + " x " + batch
                + " examples (median) | ratio to in-process (median of per-round ratios) | overhead per averaging, "
                + "ms (median) | round, ms (median) | peak RSS MB (max) |\n|---|---|---|---|---|---|---|---|\n");
        for (String c : CONFIGS) {
            List<double[]> v = runs.get(c);
            List<double[]> base = runs.get(c.equals("allreduce") ? "inproc-grad" : "inproc-" + c.substring(c.indexOf('-') + 1));
            double[] ratios = new double[v.size()];
            for (int i = 0; i < v.size(); i++) {
                ratios[i] = v.get(i)[0] / base.get(i)[0];
            }
            boolean averaging = c.startsWith("spark");
            boolean gradients = c.equals("allreduce") || c.equals("inproc-grad");
            String name = c.equals("allreduce") ? "AllreduceTrainer, " + spark + ", barrier stage of " + workers
                    : averaging ? "SparkTrainer, " + spark + ", " + workers + " partitions"
                    : "DataParallelTrainer, " + workers + " virtual replicas";
            sb.append(String.format(Locale.ROOT, "| %s | %s | %.1f | %.1f | %.3f | %s | %s | %.0f |%n", name,
                    gradients ? "gradients every step" : "parameters every " + c.substring(c.indexOf("-f") + 2)
                            + " step(s)", Bench.median(col(v, 0)), Bench.median(col(v, 4)), Bench.median(ratios),
                    averaging ? String.format(Locale.ROOT, "%.1f", Bench.median(col(v, 1))) : "-",
                    averaging ? String.format(Locale.ROOT, "%.1f", Bench.median(col(v, 2))) : "-",
                    Arrays.stream(col(v, 3)).max().orElse(0) / 1024));
        }
        List<double[]> a = runs.get("allreduce");
        sb.append(String.format(Locale.ROOT, "%nWhere the allreduce trainer's time goes (medians): per step %.1f ms "
                + "forward and backward, %.1f ms ring allreduce (waiting for the slower peer included), %.1f ms "
                + "update; per epoch %.0f ms joining the ring (all-gather through the driver, connections) and "
                + "%.0f ms of Spark's stage (start, parameters in and out) outside the tasks' work; %.0f bytes sent "
                + "per step and rank on the sockets against 2(k-1)/k x gradient bytes = %.0f.%n",
                Bench.median(col(a, 5)), Bench.median(col(a, 6)), Bench.median(col(a, 7)), Bench.median(col(a, 9)),
                Bench.median(col(a, 8)), Bench.median(col(a, 10)), Bench.median(col(a, 11))));
        System.out.println(sb);
    }

    private static double[] col(List<double[]> v, int i) {
        return v.stream().mapToDouble(a -> a[i]).toArray();
    }

    private static double[] runChild(String config, int workers, int batch, int limit, int epochs, String master)
            throws IOException, InterruptedException {
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        List<String> cmd = new ArrayList<>(List.of(java.toString(), "--enable-native-access=ALL-UNNAMED"));
        String sparkOpts = System.getProperty("spark.module.options", "");
        if (!sparkOpts.isBlank()) {
            cmd.addAll(Arrays.asList(sparkOpts.trim().split("\\s+")));
            cmd.add("-Dspark.module.options=" + sparkOpts.trim()); // for local-cluster's executor JVMs
        }
        cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), SparkBench.class.getName(),
                "--child", config, "--workers", String.valueOf(workers), "--batch", String.valueOf(batch),
                "--limit", String.valueOf(limit), "--epochs", String.valueOf(epochs), "--master", master));
        return Bench.measure(cmd, config);
    }

    /**
     * One configuration in this JVM: prints {@code RESULT config examples/s overheadMs roundMs peakRssKb msPerStep
     * computeMs allreduceMs updateMs stageOverheadMs joinMs bytesSentPerStep ringBytesPerStep} (the last six for
     * the allreduce trainer, else 0).
     */
    private static void child(Map<String, String> o) throws Exception {
        Djl.setup();
        String config = o.get("child");
        int workers = Integer.parseInt(o.get("workers"));
        int batch = Integer.parseInt(o.get("batch"));
        int limit = Integer.parseInt(o.get("limit"));
        int epochs = Integer.parseInt(o.get("epochs"));
        boolean gradients = config.equals("allreduce") || config.equals("inproc-grad");
        int frequency = gradients ? 1 : Integer.parseInt(config.substring(config.indexOf("-f") + 2));
        FashionMnistData fashion = FashionMnistData.builder().batchSize(gradients ? workers * batch : batch)
                .shuffle(false).limit(limit).build();
        ArrayDataset train = fashion.train();
        OptimizerFactory opt = OptimizerFactory.sgd(0.05f);
        double examplesPerSecond;
        double[] extra = new double[9]; // overheadMs roundMs, then the allreduce trainer's seven figures
        if (config.startsWith("spark")) {
            try (JavaSparkContext sc = LocalCluster.start(o.get("master"), workers);
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
                extra[0] = 1000 * Bench.median(timed.stream().mapToDouble(RoundResult::overheadSeconds).toArray());
                extra[1] = 1000 * Bench.median(timed.stream().mapToDouble(RoundResult::seconds).toArray());
            }
        } else if (config.equals("allreduce")) {
            try (JavaSparkContext sc = LocalCluster.start(o.get("master"), workers);
                    AllreduceTrainer spark = AllreduceTrainer.builder(Models.LENET).optContext(sc).setPartitions(workers)
                    .optOptimizer(opt).build(); SplitData data = spark.distribute(train)) {
                spark.trainEpoch(data, null); // warm-up
                long t0 = System.nanoTime();
                for (int e = 0; e < epochs; e++) {
                    spark.trainEpoch(data, null);
                }
                examplesPerSecond = epochs * data.examples() / ((System.nanoTime() - t0) / 1e9);
                List<AllreduceEpoch> timed = spark.getEpochLog().subList(1, spark.getEpochLog().size());
                extra[2] = 1000 * Bench.median(timed.stream().mapToDouble(AllreduceEpoch::computeSecondsPerStep).toArray());
                extra[3] = 1000 * Bench.median(timed.stream().mapToDouble(AllreduceEpoch::allreduceSecondsPerStep).toArray());
                extra[4] = 1000 * Bench.median(timed.stream().mapToDouble(AllreduceEpoch::updateSecondsPerStep).toArray());
                extra[5] = 1000 * Bench.median(timed.stream().mapToDouble(AllreduceEpoch::stageOverheadSeconds).toArray());
                extra[6] = 1000 * Bench.median(timed.stream().mapToDouble(AllreduceEpoch::joinSeconds).toArray());
                extra[7] = timed.get(0).bytesSentPerStep(0);
                extra[8] = timed.get(0).ringBytesPerStep();
            }
        } else {
            Block net = Models.LENET.newBlock();
            try (DataParallelTrainer t = DataParallelTrainer.builder(net).setDevices(Devices.virtual(workers))
                    .optOptimizer(opt.newOptimizer()).optInputShape(Models.LENET.inputShape())
                    .optSync(gradients ? GradientAveraging.mean()
                            : ParameterAveraging.builder().averagingFrequency(frequency).averageUpdaters(true).build())
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
        System.out.printf(Locale.ROOT, "RESULT %s %.3f %.3f %.3f %d %.3f %.3f %.3f %.3f %.3f %.3f %.1f %.1f%n", config,
                examplesPerSecond, extra[0], extra[1], Bench.peakRssKb(), msPerStep, extra[2], extra[3], extra[4],
                extra[5], extra[6], extra[7], extra[8]);
    }
}
