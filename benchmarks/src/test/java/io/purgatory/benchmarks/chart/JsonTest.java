package io.purgatory.benchmarks.chart;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class JsonTest {

    @Test
    void readsEveryKindOfValue() {
        Object parsed = Json.parse(" { \"a\" : [1, -2.5e3, true, false, null], \"b\" : { }, \"c\" : [ ] } ");

        assertEquals(Map.of("a", Arrays.asList(1.0, -2500.0, true, false, null), "b", Map.of(), "c", List.of()),
                parsed);
    }

    @Test
    void unescapesStrings() {
        assertEquals("q\"b\\s/n\nt\tu\u00e9", Json.parse("\"q\\\"b\\\\s\\/n\\nt\\tu\\u00e9\""));
    }

    @Test
    void keepsTheOrderOfKeys() {
        Map<?, ?> object = (Map<?, ?>) Json.parse("{\"z\": 1, \"a\": 2, \"m\": 3}");

        assertEquals(List.of("z", "a", "m"), List.copyOf(object.keySet()));
    }

    @Test
    void nullIsAValue() {
        assertNull(Json.parse("null"));
    }

    @Test
    void rejectsMalformedDocuments() {
        assertThrows(IllegalArgumentException.class, () -> Json.parse("{\"a\" 1}"));
        assertThrows(IllegalArgumentException.class, () -> Json.parse("[1, 2"));
        assertThrows(IllegalArgumentException.class, () -> Json.parse("\"open"));
        assertThrows(IllegalArgumentException.class, () -> Json.parse("[1] x"));
        assertThrows(IllegalArgumentException.class, () -> Json.parse("@"));
    }
}
