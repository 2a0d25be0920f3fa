package org.d2l.multigpu.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.d2l.multigpu.data.FashionMnistData;
import org.d2l.multigpu.parallel.EpochMetrics;
import org.junit.jupiter.api.Test;

class SparkMainTest {

    @Test
    void unknownOptionsAreRefusedWithTheListOfOptions() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> SparkMain.parse(new String[] {"--partition", "2"}));
        assertTrue(e.getMessage().contains("--partitions"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> SparkMain.parse(new String[] {"--epochs"}));
        Map<String, String> o = SparkMain.parse(new String[] {"--frequency", "10"});
        assertEquals("10", o.get("--frequency"));
        assertEquals("2", o.get("--partitions"));
    }

    @Test
    void theCommandLineJobTrainsLeNetOnFashionMnistOnLocalOne() {
        assumeTrue(Files.isDirectory(Path.of(FashionMnistData.DEBIAN_DIR))
                || System.getenv("FASHION_MNIST_DIR") != null, "no Fashion-MNIST files on this machine");
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        List<EpochMetrics> h = SparkMain.run(SparkMain.parse(new String[] {"--master", "local[1]", "--limit", "256",
                "--epochs", "1", "--batch-size", "32", "--frequency", "2"}), new PrintStream(buf, true, StandardCharsets.UTF_8));
        String text = buf.toString(StandardCharsets.UTF_8);
        assertTrue(text.contains("master local[1], 2 partitions, averaging every 2"), text);
        assertEquals(1, h.size());
        assertEquals(2, h.get(0).syncs(), text); // 8 minibatches, 4 per partition, averaged every 2
        assertTrue(h.get(0).testAccuracy() >= 0 && h.get(0).testAccuracy() <= 1, text);
    }

    @Test
    void theCommandLineJobTrainsByRingAllreduceWithTrainerAllreduce() {
        assumeTrue(Files.isDirectory(Path.of(FashionMnistData.DEBIAN_DIR))
                || System.getenv("FASHION_MNIST_DIR") != null, "no Fashion-MNIST files on this machine");
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        List<EpochMetrics> h = SparkMain.run(SparkMain.parse(new String[] {"--master", "local[2]", "--limit", "256",
                "--epochs", "1", "--batch-size", "64", "--trainer", "allreduce"}), new PrintStream(buf, true, StandardCharsets.UTF_8));
        String text = buf.toString(StandardCharsets.UTF_8);
        assertTrue(text.contains("master local[2], 2 partitions in a barrier stage"), text);
        assertTrue(text.contains("bytes sent per step and rank"), text);
        assertEquals(4, h.get(0).syncs(), text); // 256 examples in global batches of 64
        assertTrue(h.get(0).testAccuracy() >= 0 && h.get(0).testAccuracy() <= 1, text);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> SparkMain.run(
                SparkMain.parse(new String[] {"--trainer", "ring", "--limit", "64"}), new PrintStream(buf, true, StandardCharsets.UTF_8)));
        assertTrue(e.getMessage().contains("averaging"), e.getMessage());
    }
}
