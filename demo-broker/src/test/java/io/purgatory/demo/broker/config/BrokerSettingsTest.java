package io.purgatory.demo.broker.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.common.config.ConfigException;
import org.junit.jupiter.api.Test;

/**
 * The settings table: every number bounded so nothing accepted overflows, docs/demo.md's range and
 * scope column equal to the table, the dynamic configs derived from it, and one rule for topic names.
 */
class BrokerSettingsTest {
    private static final Pattern ROW = Pattern.compile("^\\| `(--[a-z-]+)[^`]*` \\|[^|]*\\|([^|]*)\\|");

    @Test
    void everyNumberIsBoundedFarFromOverflow() {
        for (Setting<?> setting : BrokerSettings.ALL) {
            if (setting.isNumeric()) {
                assertTrue(setting.max() <= 1L << 50 && setting.min() >= -1, setting + ": " + setting.min()
                        + ".." + setting.max());
            }
        }
        assertThrows(IllegalArgumentException.class, () -> Setting.ofLong("--unbounded", "N", 0, 0, Long.MAX_VALUE, "no bound"));
    }

    @Test
    void docsDemoMdShowsEachSettingsRangeAndScope() throws Exception {
        Map<String, String> documented = new LinkedHashMap<>();
        String markdown = Files.readString(Path.of("..", "docs", "demo.md"));
        String section = markdown.substring(markdown.indexOf("\n## demo-broker\n"));
        for (String line : section.substring(section.indexOf("\n|")).lines().skip(1).takeWhile(l -> l.startsWith("|")).toList()) {
            Matcher row = ROW.matcher(line);
            if (row.find()) {
                documented.putIfAbsent(row.group(1), row.group(2).trim());
            }
        }
        Map<String, String> expected = new LinkedHashMap<>();
        for (Setting<?> setting : BrokerSettings.ALL) {
            String range = setting.isNumeric() ? setting.min() + ".." + setting.max() : "";
            if (setting.scope() == Setting.Scope.DYNAMIC) {
                range += ", dynamic: `" + setting.brokerConfigName() + "`" + (setting.topicConfigName() == null ? ""
                        : setting.topicConfigName().equals(setting.brokerConfigName()) ? " (broker and topic)"
                        : ", topic `" + setting.topicConfigName() + "`");
            }
            expected.put(setting.option(), range);
        }
        assertEquals(expected, documented, "the range, scope column of docs/demo.md's table under '## demo-broker'");
    }

    @Test
    void dynamicConfigsTakeTheirNamesAndRangesFromTheTable() {
        assertEquals(DynamicSetting.MIN_INSYNC_REPLICAS, DynamicSetting.forTopicConfig("min.insync.replicas"));
        assertEquals(DynamicSetting.RETENTION_BYTES, DynamicSetting.forBrokerConfig("log.retention.bytes"));
        assertEquals(DynamicSetting.RETENTION_BYTES, DynamicSetting.forTopicConfig("retention.bytes"));
        assertEquals(null, DynamicSetting.forTopicConfig("replica.lag.time.max.ms"), "a broker-only setting");
        assertEquals(-1L, DynamicSetting.RETENTION_BYTES.parse("-1"));
        ConfigException tooLarge = assertThrows(ConfigException.class, () -> DynamicSetting.MAX_MESSAGE_BYTES.parse("2147483647"));
        assertTrue(tooLarge.getMessage().contains("max.message.bytes"), tooLarge.getMessage());
        assertEquals("30000", DynamicSetting.REPLICA_LAG_TIME_MAX_MS.staticValue(BrokerConfig.builder().build()));
    }

    @Test
    void topicNamesFollowKafkasRule() {
        BrokerConfig.checkTopicName("orders.v2_x-1");
        for (String bad : new String[] {"", ".", "..", "a b", "x".repeat(250)}) {
            assertThrows(IllegalArgumentException.class, () -> BrokerConfig.checkTopicName(bad), bad);
        }
        BrokerConfig.checkTopicName("x".repeat(249));
    }

    @Test
    void theBuilderSetsAnySettingOfTheTable() {
        BrokerConfig config = BrokerConfig.builder().set(BrokerSettings.NUM_PARTITIONS, 7).build();
        assertEquals(7, config.numPartitions());
        assertEquals(9092, config.get(BrokerSettings.PORT), "the others keep the command line's default");
        IllegalArgumentException outOfRange = assertThrows(IllegalArgumentException.class,
                () -> BrokerConfig.builder().set(BrokerSettings.REPLICAS, 100_000).build());
        assertEquals("--replicas must be 0..1000, was 100000", outOfRange.getMessage());
    }
}
