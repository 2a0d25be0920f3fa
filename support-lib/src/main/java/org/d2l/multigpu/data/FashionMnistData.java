package org.d2l.multigpu.data;

import ai.djl.Application;
import ai.djl.basicdataset.BasicDatasets;
import ai.djl.basicdataset.cv.classification.FashionMnist;
import ai.djl.ndarray.NDManager;
import ai.djl.repository.Repository;
import ai.djl.training.dataset.ArrayDataset;
import ai.djl.training.dataset.Dataset;
import ai.djl.translate.TranslateException;
import ai.djl.modality.cv.transform.ToTensor;
import ai.djl.translate.Pipeline;
import ai.djl.util.Utils;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.d2l.multigpu.runtime.Djl;

/**
 * Fashion-MNIST as prepared DJL datasets, found offline where possible.
 *
 * <p>Sources, in order: the builder's {@link Builder#optDataDir(Path)} or {@code FASHION_MNIST_DIR};
 * the Debian package {@code dataset-fashion-mnist} ({@value #DEBIAN_DIR}); DJL's own cache or
 * download. Gzipped or officially named files are unpacked into a project-local cache (see {@link
 * Builder#optCacheDir(Path)}), never into {@code ~/.djl.ai}. Batches are float32 (B, 1, 28, 28) in
 * [0, 1]; labels float32 (B). Only the limit's rows stay in memory, once per split and manager ({@code
 * SplitCache}): in the builder's manager, or, without one, in one manager for the whole process.
 *
 * <pre>{@code
 * FashionMnistData data = FashionMnistData.builder().setSampling(256, true).build();
 * ArrayDataset trainIter = data.train();
 * ArrayDataset testIter = data.test();
 * }</pre>
 */
public final class FashionMnistData {

    /** Where the Debian package dataset-fashion-mnist installs the official IDX files. */
    public static final String DEBIAN_DIR = "/usr/share/datasets/fashion-mnist";

    private static final String[] TEXT_LABELS = {
        "t-shirt", "trouser", "pullover", "dress", "coat",
        "sandal", "shirt", "sneaker", "bag", "ankle boot"
    };

    private final int batchSize;
    private final boolean shuffle;
    private final int prefetch;
    private final long limit;
    private final Path dataDir;
    private final Path cacheDir;
    private final Path debianDir;
    private final Path djlCacheDir;
    private final boolean offline;
    private final NDManager manager;
    private Optional<Path> folder;
    private ArrayDataset trainSet;
    private ArrayDataset testSet;

    private FashionMnistData(Builder b) {
        Settings settings = b.settings != null ? b.settings : Settings.get();
        batchSize = b.batchSize;
        shuffle = b.shuffle;
        prefetch = b.prefetch;
        limit = b.limit > 0 ? b.limit : settings.datasetLimit().orElse(Long.MAX_VALUE);
        dataDir = b.dataDir != null ? b.dataDir : settings.fashionMnistDir().orElse(null);
        cacheDir =
                b.cacheDir != null
                        ? b.cacheDir
                        : FashionMnistFiles.defaultCacheDir(
                                settings,
                                Path.of(System.getProperty("user.dir")),
                                Path.of(System.getProperty("java.io.tmpdir")));
        debianDir = b.debianDir;
        djlCacheDir = b.djlCacheDir != null ? b.djlCacheDir : Utils.getCacheDir();
        offline = b.offline != null ? b.offline : Djl.offline();
        manager = b.manager;
    }

    /** Returns a builder; settings not given to it come from the environment ({@link Settings#get()}). */
    public static Builder builder() {
        Djl.setup();
        return new Builder();
    }

    /** Returns the text label of a class index 0..9, e.g. 9 is "ankle boot". */
    public static String getFashionMnistLabel(int labelIndex) {
        if (labelIndex < 0 || labelIndex >= TEXT_LABELS.length) {
            throw new IllegalArgumentException("Fashion-MNIST labels are 0..9, got " + labelIndex);
        }
        return TEXT_LABELS[labelIndex];
    }

    /**
     * Returns the prepared training set (60,000 examples, or the limit), shuffled unless turned off: the same
     * set at every call, over rows that every loader of the same manager shares, so that a lesson that builds
     * a loader per run still holds one copy of each split.
     */
    public synchronized ArrayDataset train() {
        if (trainSet == null) {
            trainSet = load(Dataset.Usage.TRAIN, shuffle);
        }
        return trainSet;
    }

