package org.d2l.multigpu.data;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.OptionalInt;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class SettingsTest {

    @Test
    void absentValuesMeanNoLimitAndNoCap() {
        Settings s = Settings.from(Map.of());
        assertEquals(OptionalLong.empty(), s.datasetLimit());
        assertEquals(OptionalInt.empty(), s.maxEpoch());
        assertEquals(10, s.capEpochs(10));
        assertTrue(s.fashionMnistDir().isEmpty());
        assertTrue(s.dataCache().isEmpty());
    }

    @Test
    void blankValuesCountAsUnset() {
        Settings s = Settings.from(Map.of("DATASET_LIMIT", "  ", "MAX_EPOCH", ""));
        assertEquals(OptionalLong.empty(), s.datasetLimit());
        assertEquals(7, s.capEpochs(7));
    }

    @Test
    void parsesDatasetLimitAndMaxEpoch() {
        Settings s =
                Settings.from(
                        Map.of(
                                "DATASET_LIMIT", " 100 ",
                                "MAX_EPOCH", "2",
                                "FASHION_MNIST_DIR", "/data/fm",
                                "D2L_DATA_CACHE", "/cache/fm"));
        assertEquals(OptionalLong.of(100), s.datasetLimit());
        assertEquals(OptionalInt.of(2), s.maxEpoch());
        assertEquals(2, s.capEpochs(10));
        assertEquals(1, s.capEpochs(1));
        assertEquals(Path.of("/data/fm"), s.fashionMnistDir().orElseThrow());
        assertEquals(Path.of("/cache/fm"), s.dataCache().orElseThrow());
    }

    @ParameterizedTest
    @ValueSource(strings = {"abc", "0", "-5", "1.5", "12x"})
    void badValuesNameTheVariableAndTheValue(String bad) {
        Settings s = Settings.from(Map.of("DATASET_LIMIT", bad, "MAX_EPOCH", bad));
        IllegalArgumentException e1 = assertThrows(IllegalArgumentException.class, s::datasetLimit);
        assertTrue(e1.getMessage().contains("DATASET_LIMIT"), e1.getMessage());
        assertTrue(e1.getMessage().contains("\"" + bad + "\""), e1.getMessage());
        IllegalArgumentException e2 = assertThrows(IllegalArgumentException.class, () -> s.capEpochs(3));
        assertTrue(e2.getMessage().contains("MAX_EPOCH"), e2.getMessage());
        assertTrue(e2.getMessage().contains("\"" + bad + "\""), e2.getMessage());
    }

    @Test
    void requestedEpochsMustBePositive() {
        assertThrows(IllegalArgumentException.class, () -> Settings.from(Map.of()).capEpochs(0));
    }

    @Test
    void systemPropertyIsTheFallback() {
        assumeTrue(System.getenv("MAX_EPOCH") == null, "MAX_EPOCH is set in the environment");
        assertEquals("max.epoch", Settings.propertyName("MAX_EPOCH"));
        String old = System.getProperty("max.epoch");
        System.setProperty("max.epoch", "3");
        try {
            assertEquals(3, Settings.epochs(50));
            assertEquals(OptionalInt.of(3), Settings.get().maxEpoch());
        } finally {
            if (old == null) {
                System.clearProperty("max.epoch");
            } else {
                System.setProperty("max.epoch", old);
            }
        }
    }

    @Test
    void cacheDirComesFromD2lDataCache(@TempDir Path tmp) {
        Settings s = Settings.from(Map.of("D2L_DATA_CACHE", tmp.resolve("c").toString()));
        assertEquals(tmp.resolve("c"), FashionMnistFiles.defaultCacheDir(s, tmp, tmp));
    }

    @Test
    void cacheDirIsUnderTheProjectRoot(@TempDir Path tmp) throws Exception {
        Path root = tmp.resolve("project");
        Files.createDirectories(root.resolve("support-lib"));
        Path work = Files.createDirectories(root.resolve("notebooks/chapter"));
        assertEquals(
                root.resolve("build/data/fashion-mnist"),
                FashionMnistFiles.defaultCacheDir(Settings.from(Map.of()), work, tmp.resolve("t")));
    }

    @Test
    void cacheDirFallsBackToTmp(@TempDir Path tmp) throws Exception {
        Path work = Files.createDirectories(tmp.resolve("elsewhere"));
        assumeTrue(Files.notExists(Path.of("/support-lib")) && Files.notExists(tmp.getParent().resolve("support-lib")));
        assertEquals(
                tmp.resolve("t/d2l-multigpu/fashion-mnist"),
                FashionMnistFiles.defaultCacheDir(Settings.from(Map.of()), work, tmp.resolve("t")));
    }

    @Test
    void describeSaysWhoChoseTheDefaultsTheMachineAndTheSessionLength() {
        String text = Settings.from(Map.of("DATASET_LIMIT", "3000", "MAX_EPOCH", "3", "D2L_DEFAULTS", "binder/start",
                "D2L_SESSION_LIMIT", "3600")).describe();
        assertTrue(text.startsWith("DATASET_LIMIT=3000, MAX_EPOCH=3 (defaults of binder/start for this machine's "
                + Runtime.getRuntime().availableProcessors() + " CPU(s) and "), text);
        assertTrue(text.contains("GB, sessions of about 1 h; a cell such as System.setProperty(\"dataset.limit\", "
                + "\"6000\") changes one before the data is loaded)"), text);
    }

    @Test
    void sessionLimitMustBeAPositiveNumberOfSeconds() {
        assertEquals(OptionalLong.of(3600), Settings.from(Map.of("D2L_SESSION_LIMIT", "3600")).sessionLimit());
        assertEquals(OptionalLong.empty(), Settings.from(Map.of()).sessionLimit());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> Settings.from(Map.of("D2L_SESSION_LIMIT", "1h")).sessionLimit());
        assertTrue(e.getMessage().contains("D2L_SESSION_LIMIT"), e.getMessage());
    }

    @Test
    void describeNamesBothSettingsAndTheirValues() {
        assertEquals("DATASET_LIMIT=512, MAX_EPOCH=1",
                Settings.from(Map.of("DATASET_LIMIT", "512", "MAX_EPOCH", "1")).describe());
        assertEquals("DATASET_LIMIT=not set (all examples), MAX_EPOCH=not set (the lesson's epochs)",
                Settings.from(Map.of()).describe());
    }

    @Test
    void resnetWidthIsReadCheckedAndNamedByDescribeOnlyWhenSet() {
        assertEquals(16, Settings.from(Map.of("RESNET_WIDTH", "16")).resnetWidth().getAsInt());
        assertEquals(false, Settings.from(Map.of()).resnetWidth().isPresent());
        assertEquals("DATASET_LIMIT=512, MAX_EPOCH=1, RESNET_WIDTH=32",
                Settings.from(Map.of("DATASET_LIMIT", "512", "MAX_EPOCH", "1", "RESNET_WIDTH", "32")).describe());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> Settings.from(Map.of("RESNET_WIDTH", "wide")).resnetWidth());
        org.junit.jupiter.api.Assertions.assertTrue(e.getMessage().contains("-Dresnet.width"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> Settings.from(Map.of("RESNET_WIDTH", "4096")).resnetWidth());
    }

    @Test
    void resumeIsOnUnlessD2lResumeIsFalseAndOtherValuesAreRefused() {
        assertEquals(true, Settings.from(Map.of()).resume());
        assertEquals(false, Settings.from(Map.of("D2L_RESUME", "false")).resume());
        assertEquals(false, Settings.from(Map.of("D2L_RESUME", "0")).resume());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> Settings.from(Map.of("D2L_RESUME", "no")).resume());
        org.junit.jupiter.api.Assertions.assertTrue(e.getMessage().contains("true or false"), e.getMessage());
    }
}
