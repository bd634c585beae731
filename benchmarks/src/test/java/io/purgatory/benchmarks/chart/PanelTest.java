package io.purgatory.benchmarks.chart;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.IOException;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class PanelTest {

    @Test
    void onePanelPerBenchmarkMethodAndThreadCountOneSeriesPerTimer() throws IOException {
        List<Panel> panels = Panel.group(JmhResult.parse(JmhResultTest.fixture(), JmhResult.PRIMARY), "pending", "timer");

        assertEquals(2, panels.size());
        Panel oneThread = panels.get(0);
        assertEquals("TimerAddCancelBenchmark.oneThread, 1 thread", oneThread.title());
        assertEquals("pending", oneThread.xLabel());
        assertEquals("ops/s", oneThread.unit());
        assertEquals(List.of("PURGATORY", "KAFKA"), oneThread.series().stream().map(Panel.Series::name).toList());
        assertEquals(List.of(new Panel.Point(1000, 9.5e6, 2.5e5), new Panel.Point(1_000_000, 6.5e6, 3.0e5)),
                oneThread.series().get(0).points());
        assertEquals("TimerAddCancelBenchmark.twoThreads, 2 threads", panels.get(1).title());
    }

    @Test
    void pointsAreSortedByX() throws IOException {
        List<Panel> panels = Panel.group(JmhResult.parse(JmhResultTest.fixture(), JmhResult.PRIMARY), "pending", "timer");

        List<Panel.Point> twoThreads = panels.get(1).series().get(0).points();
        assertEquals(List.of(1000.0, 1_000_000.0), twoThreads.stream().map(Panel.Point::x).toList());
    }

    @Test
    void otherParametersSplitPanels() {
        List<JmhResult> results = List.of(
                new JmhResult("p.C.m", 1, Map.of("pending", "1", "timer", "A", "delay", "5"), 1, 0, "ops/s"),
                new JmhResult("p.C.m", 1, Map.of("pending", "1", "timer", "A", "delay", "9"), 2, 0, "ops/s"));

        List<Panel> panels = Panel.group(results, "pending", "timer");

        assertEquals(List.of("C.m, 1 thread, delay=5", "C.m, 1 thread, delay=9"), panels.stream().map(Panel::title).toList());
        assertEquals("C.m_1_thread_delay=5.png", panels.get(0).fileName(".png"));
    }

    @Test
    void aResultWithoutTheAxesParametersIsAnError() {
        List<JmhResult> results = List.of(new JmhResult("p.C.m", 1, Map.of("timer", "A"), 1, 0, "ops/s"));

        assertThrows(IllegalArgumentException.class, () -> Panel.group(results, "pending", "timer"));
    }
}