    /** Returns the prepared test set (10,000 examples, or the limit), in file order, prepared once as {@link #train()}. */
    public synchronized ArrayDataset test() {
        if (testSet == null) {
            testSet = load(Dataset.Usage.TEST, false);
        }
        return testSet;
    }

    /** Returns the number of examples used from each split ({@code Long.MAX_VALUE}: all). */
    public long limit() {
        return limit;
    }

    /** Returns the local folder DJL reads, or empty when DJL's own cache or download is used. */
    public synchronized Optional<Path> folder() {
        if (folder == null) {
            try {
                folder = resolve();
            } catch (IOException e) {
                throw new UncheckedIOException("Could not prepare Fashion-MNIST: " + e.getMessage(), e);
            }
        }
        return folder;
    }

    private ArrayDataset load(Dataset.Usage usage, boolean random) {
        Optional<Path> dir = folder();
        SplitCache.Rows rows;
        try {
            rows = SplitCache.get(manager, dir, usage, limit, (n, owner) -> decode(dir, usage, n, owner));
        } catch (IOException e) {
            if (dir.isEmpty()) {
                throw notFound(e);
            }
            throw new UncheckedIOException("Could not read Fashion-MNIST from " + dir.get(), e);
        }
        return new ArrayDataset.Builder()
                .setData(rows.images())
                .optLabels(rows.labels())
                .setSampling(batchSize, random)
                .optPrefetchNumber(prefetch)
                .optLimit(limit)
                .optPipeline(new Pipeline(new ToTensor())) // as FashionMnist's default: (B, 1, 28, 28) in [0, 1]
                .build();
    }

    /** Decodes a split with DJL's FashionMnist and keeps its first {@code n} rows in {@code owner}. */
    private SplitCache.Rows decode(Optional<Path> dir, Dataset.Usage usage, long n, NDManager owner)
            throws IOException {
        try (NDManager whole = NDManager.newBaseManager()) { // DJL decodes the whole split: freed here
            FashionMnist.Builder b =
                    FashionMnist.builder().optUsage(usage).setSampling(batchSize, false).optManager(whole);
            dir.ifPresent(d -> b.optRepository(Repository.newInstance("fashion-mnist-local", d)));
            FashionMnist dataset = b.build();
            try {
                dataset.prepare();
            } catch (TranslateException e) {
                throw new IllegalStateException("Could not prepare Fashion-MNIST: " + e.getMessage(), e);
            }
            long size = dataset.size();
            long rows = Math.min(size, n);
            return SplitCache.keep(dataset.getByRange(whole, 0, rows), rows == size, owner);
        }
    }

    private Optional<Path> resolve() throws IOException {
        if (dataDir != null) {
            if (!Files.isDirectory(dataDir)) {
                throw new IllegalStateException(
                        "Fashion-MNIST folder " + dataDir.toAbsolutePath()
                                + " (FASHION_MNIST_DIR or dataDir) is not a folder.");
            }
            Map<IdxFile, Path> files = FashionMnistFiles.find(dataDir);
            if (files.size() < IdxFile.values().length) {
                throw new IllegalStateException(
                        "Fashion-MNIST folder " + dataDir.toAbsolutePath()
                                + " (FASHION_MNIST_DIR or dataDir) lacks " + missing(files) + ".");
            }
            return Optional.of(FashionMnistFiles.prepare(files, cacheDir));
        }
        Map<IdxFile, Path> debian = FashionMnistFiles.find(debianDir);
        if (debian.size() == IdxFile.values().length) {
            return Optional.of(FashionMnistFiles.prepare(debian, cacheDir));
        }
        if (offline && !djlCacheHoldsFashionMnist()) {
            throw notFound(null);
        }
        return Optional.empty();
    }

    private boolean djlCacheHoldsFashionMnist() {
        return Files.isRegularFile(djlMetadata(djlCacheDir));
    }

    /** Returns where DJL keeps its Fashion-MNIST metadata under a DJL cache folder such as ~/.djl.ai. */
    static Path djlMetadata(Path djlCacheDir) {
        String path =
                BasicDatasets.REPOSITORY
                        .dataset(Application.CV.ANY, BasicDatasets.GROUP_ID, "fashmnist", "1.0")
                        .toURI()
                        .getPath();
        return djlCacheDir.resolve("cache/repo").resolve(path).resolve("metadata.json");
    }

