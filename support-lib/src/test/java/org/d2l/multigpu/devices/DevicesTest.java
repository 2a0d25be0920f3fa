package org.d2l.multigpu.devices;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.Device;
import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import java.util.Collections;
import java.util.List;
import org.d2l.multigpu.runtime.Djl;
import org.junit.jupiter.api.Test;

class DevicesTest {

    @Test
    void withoutGpusOfGivesVirtualReplicasOnTheCpu() {
        Djl.setup();
        if (Devices.gpuCount() == 0) {
            assertEquals(List.of(Device.cpu(), Device.cpu(), Device.cpu()), Devices.of(3));
            assertTrue(Devices.describe(Devices.of(2)).contains("2 virtual replicas"));
        } else {
            assertEquals(Device.gpu(0), Devices.of(1).get(0));
            assertFalse(Devices.hasVirtualReplicas(Devices.of(1)));
        }
        assertTrue(Devices.hasVirtualReplicas(Devices.virtual(2)));
        assertFalse(Devices.hasVirtualReplicas(Devices.virtual(1)));
    }

    @Test
    void splitGivesPartsThatDifferByAtMostOneAndNoEmptyPart() {
        assertArrayEquals(new long[] {3, 6, 8}, Devices.shardEnds(10, 4));
        try (NDManager manager = NDManager.newBaseManager(Device.cpu())) {
            List<NDList> parts = Devices.split(manager.arange(3f), manager.arange(3f), Devices.virtual(4));
            assertEquals(3, parts.size(), "3 examples on 4 devices: 3 parts of 1");
            assertArrayEquals(new float[] {2}, parts.get(2).get(1).toFloatArray());
        }
    }

    @Test
    void aGpuThatDoesNotExistIsAClearError() {
        int n = Devices.gpuCount();
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> Devices.check(Device.gpu(n)));
        assertTrue(e.getMessage().contains("does not exist"), e.getMessage());
    }

    /** Runs {@code check} as if the machine had {@code gpus} GPUs, returning what it printed. */
    private static String withGpus(int gpus, Runnable check) {
        java.io.PrintStream out = System.out;
        java.io.ByteArrayOutputStream printed = new java.io.ByteArrayOutputStream();
        Devices.simulateGpus(gpus);
        try {
            System.setOut(new java.io.PrintStream(printed, true, java.nio.charset.StandardCharsets.UTF_8));
            check.run();
        } finally {
            System.setOut(out);
            Devices.simulateGpus(null);
        }
        return printed.toString(java.nio.charset.StandardCharsets.UTF_8);
    }

    @Test
    void onOneGpuTwoOrFourReplicasShareItWithOnePrintedLine() {
        String printed = withGpus(1, () -> {
            assertEquals(List.of(Device.gpu(0)), Devices.of(1));
            assertEquals(List.of(Device.gpu(0), Device.gpu(0)), Devices.of(2));
            assertEquals(Collections.nCopies(4, Device.gpu(0)), Devices.of(4));
            assertTrue(Devices.describe(Devices.of(2)).contains("2 virtual replicas on gpu(0)"));
        });
        assertEquals(3, printed.lines().count(), "one line for each call that asked for more than 1 GPU: " + printed);
        assertTrue(printed.contains("Asked for 4 devices, this machine has 1 GPU(s): 4 replicas spread over gpu(0)"),
                printed);
    }

    @Test
    void onTwoGpusFourReplicasAlternateBetweenThem() {
        String printed = withGpus(2, () -> {
            assertEquals(List.of(Device.gpu(0), Device.gpu(1)), Devices.of(2));
            List<Device> four = Devices.of(4);
            assertEquals(List.of(Device.gpu(0), Device.gpu(1), Device.gpu(0), Device.gpu(1)), four);
            assertTrue(Devices.hasVirtualReplicas(four));
            assertTrue(Devices.describe(four).contains("4 replicas on 2 devices"), Devices.describe(four));
            assertTrue(Devices.describe(Devices.of(2)).contains("training on gpu(0), gpu(1)"));
            assertEquals(Device.gpu(1), Devices.check(Device.gpu(1)));
            assertThrows(IllegalArgumentException.class, () -> Devices.check(Device.gpu(2)));
        });
        assertEquals(1, printed.lines().count(), printed);
        assertTrue(printed.contains("4 replicas spread over gpu(0) to gpu(1)"), printed);
    }

    @Test
    void everyLessonStartsOnAOneAndATwoGpuMachine() throws java.io.IOException {
        // Every Devices.of(k) the lessons call gives k replicas on the GPUs there are.
        java.util.regex.Pattern call = java.util.regex.Pattern.compile("Devices\\.of\\((\\d+)\\)");
        List<Integer> asked = new java.util.ArrayList<>();
        try (var files = java.nio.file.Files.list(java.nio.file.Path.of("../notebooks"))) {
            for (java.nio.file.Path nb : files.filter(p -> p.toString().endsWith(".ipynb")).toList()) {
                java.util.regex.Matcher m = call.matcher(java.nio.file.Files.readString(nb));
                while (m.find()) {
                    asked.add(Integer.parseInt(m.group(1)));
                }
            }
        }
        assertTrue(asked.contains(2), "no lesson calls Devices.of(2)? " + asked);
        for (int gpus : new int[] {1, 2}) {
            withGpus(gpus, () -> {
                for (int k : asked) {
                    List<Device> d = Devices.of(k);
                    assertEquals(k, d.size());
                    assertTrue(d.stream().allMatch(x -> x.isGpu() && x.getDeviceId() < gpus), d.toString());
                    d.forEach(Devices::check);
                }
            });
        }
    }
}
