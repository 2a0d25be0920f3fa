package org.d2l.multigpu.bench.harness;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class ChildProcessTest {

    @Test
    void returnsTheNumbersOfTheResultLine() throws Exception {
        double[] f = ChildProcess.measure(List.of("sh", "-c", "echo loading; echo 'RESULT dp2 5593.125 702000 3'"), "dp2");
        assertArrayEquals(new double[] {5593.125, 702000, 3}, f);
    }

    @Test
    void aChildThatFailsIsReportedWithItsOutput() {
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> ChildProcess.measure(List.of("sh", "-c", "echo 'no GPU here'; exit 3"), "dp1"));
        assertTrue(e.getMessage().contains("benchmark run dp1 failed (exit 3)"), e.getMessage());
        assertTrue(e.getMessage().contains("no GPU here"), e.getMessage());
    }

    @Test
    void aChildThatPrintsNoResultIsReportedAsFailed() {
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> ChildProcess.measure(List.of("sh", "-c", "echo done"), "djl"));
        assertTrue(e.getMessage().contains("benchmark run djl failed (exit 0)"), e.getMessage());
    }

    @Test
    void aChildJvmRunsTheMainClassOnThisClassPath() {
        List<String> cmd = ChildProcess.java(List.of("-Dx=1"), ChildProcessTest.class);
        assertTrue(cmd.get(0).endsWith("java"), cmd.toString());
        assertTrue(cmd.indexOf("-Dx=1") < cmd.indexOf("-cp"), cmd.toString());
        assertTrue(cmd.get(cmd.size() - 1).equals(ChildProcessTest.class.getName()), cmd.toString());
    }
}