    private static String missing(Map<IdxFile, Path> found) {
        List<String> names = new ArrayList<>();
        for (IdxFile part : IdxFile.values()) {
            if (!found.containsKey(part)) {
                names.add(part.officialName + "[.gz] (or " + part.djlName + ")");
            }
        }
        return String.join(", ", names);
    }

    private IllegalStateException notFound(Exception cause) {
        String djl =
                offline
                        ? "DJL is in offline mode (DJL_OFFLINE / ai.djl.offline; the CPU build turns it"
                                + " on), so it will not download; with network access, run with the"
                                + " environment variable DJL_OFFLINE=false to let DJL download it."
                        : "DJL could not download it either"
                                + (cause != null ? " (" + cause.getMessage() + ")" : "") + ".";
        return new IllegalStateException(
                "Fashion-MNIST not found. Either install the Debian package dataset-fashion-mnist"
                        + " (apt-get install dataset-fashion-mnist), which puts the files in "
                        + debianDir + ", or set FASHION_MNIST_DIR to a folder holding the"
                        + " Fashion-MNIST IDX files (train-images-idx3-ubyte, train-labels-idx1-ubyte,"
                        + " t10k-images-idx3-ubyte, t10k-labels-idx1-ubyte, gzipped or not). " + djl,
                cause);
    }

    /** Configures a {@link FashionMnistData}, in the style of DJL's dataset builders. */
    public static final class Builder {

        private int batchSize;
        private boolean shuffle;
        private int prefetch = 2;
        private long limit;
        private Path dataDir;
        private Path cacheDir;
        private Settings settings;
        private NDManager manager;
        private Path debianDir = Path.of(DEBIAN_DIR);
        private Path djlCacheDir;
        private Boolean offline;

        private Builder() {}

        /**
         * Sets the minibatch size and whether the training set is read in random order (the test set never is),
         * as DJL's {@code setSampling}; required.
         */
        public Builder setSampling(int batchSize, boolean shuffle) {
            if (batchSize <= 0) {
                throw new IllegalArgumentException("batchSize must be positive, got " + batchSize);
            }
            this.batchSize = batchSize;
            this.shuffle = shuffle;
            return this;
        }

        /**
         * Sets how many minibatches DJL loads ahead when the trainer prefetches (DJL's
         * {@code optPrefetchNumber}, default 2; ParallelWrapper's {@code prefetchBuffer}).
         */
        public Builder optPrefetch(int prefetch) {
            if (prefetch < 1) {
                throw new IllegalArgumentException("prefetch must be at least 1 minibatch, got " + prefetch);
            }
            this.prefetch = prefetch;
            return this;
        }

        /** Uses only the first {@code limit} examples of each split (default: DATASET_LIMIT, else all). */
        public Builder optLimit(long limit) {
            if (limit <= 0) {
                throw new IllegalArgumentException("limit must be positive, got " + limit);
            }
            this.limit = limit;
            return this;
        }

        /** Reads the IDX files from this folder (default: FASHION_MNIST_DIR, else the Debian files). */
        public Builder optDataDir(Path dataDir) {
            this.dataDir = dataDir;
            return this;
        }

        /** Sets the folder for unpacked files (default: D2L_DATA_CACHE, else build/data/fashion-mnist). */
        public Builder optCacheDir(Path cacheDir) {
            this.cacheDir = cacheDir;
            return this;
        }

        /** Takes DATASET_LIMIT, FASHION_MNIST_DIR and D2L_DATA_CACHE from these settings instead of the environment. */
        public Builder optSettings(Settings settings) {
            this.settings = settings;
            return this;
        }

        /** Puts the datasets' arrays under a sub-manager of this manager, so closing it frees them. */
        public Builder optManager(NDManager manager) {
            this.manager = manager;
            return this;
        }

        Builder optDebianDir(Path debianDir) {
            this.debianDir = debianDir;
            return this;
        }

        Builder optDjlCacheDir(Path djlCacheDir) {
            this.djlCacheDir = djlCacheDir;
            return this;
        }

        Builder optOffline(boolean offline) {
            this.offline = offline;
            return this;
        }

        /** Builds the loader; files are looked up and unpacked at the first {@code train()} or {@code test()}. */
        public FashionMnistData build() {
            if (batchSize == 0) {
                throw new IllegalStateException(
                        "FashionMnistData needs a minibatch size: call setSampling(batchSize, shuffle) before build()");
            }
            return new FashionMnistData(this);
        }
    }
}
