package io.purgatory.benchmarks.perf;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class FiguresTest {

    @Test
    void durationPicksTheUnitThatKeepsTheNumberShort() {
        assertEquals("0 ns", Figures.duration(0));
        assertEquals("850 ns", Figures.duration(850));
        assertEquals("1.0 us", Figures.duration(1_000));
        assertEquals("12.3 us", Figures.duration(12_345));
        assertEquals("4.57 ms", Figures.duration(4_567_000));
        assertEquals("1.23 s", Figures.duration(1_230_000_000));
        assertEquals("-", Figures.duration(Double.NaN));
    }

    @Test
    void countIsRoundedWithSeparators() {
        assertEquals("1,234,568", Figures.count(1_234_567.6));
        assertEquals("0", Figures.count(0));
        assertEquals("-", Figures.count(Double.NaN));
    }

    @Test
    void mebibytesHaveOneDecimal() {
        assertEquals("1.5", Figures.mebibytes(1.5 * 1024 * 1024));
        assertEquals("-", Figures.mebibytes(Double.NaN));
    }
}
