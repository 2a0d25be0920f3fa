package org.d2l.multigpu.bench.harness;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

class CliTest {

    @Command(name = "Demo")
    static final class Demo implements Cli.Checked {
        @Option(names = "--rounds", paramLabel = "N", description = "interleaved rounds")
        int rounds = 3;

        @Option(names = "--suite", paramLabel = "SUITE", description = "a or b")
        String suite = "a";

        @Override
        public void check() {
            Cli.oneOf("--suite", suite, List.of("a", "b"));
            Cli.atLeast("--rounds", rounds, 1);
        }
    }

    @Test
    void parsesOptionsInBothSpellings() {
        Demo d = Cli.parse(new Demo(), "--rounds", "5", "--suite=b");
        assertEquals(5, d.rounds);
        assertEquals("b", d.suite);
    }

    @Test
    void keepsDefaultsOfOptionsLeftOut() {
        assertEquals(3, Cli.parse(new Demo()).rounds);
    }

    @Test
    void aLaterValueOfAnOptionWins() {
        // bench/run.sh passes its settings first and BENCH_ARGS after them
        assertEquals(1, Cli.parse(new Demo(), "--rounds", "4", "--rounds", "1").rounds);
    }

    @Test
    void anUnknownOptionIsNamedAndTheUsageFollows() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> Cli.parse(new Demo(), "--round", "2"));
        assertTrue(e.getMessage().startsWith("Unknown option"), e.getMessage());
        assertTrue(e.getMessage().contains("'--round'"), e.getMessage());
        assertTrue(e.getMessage().contains("Usage: Demo"), e.getMessage());
        assertTrue(e.getMessage().contains("interleaved rounds"), e.getMessage());
    }

    @Test
    void aValueOfTheWrongTypeIsNamed() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> Cli.parse(new Demo(), "--rounds", "three"));
        assertTrue(e.getMessage().contains("--rounds") && e.getMessage().contains("'three' is not an int"),
                e.getMessage());
    }

    @Test
    void anOptionWithoutItsValueIsNamed() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Cli.parse(new Demo(), "--rounds"));
        assertTrue(e.getMessage().contains("--rounds"), e.getMessage());
    }

    @Test
    void theOptionsOwnCheckSaysWhatToUse() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> Cli.parse(new Demo(), "--suite", "c"));
        assertTrue(e.getMessage().startsWith("--suite: unknown value 'c'; use one of a, b"), e.getMessage());
        assertTrue(e.getMessage().contains("Usage: Demo"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> Cli.parse(new Demo(), "--rounds", "0"));
        assertTrue(e.getMessage().startsWith("--rounds must be at least 1, got 0"), e.getMessage());
    }
}
