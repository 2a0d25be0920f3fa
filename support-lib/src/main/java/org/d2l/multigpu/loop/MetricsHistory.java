package org.d2l.multigpu.loop;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/** A run's {@link EpochMetrics} as CSV text, one epoch a line, that reads back to equal records (doubles exactly). */
public final class MetricsHistory {

    private static final String HEADER = "epoch,trainLoss,trainAccuracy,testAccuracy,seconds,examplesPerSecond,syncs,"
            + "syncBytes,skippedSteps,lossScale,steps,optimizerStateBytes,medianStepSeconds";

    private MetricsHistory() {}

    /** {@code history} as CSV bytes with a header line. */
    public static byte[] encode(List<EpochMetrics> history) {
        StringBuilder s = new StringBuilder(HEADER).append('\n');
        for (EpochMetrics m : history) {
            s.append(m.epoch()).append(',').append(m.trainLoss()).append(',').append(m.trainAccuracy()).append(',')
                    .append(m.testAccuracy()).append(',').append(m.seconds()).append(',').append(m.examplesPerSecond())
                    .append(',').append(m.syncs()).append(',').append(m.syncBytes()).append(',').append(m.skippedSteps())
                    .append(',').append(m.lossScale()).append(',').append(m.steps()).append(',')
                    .append(String.join(";", m.optimizerStateBytes().stream().map(String::valueOf).toList()))
                    .append(',').append(m.medianStepSeconds()).append('\n');
        }
        return s.toString().getBytes(StandardCharsets.UTF_8);
    }

    /** The metrics of {@link #encode}'s bytes. */
    public static List<EpochMetrics> decode(byte[] bytes) {
        String[] lines = new String(bytes, StandardCharsets.UTF_8).split("\n");
        if (lines.length == 0 || !lines[0].equals(HEADER)) {
            throw new IllegalStateException("The metrics history of the checkpoint has an unknown header.");
        }
        List<EpochMetrics> history = new ArrayList<>();
        for (int i = 1; i < lines.length; i++) {
            String[] f = lines[i].split(",", -1);
            List<Long> state = f[11].isEmpty() ? List.of() : Arrays.stream(f[11].split(";")).map(Long::valueOf).toList();
            history.add(new EpochMetrics(Integer.parseInt(f[0]), d(f[1]), d(f[2]), d(f[3]), d(f[4]), d(f[5]),
                    Long.parseLong(f[6]), Long.parseLong(f[7]), Long.parseLong(f[8]), d(f[9]), Long.parseLong(f[10]),
                    state, d(f[12])));
        }
        return history;
    }

    private static double d(String s) {
        return Double.parseDouble(s);
    }
}
