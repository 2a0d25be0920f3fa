package org.d2l.multigpu.data;

import static org.d2l.multigpu.data.IdxFixtures.Naming.DJL;
import static org.d2l.multigpu.data.IdxFixtures.Naming.OFFICIAL;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import ai.djl.training.dataset.ArrayDataset;
import ai.djl.training.dataset.Batch;
import ai.djl.util.Utils;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.d2l.multigpu.runtime.Djl;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class FashionMnistDataTest {

    @TempDir Path tmp;
    private NDManager manager;
    private Path cache;

    @BeforeAll
    static void setUpDjl() {
        Djl.setup();
    }

    @BeforeEach
    void setUp() {
        manager = NDManager.newBaseManager();
        cache = tmp.resolve("cache");
    }

    @AfterEach
    void tearDown() {
        manager.close();
    }

    /** A builder that sees only the test's folders: no real environment, Debian files or DJL cache. */
    private FashionMnistData.Builder isolated(Settings settings) {
        return FashionMnistData.builder()
                .optSettings(settings)
                .optCacheDir(cache)
                .optDebianDir(tmp.resolve("no-debian"))
                .optDjlCacheDir(tmp.resolve("no-djl-cache"))
                .optOffline(true)
                .setSampling(8, false)
                .optManager(manager);
    }

    private FashionMnistData.Builder isolated(Path dataDir) {
        return isolated(Settings.from(Map.of())).optDataDir(dataDir);
    }

    /** Reads every batch and checks shapes, dtypes and pixel values; returns the labels in order. */
    private List<Integer> readAll(ArrayDataset dataset, boolean checkPixels) throws Exception {
        List<Integer> labels = new ArrayList<>();
        for (Batch batch : dataset.getData(manager)) {
            try (batch) {
                NDArray x = batch.getData().head();
                NDArray y = batch.getLabels().head();
                long b = x.getShape().get(0);
                assertEquals(new Shape(b, 1, 28, 28), x.getShape());
                assertEquals(DataType.FLOAT32, x.getDataType());
                assertEquals(new Shape(b), y.getShape());
                assertEquals(DataType.FLOAT32, y.getDataType());
                float[] pixels = x.toFloatArray();
                int first = labels.size();
                if (checkPixels) {
                    for (int i = 0; i < b; i++) {
                        for (int p = 0; p < 784; p++) {
                            float expected = IdxFixtures.pixel(first + i, p) / 255f;
                            assertEquals(expected, pixels[i * 784 + p], 1e-6f, "image " + (first + i) + " pixel " + p);
                        }
                    }
                }
                for (float v : y.toFloatArray()) {
                    labels.add((int) v);
                }
            }
        }
        return labels;
    }

    private static List<Integer> expectedLabels(int n, boolean test) {
        List<Integer> labels = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            labels.add(test ? IdxFixtures.testLabel(i) : IdxFixtures.trainLabel(i));
        }
        return labels;
    }

    @Test
    void eachSetIsPreparedOnceAndReturnedAgainSoThatALessonHoldsOneCopyOfTheData() throws Exception {
        Path data = IdxFixtures.writeSet(tmp.resolve("data"), IdxFixtures.Naming.OFFICIAL, true, 20, 8);
        FashionMnistData fm = isolated(data).build();
        assertSame(fm.train(), fm.train());
        assertSame(fm.test(), fm.test());
        assertNotSame(fm.train(), fm.test());
    }

    @Test
    void aSecondRunsLoaderKeepsNoSecondCopyOfTheData() throws Exception {
        Path data = IdxFixtures.writeSet(tmp.resolve("data"), OFFICIAL, true, 20, 8);
        long before = SplitCache.rowsHeld();
        FashionMnistData first = isolated(data).build();
        List<Integer> firstLabels = readAll(first.train(), true);
        readAll(first.test(), true);
        assertEquals(before + 20 + 8, SplitCache.rowsHeld(), "one copy of each split");
        for (int run = 2; run <= 4; run++) { // a lesson's later runs, each with a loader of its own
            boolean shuffle = run % 2 == 0;
            FashionMnistData again = isolated(data).setSampling(4 + run, shuffle).build();
            List<Integer> labels = readAll(again.train(), !shuffle);
            readAll(again.test(), true);
            labels.sort(null);
            List<Integer> expected = new ArrayList<>(firstLabels);
            expected.sort(null);
            assertEquals(expected, labels, "run " + run + " reads the same examples");
            assertEquals(before + 20 + 8, SplitCache.rowsHeld(), "run " + run + " kept another copy");
        }
    }

    @Test
    void onlyTheLimitsRowsStayInMemory() throws Exception {
        Path data = IdxFixtures.writeSet(tmp.resolve("data"), OFFICIAL, true, 20, 8);
        long before = SplitCache.rowsHeld();
        FashionMnistData fm = isolated(data).optLimit(5).build();
        assertEquals(expectedLabels(5, false), readAll(fm.train(), true));
        assertEquals(before + 5, SplitCache.rowsHeld());
        FashionMnistData fewer = isolated(data).optLimit(3).build(); // served from the 5 rows held
        assertEquals(expectedLabels(3, false), readAll(fewer.train(), true));
        assertEquals(before + 5, SplitCache.rowsHeld());
    }

    @Test
    void closingTheManagerFreesTheRowsAndALaterLoaderReadsThemAgain() throws Exception {
        Path data = IdxFixtures.writeSet(tmp.resolve("data"), OFFICIAL, true, 20, 8);
        long before = SplitCache.rowsHeld();
        NDManager lesson = NDManager.newBaseManager();
        FashionMnistData fm = isolated(data).optManager(lesson).build();
        readAll(fm.train(), false);
        assertEquals(before + 20, SplitCache.rowsHeld());
        lesson.close();
        assertEquals(before, SplitCache.rowsHeld(), "the lesson's manager closed: its rows are gone");
        FashionMnistData later = isolated(data).build();
        assertEquals(expectedLabels(20, false), readAll(later.train(), true));
    }

    @Test
    void changedFilesAreReadAgainNotServedFromMemory() throws Exception {
        Path data = IdxFixtures.writeSet(tmp.resolve("data"), OFFICIAL, true, 20, 8);
        assertEquals(20, readAll(isolated(data).build().train(), true).size());
        IdxFixtures.writeSet(data, OFFICIAL, true, 12, 4);
        assertEquals(expectedLabels(12, false), readAll(isolated(data).build().train(), true));
    }

    @ParameterizedTest(name = "{0} names, gzip={1}")
    @CsvSource({"OFFICIAL, true", "OFFICIAL, false", "DJL, true"})
    void loadsFixturesThroughTheCache(IdxFixtures.Naming naming, boolean gz) throws Exception {
        Path data = IdxFixtures.writeSet(tmp.resolve("data"), naming, gz, 20, 8);
        byte[] sourceBefore = Files.readAllBytes(data.resolve(IdxFixtures.name(IdxFile.TRAIN_DATA, naming, gz)));
        FashionMnistData fm = isolated(data).build();

        ArrayDataset train = fm.train();
        ArrayDataset test = fm.test();

        assertEquals(cache, fm.folder().orElseThrow());
        for (IdxFile part : IdxFile.values()) {
            assertTrue(Files.isRegularFile(cache.resolve(part.djlName)), part.djlName);
        }
        assertEquals(20, train.size());
        assertEquals(8, test.size());
        assertEquals(expectedLabels(20, false), readAll(train, true));
        assertEquals(expectedLabels(8, true), readAll(test, true));
        assertArrayEquals(sourceBefore, Files.readAllBytes(data.resolve(IdxFixtures.name(IdxFile.TRAIN_DATA, naming, gz))));
    }

    @Test
    void uncompressedDjlNamesAreReadInPlace() throws Exception {
        Path data = IdxFixtures.writeSet(tmp.resolve("data"), DJL, false, 20, 8);
        FashionMnistData fm = isolated(data).build();
        assertEquals(expectedLabels(8, true), readAll(fm.test(), true));
        assertEquals(data.toAbsolutePath(), fm.folder().orElseThrow());
        assertFalse(Files.exists(cache), "nothing should be unpacked");
    }

    @Test
    void fashionMnistDirAndDataCacheComeFromSettings() throws Exception {
        Path data = IdxFixtures.writeSet(tmp.resolve("data"), OFFICIAL, true, 20, 8);
        Path otherCache = tmp.resolve("other-cache");
        Settings settings =
                Settings.from(Map.of("FASHION_MNIST_DIR", data.toString(), "D2L_DATA_CACHE", otherCache.toString()));
        FashionMnistData fm =
                FashionMnistData.builder()
                        .optSettings(settings)
                        .optDebianDir(tmp.resolve("no-debian"))
                        .optDjlCacheDir(tmp.resolve("no-djl-cache"))
                        .optOffline(true)
                        .optManager(manager)
                        .setSampling(8, false)
                        .build();
        assertEquals(20, fm.train().size());
        assertEquals(otherCache.toAbsolutePath(), fm.folder().orElseThrow());
        assertTrue(Files.isRegularFile(otherCache.resolve("train_data")));
    }

    @Test
    void debianFolderIsFoundWithoutSettings() throws Exception {
        Path debian = IdxFixtures.writeSet(tmp.resolve("debian"), OFFICIAL, true, 20, 8);
        FashionMnistData fm = isolated(Settings.from(Map.of())).optDebianDir(debian).build();
        assertEquals(expectedLabels(8, true), readAll(fm.test(), true));
        assertEquals(cache, fm.folder().orElseThrow());
    }

    @Test
    void nothingIsWrittenToDjlsOwnCache() throws Exception {
        Path djlFashion = FashionMnistData.djlMetadata(Utils.getCacheDir()).getParent();
        boolean existedBefore = Files.exists(djlFashion);
        Path data = IdxFixtures.writeSet(tmp.resolve("data"), OFFICIAL, true, 20, 8);
        isolated(data).build().train();
        if (!existedBefore) {
            assertFalse(Files.exists(djlFashion), djlFashion + " was created");
        }
        assertTrue(Files.isRegularFile(cache.resolve("train_data")));
    }

    @Test
    void djlMetadataPathIsUnderTheGivenCache() {
        assertEquals(
                tmp.resolve("cache/repo/dataset/cv/ai/djl/basicdataset/fashmnist/metadata.json"),
                FashionMnistData.djlMetadata(tmp));
    }

    @Test
    void builderLimitIsHonoured() throws Exception {
        Path data = IdxFixtures.writeSet(tmp.resolve("data"), OFFICIAL, true, 20, 8);
        FashionMnistData fm = isolated(data).optLimit(5).build();
        ArrayDataset train = fm.train();
        assertEquals(5, train.size());
        assertEquals(expectedLabels(5, false), readAll(train, true));
        assertEquals(expectedLabels(5, true), readAll(fm.test(), true));
    }

    @Test
    void datasetLimitSettingIsHonouredAndTheBuilderWins() throws Exception {
        Path data = IdxFixtures.writeSet(tmp.resolve("data"), OFFICIAL, true, 20, 8);
        Settings settings = Settings.from(Map.of("DATASET_LIMIT", "7"));
        assertEquals(7, isolated(settings).optDataDir(data).build().train().size());
        assertEquals(3, isolated(settings).optDataDir(data).optLimit(3).build().train().size());
        assertEquals(8, isolated(settings).optDataDir(data).optLimit(100).build().test().size());
    }

    @Test
    void shuffledTrainingSetHoldsTheSameLabels() throws Exception {
        Path data = IdxFixtures.writeSet(tmp.resolve("data"), OFFICIAL, true, 20, 8);
        List<Integer> labels = readAll(isolated(data).setSampling(8, true).build().train(), false);
        labels.sort(null);
        List<Integer> expected = expectedLabels(20, false);
        expected.sort(null);
        assertEquals(expected, labels);
    }

    @Test
    void offlineWithoutDataNamesBothFixes() {
        Path djlFashion = FashionMnistData.djlMetadata(Utils.getCacheDir()).getParent();
        boolean existedBefore = Files.exists(djlFashion);
        FashionMnistData fm = isolated(Settings.from(Map.of())).build();
        IllegalStateException e = assertThrows(IllegalStateException.class, fm::train);
        assertEquals(null, e.getCause(), "DJL's repository must not be tried offline");
        if (!existedBefore) {
            assertFalse(Files.exists(djlFashion), djlFashion + " was created");
        }
        String msg = e.getMessage();
        assertTrue(msg.contains("apt-get install dataset-fashion-mnist"), msg);
        assertTrue(msg.contains("dataset-fashion-mnist"), msg);
        assertTrue(msg.contains("set FASHION_MNIST_DIR to a folder holding the Fashion-MNIST IDX files"), msg);
        assertTrue(msg.contains("DJL_OFFLINE=false"), msg);
    }

    @Test
    void folderMissingAFileSaysWhich() throws Exception {
        Path data = IdxFixtures.writeSet(tmp.resolve("data"), OFFICIAL, true, 20, 8);
        Files.delete(data.resolve("t10k-labels-idx1-ubyte.gz"));
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> isolated(data).build().test());
        assertTrue(e.getMessage().contains("t10k-labels-idx1-ubyte"), e.getMessage());
        assertFalse(e.getMessage().contains("train-images"), e.getMessage());
    }

    @Test
    void truncatedGzipIsReportedAndLeftAlone() throws Exception {
        Path data = IdxFixtures.writeSet(tmp.resolve("data"), OFFICIAL, true, 20, 8);
        Path images = data.resolve("train-images-idx3-ubyte.gz");
        byte[] whole = Files.readAllBytes(images);
        byte[] half = Arrays.copyOf(whole, whole.length / 2);
        Files.write(images, half);

        IllegalStateException e = assertThrows(IllegalStateException.class, () -> isolated(data).build().train());

        assertTrue(e.getMessage().contains(images.toAbsolutePath().toString()), e.getMessage());
        assertTrue(e.getMessage().contains("truncated"), e.getMessage());
        assertTrue(e.getMessage().contains("replace it"), e.getMessage());
        assertArrayEquals(half, Files.readAllBytes(images));
        assertFalse(Files.exists(cache.resolve("train_data")), "no cache file from a broken source");
        try (Stream<Path> left = Files.list(cache)) {
            assertEquals(List.of(), left.toList(), "no temporary files left behind");
        }
    }

    @Test
    void truncatedUncompressedFileIsReported() throws Exception {
        Path data = IdxFixtures.writeSet(tmp.resolve("data"), OFFICIAL, false, 20, 8);
        Path labels = data.resolve("t10k-labels-idx1-ubyte");
        byte[] cut = Arrays.copyOf(Files.readAllBytes(labels), 8 + 5);
        Files.write(labels, cut);
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> isolated(data).build().test());
        assertTrue(e.getMessage().contains(labels.toAbsolutePath().toString()), e.getMessage());
        assertTrue(e.getMessage().contains("holds 5 of the 8"), e.getMessage());
        assertArrayEquals(cut, Files.readAllBytes(labels));
    }

    @Test
    void extraBytesAreReported() throws Exception {
        Path data = IdxFixtures.writeSet(tmp.resolve("data"), DJL, false, 20, 8);
        Path labels = data.resolve("train_labels");
        byte[] longer = Arrays.copyOf(Files.readAllBytes(labels), 8 + 20 + 3);
        Files.write(labels, longer);
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> isolated(data).build().train());
        assertTrue(e.getMessage().contains(labels.toAbsolutePath() + ": it has extra bytes"), e.getMessage());
        assertArrayEquals(longer, Files.readAllBytes(labels));
    }

    @Test
    void labelsOutsideZeroToNineAreReported() throws Exception {
        Path data = IdxFixtures.writeSet(tmp.resolve("data"), OFFICIAL, false, 20, 8);
        Path labels = data.resolve("t10k-labels-idx1-ubyte");
        byte[] bad = Files.readAllBytes(labels);
        bad[8 + 2] = 10;
        Files.write(labels, bad);
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> isolated(data).build().test());
        assertTrue(e.getMessage().contains("label 10 at index 2 is outside 0..9"), e.getMessage());
    }

    @Test
    void badMagicInPlaceIsReportedAndLeftAlone() throws Exception {
        Path data = IdxFixtures.writeSet(tmp.resolve("data"), DJL, false, 20, 8);
        Path images = data.resolve("train_data");
        byte[] bad = IdxFixtures.images(20, 2049, 28, 28);
        Files.write(images, bad);
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> isolated(data).build().train());
        assertTrue(e.getMessage().contains(images.toAbsolutePath().toString()), e.getMessage());
        assertTrue(e.getMessage().contains("magic number 2049, expected 2051"), e.getMessage());
        assertArrayEquals(bad, Files.readAllBytes(images));
    }

    @Test
    void wrongImageSizeIsReported() throws Exception {
        Path data = IdxFixtures.writeSet(tmp.resolve("data"), OFFICIAL, true, 20, 8);
        IdxFixtures.write(data.resolve("t10k-images-idx3-ubyte.gz"), IdxFixtures.images(8, 2051, 32, 32), true);
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> isolated(data).build().test());
        assertTrue(e.getMessage().contains("32x32, expected 28x28"), e.getMessage());
    }

    @Test
    void mismatchedCountsAreReported() throws Exception {
        Path data = IdxFixtures.writeSet(tmp.resolve("data"), OFFICIAL, true, 20, 8);
        IdxFixtures.write(data.resolve("train-labels-idx1-ubyte.gz"), IdxFixtures.labels(19, false), true);
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> isolated(data).build().train());
        assertTrue(e.getMessage().contains("20 images but"), e.getMessage());
        assertTrue(e.getMessage().contains("19 labels"), e.getMessage());
    }

    @Test
    void cacheIsRemadeWhenSourcesChangeOrTheCacheIsDamaged() throws Exception {
        Path data = IdxFixtures.writeSet(tmp.resolve("data"), OFFICIAL, true, 20, 8);
        assertEquals(20, isolated(data).build().train().size());

        IdxFixtures.writeSet(data, OFFICIAL, true, 12, 4);
        assertEquals(12, isolated(data).build().train().size());

        Path cached = cache.resolve("train_data");
        Files.write(cached, Arrays.copyOf(Files.readAllBytes(cached), 100));
        FashionMnistData fm = isolated(data).build();
        assertEquals(expectedLabels(12, false), readAll(fm.train(), true));
        assertEquals(16 + 12 * 784, Files.size(cached));
    }

    @Test
    void buildingWithoutAMinibatchSizeNamesSetSampling() {
        IllegalStateException e =
                assertThrows(IllegalStateException.class, () -> FashionMnistData.builder().optLimit(10).build());
        assertTrue(e.getMessage().contains("setSampling(batchSize, shuffle)"), e.getMessage());
    }

    @Test
    void textLabelsFollowTheBook() {
        assertArrayEquals(
                new String[] {"t-shirt", "trouser", "ankle boot"},
                new String[] {FashionMnistData.getFashionMnistLabel(0), FashionMnistData.getFashionMnistLabel(1),
                    FashionMnistData.getFashionMnistLabel(9)});
        assertThrows(IllegalArgumentException.class, () -> FashionMnistData.getFashionMnistLabel(10));
    }
}
