package org.d2l.multigpu.earlystopping;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.nn.Parameter;
import ai.djl.util.Pair;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.d2l.multigpu.checkpoint.Checkpoint;
import org.d2l.multigpu.checkpoint.ParameterFile;
import org.d2l.multigpu.checkpoint.Stateful;
import org.d2l.multigpu.devices.OnDevice;
import org.d2l.multigpu.loop.EpochTrainer;
import org.d2l.multigpu.loop.ParameterSnapshot;

/**
 * What a checkpoint holds of an early-stopping run: the rule's scores, best epoch and score, time taken
 * and last decision, and the best epoch's parameters (by parameter name), kept in {@code best[0]}.
 */
final class StoppingState implements Stateful {

    private static final String RULE = "early-stopping.properties";
    private static final String BEST = "best.ndlist";

    private final EarlyStoppingConfiguration config;
    private final StoppingRule rule;
    private final EpochTrainer trainer;
    private final ParameterSnapshot[] best;
    private final Map<String, String> nameOfId = new HashMap<>();

    StoppingState(EarlyStoppingConfiguration config, StoppingRule rule, EpochTrainer trainer, ParameterSnapshot[] best) {
        this.config = config;
        this.rule = rule;
        this.trainer = trainer;
        this.best = best;
        for (Pair<String, Parameter> p : trainer.getNet().getParameters()) {
            nameOfId.put(p.getValue().getId(), p.getKey());
        }
    }

    @Override
    public Map<String, String> identity() {
        return Map.of("early stopping", config.toString());
    }

    @Override
    public void save(Checkpoint out) {
        Map<String, String> p = new LinkedHashMap<>();
        p.put("scores", String.join(" ", rule.scores().stream().map(String::valueOf).toList()));
        p.put("bestEpoch", String.valueOf(rule.bestEpoch()));
        p.put("bestScore", String.valueOf(rule.bestScore()));
        p.put("elapsedNanos", String.valueOf(rule.elapsed().toNanos()));
        StoppingRule.Verdict v = rule.last();
        p.put("newBest", String.valueOf(v.newBest()));
        p.put("reason", v.reason() == null ? "" : v.reason().name());
        p.put("message", v.message() == null ? "" : v.message());
        out.putText(RULE, p);
        Map<String, NDArray> values = new LinkedHashMap<>();
        if (best[0] != null) {
            best[0].values().forEach((id, a) -> values.put(nameOfId.get(id), a));
        }
        out.put(BEST, ParameterFile.encode(values));
    }

    @Override
    public void load(Checkpoint in) {
        Map<String, String> p = in.text(RULE);
        List<Double> scores = p.get("scores").isEmpty() ? List.of()
                : Arrays.stream(p.get("scores").split(" ")).map(Double::valueOf).toList();
        String reason = p.get("reason");
        StoppingRule.Verdict last = new StoppingRule.Verdict(scores.size(), scores.get(scores.size() - 1),
                Boolean.parseBoolean(p.get("newBest")), reason.isEmpty() ? null : StopReason.valueOf(reason),
                p.get("message").isEmpty() ? null : p.get("message"));
        rule.resume(scores, Integer.parseInt(p.get("bestEpoch")), Double.parseDouble(p.get("bestScore")),
                Duration.ofNanos(Long.parseLong(p.get("elapsedNanos"))), last);
        if (best[0] != null) {
            best[0].close();
            best[0] = null;
        }
        try (NDManager tmp = NDManager.newBaseManager(trainer.getDevices().get(0))) {
            Map<String, NDArray> saved = ParameterFile.decode(in.get(BEST), tmp);
            if (!saved.isEmpty()) {
                best[0] = trainer.snapshot();
                best[0].values().forEach((id, a) -> OnDevice.copyInto(saved.get(nameOfId.get(id)), a));
            }
        }
    }
}
