package org.d2l.multigpu.bench;

import ai.djl.Device;
import ai.djl.Model;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDArrays;
import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import ai.djl.nn.Block;
import ai.djl.nn.Parameter;
import ai.djl.training.DefaultTrainingConfig;
import ai.djl.training.EasyTrain;
import ai.djl.training.Trainer;
import ai.djl.training.dataset.ArrayDataset;
import ai.djl.training.dataset.Batch;
import ai.djl.training.loss.Loss;
import ai.djl.training.optimizer.Optimizer;
import ai.djl.training.tracker.Tracker;
import ai.djl.translate.Batchifier;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.d2l.multigpu.data.FashionMnistData;
import org.d2l.multigpu.devices.Devices;
import org.d2l.multigpu.models.Init;
import org.d2l.multigpu.models.LeNet;
import org.d2l.multigpu.models.ResNet;
import org.d2l.multigpu.parallel.DataParallelTrainer;
import org.d2l.multigpu.parallel.EpochMetrics;
import org.d2l.multigpu.parallel.GradientAveraging;
import org.d2l.multigpu.parallel.ParameterAveraging;
import org.d2l.multigpu.runtime.Djl;

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

    static final List<String> CONFIGS = List.of("djl", "dp1", "dp2", "dp4");
    static final List<String> AVERAGING = List.of("ga2", "pa2f1", "pa2f3");
    static final List<String> PRECISION = List.of("fp32", "fp16");
    static final List<String> GPU = List.of("djl", "dp1", "dp2");
    /**
     * The peer suite: PyTorch in Python, the trainer with 1 replica, DJL's Trainer, and the trainer
     * without {@code NativeMemory}'s settings (glibc's defaults, what every run did before).
     */
    static final List<String> PEER = List.of("torch", "dp1", "djl", "dp1-glibc");
    /** The PyTorch peer's script, run with {@code --python}, relative to the repository root. */
    static final String PEER_SCRIPT = "bench/peer/peer.py";
    /** The examples of a full Fashion-MNIST epoch, to which the bytes synchronised are scaled. */
    static final int EPOCH = 60_000;

    /** Options every child of this run gets: device and data. */
    private static List<String> extra = List.of();

    private Bench() {}

    public static void main(String[] args) throws Exception {
        Map<String, String> o = options(args);
        if (o.containsKey("child")) {
            child(o);
        } else {
            parent(o);
        }
    }

    /** The first stage's width of a model named resnet18 (the book's 64) or resnet18-wN. */
    static int resnetWidth(String model) {
        return model.contains("-w") ? Integer.parseInt(model.substring(model.indexOf("-w") + 2)) : ResNet.BOOK_WIDTH;
    }

    private static Map<String, String> options(String[] args) {
        Map<String, String> o = new LinkedHashMap<>();
        for (int i = 0; i < args.length; i++) {
            if (!args[i].startsWith("--") || i + 1 >= args.length) {
                throw new IllegalArgumentException("usage: Bench [--suite trainers|averaging|precision|gpu|peer] "
                        + "[--model lenet|lenet-sigmoid|dl4j|resnet18|resnet18-wN] [--device cpu|gpu] [--data fashion|random] "
                        + "[--batch N] [--steps N] [--warmup N] [--rounds N] [--limit N] [--threads N] [--python PATH]; got "
                        + Arrays.toString(args));
            }
            o.put(args[i].substring(2), args[++i]);
        }
        return o;
    }

    /** Runs every configuration once per round, each in a fresh JVM, and prints a table. */
    private static void parent(Map<String, String> o) throws Exception {
        String model = o.getOrDefault("model", "lenet");
        boolean resnet = model.startsWith("resnet18");
        int batch = Integer.parseInt(o.getOrDefault("batch", resnet ? "128" : "256"));
        int steps = Integer.parseInt(o.getOrDefault("steps", resnet ? "4" : "30"));
        int warmup = Integer.parseInt(o.getOrDefault("warmup", resnet ? "1" : "5"));
        int rounds = Integer.parseInt(o.getOrDefault("rounds", "3"));
        int limit = Integer.parseInt(o.getOrDefault("limit", String.valueOf(batch * 4)));
        String suite = o.getOrDefault("suite", "trainers");
        String python = o.get("python");
        String threads = o.get("threads");
        List<String> configs = suite.equals("averaging") ? AVERAGING : suite.equals("precision") ? PRECISION
                : suite.equals("gpu") ? GPU : suite.equals("peer") ? PEER.subList(python == null ? 1 : 0, PEER.size())
                : CONFIGS;
        if (suite.equals("peer") && threads == null) {
            threads = "2";
        }
        // child options passed through: where to run and what data to feed
        o.putIfAbsent("device", suite.equals("gpu") ? "gpu" : "cpu");
        o.putIfAbsent("data", "fashion");
        extra = List.of("--device", o.get("device"), "--data", o.get("data"));
        Map<String, List<double[]>> runs = new LinkedHashMap<>();
        configs.forEach(c -> runs.put(c, new ArrayList<>()));
        for (int r = 0; r < rounds; r++) {
            for (int j = 0; j < configs.size(); j++) {
                String c = configs.get((j + r) % configs.size()); // rotate the order every round
                double[] res = runChild(c, model, batch, steps, warmup, limit, threads, python);
                runs.get(c).add(res);
                System.err.printf(Locale.ROOT, "round %d %-9s %9.1f examples/s  peak RSS %6.0f MB%s%n",
                        r + 1, c, res[0], res[1] / 1024, suite.equals("peer") ? String.format(Locale.ROOT,
                        "  %8.1f ms/step  %6.0f page faults/step", res[2], res[3]) : "");
            }
        }
        System.out.println(suite.equals("peer") ? PeerReport.table(model, batch, steps, warmup, rounds, limit, threads, runs)
                : report(model, batch, steps, warmup, rounds, limit, runs));
    }

    static String report(String model, int batch, int steps, int warmup, int rounds, int limit,
            Map<String, List<double[]>> runs) throws IOException {
        StringBuilder sb = new StringBuilder(heading(model, batch, steps, warmup, rounds, limit));
        String base = runs.keySet().iterator().next();
        boolean averaging = base.equals("ga2");
        String baseName = averaging ? "gradient averaging" : base.equals("fp32") ? "FLOAT32" : "DJL Trainer";
        sb.append("| trainer | examples/s (median) | ratio to " + baseName
                + " (median of per-round ratios) | peak RSS MB (max) |" + (averaging ? " MB synchronised per "
                + EPOCH + "-example epoch |\n|---|---|---|---|---|\n" : "\n|---|---|---|---|\n"));
        List<double[]> djl = runs.get(base);
        for (Map.Entry<String, List<double[]>> e : runs.entrySet()) {
            List<double[]> v = e.getValue();
            double[] speeds = v.stream().mapToDouble(a -> a[0]).toArray();
            double[] ratios = new double[v.size()];
            for (int i = 0; i < v.size(); i++) {
                ratios[i] = v.get(i)[0] / djl.get(i)[0];
            }
            double rss = v.stream().mapToDouble(a -> a[1]).max().orElse(0) / 1024;
            sb.append(String.format(Locale.ROOT, "| %s | %.1f | %.3f | %.0f |", label(e.getKey(), batch),
                    median(speeds), median(ratios), rss));
            sb.append(averaging ? String.format(Locale.ROOT, " %.1f |%n", v.get(0)[2] / 1e6) : "\n");
        }
        return sb.toString();
    }

    /** The heading of a table: the settings and the machine. */
    static String heading(String model, int batch, int steps, int warmup, int rounds, int limit) throws IOException {
        return String.format(Locale.ROOT, "### %s, global batch %d, %d timed steps after %d warm-up, "
                + "%d interleaved rounds, DATASET_LIMIT %d%n%n", model, batch, steps, warmup, rounds, limit)
                + String.format(Locale.ROOT, "Machine: %s, %d cores, JDK %s, %s%s%n%n", cpuModel(),
                Runtime.getRuntime().availableProcessors(), System.getProperty("java.version"), LocalDate.now(),
                extra.contains("gpu") ? ", " + gpuName() + (extra.contains("random") ? ", random images" : "") : "");
    }

    static String label(String config, int batch) {
        if (extra.contains("gpu")) {
            switch (config) {
                case "djl":
                    return "DJL Trainer + EasyTrain, gpu(0)";
                case "dp1":
                    return "DataParallelTrainer, 1 replica on gpu(0)";
                default:
                    return "DataParallelTrainer, " + config.substring(2) + " replicas on gpu(0)";
            }
        }
        switch (config) {
            case "djl":
                return "DJL Trainer + EasyTrain, 1 device";
            case "dp1":
                return "DataParallelTrainer, 1 replica";
            case "dp1-glibc":
                return "DataParallelTrainer, 1 replica, without NativeMemory (before: glibc defaults, no huge pages)";
            case "torch":
                return "PyTorch (Python, Debian python3-torch)";
            case "fp32":
                return "DataParallelTrainer, 1 replica, FLOAT32";
            case "fp16":
                return "DataParallelTrainer, 1 replica, FLOAT16 (float32 master, loss scaling)";
            case "ga2":
                return "gradient averaging, 2 virtual replicas, global batch " + batch;
            default:
                if (config.startsWith("pa")) {
                    return "parameter averaging every " + config.substring(config.indexOf('f') + 1)
                            + " round(s), 2 workers x batch " + batch / 2;
                }
                return "DataParallelTrainer, " + config.substring(2) + " virtual replicas";
        }
    }

    static double median(double[] a) {
        double[] s = a.clone();
        Arrays.sort(s);
        int n = s.length;
        return n % 2 == 1 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
    }

    static String cpuModel() throws IOException {
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

    /**
     * Runs one measurement in its own process: a JVM for the Java trainers (with {@code threads}
     * intra-op threads when given), or {@code python} running the PyTorch peer for {@code torch}.
     */
    private static double[] runChild(String config, String model, int batch, int steps, int warmup, int limit,
            String threads, String python) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>();
        List<String> settings = List.of("--model", model, "--batch", String.valueOf(batch),
                "--steps", String.valueOf(steps), "--warmup", String.valueOf(warmup), "--limit", String.valueOf(limit));
        if (config.equals("torch")) {
            cmd.addAll(List.of(python, PEER_SCRIPT, "--config", config, "--threads", threads));
        } else {
            cmd.addAll(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "--enable-native-access=ALL-UNNAMED"));
            if (threads != null) {
                cmd.add("-Dai.djl.pytorch.num_threads=" + threads);
            }
            if (config.endsWith("-glibc")) {
                cmd.add("-Dd2l.malloc.tuning=false");
            }
            cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), Bench.class.getName(), "--child", config));
            cmd.addAll(extra);
        }
        cmd.addAll(settings);
        double[] f = measure(cmd, config);
        return Arrays.copyOf(f, Math.max(f.length, 4));
    }

    /**
     * Runs the child JVM {@code cmd} and returns the numbers of its {@code RESULT config n1 n2 ...}
     * line; fails with the child's output when it exits non-zero or prints no result.
     */
    static double[] measure(List<String> cmd, String config) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String result = null;
        StringBuilder log = new StringBuilder();
        try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
            for (String line; (line = r.readLine()) != null; ) {
                if (line.startsWith("RESULT ")) {
                    result = line;
                } else {
                    log.append(line).append('\n');
                }
            }
        }
        int code = p.waitFor();
        if (code != 0 || result == null) {
            throw new IllegalStateException("benchmark run " + config + " failed (exit " + code + "):\n" + log);
        }
        String[] f = result.split(" ");
        double[] v = new double[f.length - 2];
        for (int i = 2; i < f.length; i++) {
            v[i - 2] = Double.parseDouble(f[i]);
        }
        return v;
    }

    /**
     * Measures one configuration in this JVM and prints {@code RESULT config examples/s peakRssKb
     * medianMsPerStep minorPageFaultsPerStep}.
     */
    private static void child(Map<String, String> o) throws Exception {
        Djl.setup();
        String config = o.get("child").replace("-glibc", "");
        String model = o.get("model");
        int batch = Integer.parseInt(o.get("batch"));
        int steps = Integer.parseInt(o.get("steps"));
        int warmup = Integer.parseInt(o.get("warmup"));
        int limit = Integer.parseInt(o.get("limit"));
        boolean gpu = "gpu".equals(o.get("device"));
        if (gpu && Devices.gpuCount() == 0) {
            throw new IllegalStateException("--device gpu, but DJL sees no GPU: build with -Dgpu (MVN_ARGS=-Dgpu) "
                    + "so that the CPU natives are left out, on a machine with an NVIDIA GPU.");
        }
        Device home = gpu ? Device.gpu(0) : Device.cpu();
        try (NDManager manager = NDManager.newBaseManager(Device.cpu())) {
            manager.getEngine().setRandomSeed(42);
            List<NDList> batches = "random".equals(o.get("data")) ? randomBatches(manager, batch, limit)
                    : loadBatches(manager, batch, limit);
            Block net = model.startsWith("resnet18") ? ResNet.resnet18(10, 1, resnetWidth(model))
                    : model.equals("dl4j") ? Init.weights(LeNet.dl4jExample(), Init.xavier())
                    : model.equals("lenet-sigmoid") ? ClassicLeNet.block() : LeNet.block();
            Shape input = new Shape(1, 1, 28, 28);
            float lr = 0.05f;
            StepRunner run;
            AutoCloseable resource;
            if (config.equals("djl")) {
                Model m = Model.newInstance("bench", home);
                m.setBlock(net);
                Trainer trainer = m.newTrainer(new DefaultTrainingConfig(Loss.softmaxCrossEntropyLoss())
                        .optOptimizer(Optimizer.sgd().setLearningRateTracker(Tracker.fixed(lr)).build())
                        .optDevices(new Device[] {home})
                        .optInitializer(Init.pytorchLike(), Parameter.Type.WEIGHT));
                trainer.initialize(input);
                run = b -> {
                    try (NDManager sub = manager.newSubManager()) {
                        // EasyTrain frees the batch it is given: hand it copies (0.8 MB, well under 1 ms)
                        NDArray x = b.get(0).duplicate();
                        NDArray y = b.get(1).duplicate();
                        sub.attachAll(x, y);
                        Batch bt = new Batch(sub, new NDList(x), new NDList(y),
                                (int) b.get(0).getShape().get(0), Batchifier.STACK, Batchifier.STACK, 0, 0);
                        EasyTrain.trainBatch(trainer, bt);
                        trainer.step();
                    }
                };
                resource = () -> {
                    trainer.close();
                    m.close();
                };
            } else if (config.startsWith("fp")) {
                DataParallelTrainer t = DataParallelTrainer.builder(net).setDevices(Devices.virtual(1))
                        .optInputShape(input).optLearningRate(lr).optProgress(false)
                        .optDataType(config.equals("fp16") ? DataType.FLOAT16 : DataType.FLOAT32).build();
                run = b -> t.trainStep(b.get(0), b.get(1));
                resource = t;
            } else if (!config.startsWith("dp")) {
                averagingChild(config, net, input, lr, batches, steps, warmup, batch);
                return;
            } else {
                int k = Integer.parseInt(config.substring(2));
                DataParallelTrainer t = DataParallelTrainer.builder(net).setDevices(Collections.nCopies(k, home))
                        .optInputShape(input).optLearningRate(lr).optProgress(false).build();
                run = b -> t.trainStep(b.get(0), b.get(1));
                resource = t;
            }
            for (int i = 0; i < warmup; i++) {
                run.step(batches.get(i % batches.size()));
            }
            double[] ms = new double[steps];
            long faults = minorFaults();
            for (int i = 0; i < steps; i++) {
                long t0 = System.nanoTime();
                run.step(batches.get((warmup + i) % batches.size()));
                ms[i] = (System.nanoTime() - t0) / 1e6;
            }
            net.getParameters().valueAt(0).getArray().sum().getFloat(); // waits for the GPU's queued work
            double perStep = (minorFaults() - faults) / (double) steps;
            double seconds = Arrays.stream(ms).sum() / 1e3;
            resource.close();
            System.out.printf(Locale.ROOT, "RESULT %s %.3f %d %.3f %.0f%n", config, steps * (double) batch / seconds,
                    peakRssKb(), median(ms), perStep);
        }
    }

    /**
     * Gradient averaging on 2 replicas with global batch {@code batch}, or parameter averaging with 2
     * workers of batch {@code batch / 2} each (the same examples per step): warm-up steps, then one
     * timed epoch over {@code steps} global batches; prints examples/s (step time only), peak RSS and
     * the bytes synchronised scaled to a 60,000-example epoch.
     */
    private static void averagingChild(String config, Block net, Shape input, float lr, List<NDList> batches,
            int steps, int warmup, int batch) throws Exception {
        boolean pa = config.startsWith("pa");
        var sync = pa ? ParameterAveraging.every(Integer.parseInt(config.substring(config.indexOf('f') + 1)))
                : GradientAveraging.mean();
        try (DataParallelTrainer t = DataParallelTrainer.builder(net).setDevices(Devices.virtual(2))
                .optInputShape(input).optLearningRate(lr).optSync(sync).optProgress(false).build()) {
            for (int i = 0; i < warmup; i++) {
                NDList b = batches.get(i % batches.size());
                t.trainStep(b.get(0), b.get(1));
            }
            List<NDArray> xs = new ArrayList<>();
            List<NDArray> ys = new ArrayList<>();
            for (int i = 0; i < steps; i++) {
                NDList b = batches.get((warmup + i) % batches.size());
                xs.add(b.get(0));
                ys.add(b.get(1));
            }
            ArrayDataset epoch = new ArrayDataset.Builder().setData(NDArrays.concat(new NDList(xs)))
                    .optLabels(NDArrays.concat(new NDList(ys))).setSampling(pa ? batch / 2 : batch, false).build();
            EpochMetrics e = t.trainEpoch(epoch, null);
            double bytesPerEpoch = e.syncBytes() * (double) EPOCH / (steps * (double) batch);
            System.out.printf(Locale.ROOT, "RESULT %s %.3f %d %.0f%n", config, e.examplesPerSecond(), peakRssKb(),
                    bytesPerEpoch);
        }
    }

    interface StepRunner {
        void step(NDList batch) throws Exception;
    }

    private static List<NDList> loadBatches(NDManager manager, int batch, int limit) throws Exception {
        var data = FashionMnistData.builder().batchSize(batch).shuffle(false).limit(limit).manager(manager)
                .build().train();
        List<NDList> out = new ArrayList<>();
        for (Batch b : data.getData(manager)) {
            NDArray x = b.getData().head();
            NDArray y = b.getLabels().head();
            if (x.getShape().get(0) == batch) {
                x.attach(manager);
                y.attach(manager);
                out.add(new NDList(x, y.toType(DataType.FLOAT32, false)));
            }
        }
        if (out.isEmpty()) {
            throw new IllegalArgumentException("DATASET_LIMIT " + limit + " gives no full batch of " + batch);
        }
        return out;
    }

    /** {@code limit / batch} batches of random images and labels (a GPU machine may not have Fashion-MNIST). */
    private static List<NDList> randomBatches(NDManager manager, int batch, int limit) {
        List<NDList> out = new ArrayList<>();
        for (int i = 0; i < Math.max(1, limit / batch); i++) {
            out.add(new NDList(manager.randomUniform(0, 1, new Shape(batch, 1, 28, 28)),
                    manager.randomInteger(0, 10, new Shape(batch), DataType.INT32).toType(DataType.FLOAT32, false)));
        }
        return out;
    }

    /** The first GPU's name, from nvidia-smi (or "GPU" when it cannot be asked). */
    static String gpuName() {
        try {
            Process p = new ProcessBuilder("nvidia-smi", "--query-gpu=name", "--format=csv,noheader", "-i", "0").start();
            String name = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
            return p.waitFor() == 0 && !name.isEmpty() ? name : "GPU";
        } catch (IOException | InterruptedException e) {
            return "GPU";
        }
    }

    /** Minor page faults of this process so far (field 10 of /proc/self/stat), or 0 where there is none. */
    static long minorFaults() throws IOException {
        Path p = Path.of("/proc/self/stat");
        if (!Files.exists(p)) {
            return 0;
        }
        String s = Files.readString(p);
        return Long.parseLong(s.substring(s.lastIndexOf(')') + 2).split(" ")[7]);
    }

    static long peakRssKb() throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
            if (line.startsWith("VmHWM:")) {
                return Long.parseLong(line.replaceAll("[^0-9]", ""));
            }
        }
        return -1;
    }
}
