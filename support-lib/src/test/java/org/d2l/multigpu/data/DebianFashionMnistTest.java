package org.d2l.multigpu.data;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import ai.djl.training.dataset.ArrayDataset;
import ai.djl.training.dataset.Batch;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Loads the real files of the Debian package dataset-fashion-mnist, when installed. */
class DebianFashionMnistTest {

    @Test
    void loadsTheDebianFilesWithALimit(@TempDir Path cache) throws Exception {
        assumeTrue(
                Files.isDirectory(Path.of(FashionMnistData.DEBIAN_DIR)),
                "dataset-fashion-mnist is not installed");
        try (NDManager manager = NDManager.newBaseManager()) {
            FashionMnistData fm =
                    FashionMnistData.builder()
                            .optSettings(Settings.from(Map.of()))
                            .optCacheDir(cache)
                            .optLimit(100)
                            .setSampling(32, true)
                            .optManager(manager)
                            .build();
            ArrayDataset train = fm.train();
            ArrayDataset test = fm.test();
            assertEquals(cache, fm.folder().orElseThrow());
            assertEquals(100, train.size());
            assertEquals(100, test.size());
            assertEquals(16 + 60000L * 784, Files.size(cache.resolve("train_data")));
            assertEquals(8 + 10000L, Files.size(cache.resolve("test_labels")));
            for (ArrayDataset dataset : new ArrayDataset[] {train, test}) {
                long seen = 0;
                for (Batch batch : dataset.getData(manager)) {
                    try (batch) {
                        NDArray x = batch.getData().head();
                        NDArray y = batch.getLabels().head();
                        long b = x.getShape().get(0);
                        assertEquals(new Shape(b, 1, 28, 28), x.getShape());
                        assertEquals(DataType.FLOAT32, x.getDataType());
                        assertTrue(x.min().getFloat() >= 0f && x.max().getFloat() <= 1f);
                        assertTrue(y.min().getFloat() >= 0f && y.max().getFloat() <= 9f);
                        seen += b;
                    }
                }
                assertEquals(100, seen);
            }
        }
    }
}
