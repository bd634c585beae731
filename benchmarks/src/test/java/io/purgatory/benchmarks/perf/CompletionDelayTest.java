package io.purgatory.benchmarks.perf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class CompletionDelayTest {

    private static final int SAMPLES = 200_000;

    @ParameterizedTest
    @EnumSource(CompletionDelay.class)
    void samplesHaveTheRequestedMean(CompletionDelay distribution) {
        SplittableRandom random = new SplittableRandom(7);
        double sum = 0;
        for (int i = 0; i < SAMPLES; i++) {
            double sample = distribution.sample(random, 20, 1.0);
            assertTrue(sample >= 0);
            sum += sample;
        }
        assertEquals(20, sum / SAMPLES, 0.5);
    }

    @Test
    void logNormalMedianIsBelowItsMeanByTheShape() {
        SplittableRandom random = new SplittableRandom(11);
        double[] samples = new double[SAMPLES];
        for (int i = 0; i < SAMPLES; i++) {
            samples[i] = CompletionDelay.LOGNORMAL.sample(random, 20, 1.0);
        }
        Arrays.sort(samples);
        // median = exp(mu) = mean * exp(-sigma^2 / 2)
        assertEquals(20 * Math.exp(-0.5), samples[SAMPLES / 2], 0.3);
    }
}
