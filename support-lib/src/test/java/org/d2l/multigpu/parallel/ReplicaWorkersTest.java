package org.d2l.multigpu.parallel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.Device;
import java.util.List;
import org.d2l.multigpu.parallel.GlobalStep.ReplicaWorkers;
import org.junit.jupiter.api.Test;

class ReplicaWorkersTest {

    /** The name of the thread each of the replicas' work ran on. */
    private static String[] threads(List<Device> devices, Boolean concurrent) {
        String[] names = new String[devices.size()];
        try (ReplicaWorkers w = new ReplicaWorkers(devices, concurrent)) {
            w.runEach(devices.size(), r -> names[r] = Thread.currentThread().getName());
        }
        return names;
    }

    @Test
    void replicasSharingAGpuRunOnThatGpusThreadAndGpusRunOnThreadsOfTheirOwn() {
        // Devices.of(4) on a 2-GPU machine: replica i on GPU i mod 2 (no GPU is touched here)
        String[] t = threads(List.of(Device.gpu(0), Device.gpu(1), Device.gpu(0), Device.gpu(1)), null);
        assertEquals(t[0], t[2]);
        assertEquals(t[1], t[3]);
        assertNotEquals(t[0], t[1]);
        assertTrue(t[0].startsWith("device-gpu(0)") || t[0].contains("gpu(0)"), t[0]);
    }

    @Test
    void virtualReplicasOnOneDeviceRunOnTheCallingThreadUnlessForced() {
        String caller = Thread.currentThread().getName();
        List<Device> two = List.of(Device.cpu(), Device.cpu());
        assertEquals(List.of(caller, caller), List.of(threads(two, null)));
        assertEquals(List.of(caller, caller), List.of(threads(two, false)));
        String[] forced = threads(two, true);
        assertNotEquals(forced[0], forced[1], "forced on: a thread per replica");
        assertFalse(new ReplicaWorkers(two, null).concurrent());
    }
}
