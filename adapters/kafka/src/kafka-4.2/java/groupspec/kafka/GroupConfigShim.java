package groupspec.kafka;

import org.apache.kafka.coordinator.group.GroupConfigManager;
import org.apache.kafka.coordinator.group.GroupCoordinatorConfig;
import org.apache.kafka.coordinator.group.modern.share.ShareGroupConfig;

import java.util.Map;
import java.util.Properties;

/**
 * Kafka 4.2's group config manager: built from the default group configs alone (4.3 also takes the
 * broker's coordinator and share configs, to hold per-group values within their bounds), and
 * validating a group's configs itself ({@code GroupConfigManager.validate}; 4.3 moved it to
 * {@code GroupConfig.validate}).
 */
public final class GroupConfigShim {
    private GroupConfigShim() {
    }

    /** A manager whose groups have no configs of their own and whose defaults are {@code defaults}. */
    static GroupConfigManager manager(Map<?, ?> defaults, GroupCoordinatorConfig config, ShareGroupConfig shareConfig) {
        return new GroupConfigManager(defaults);
    }

    /** A manager with no group configs and no defaults: every reader falls back to its own default. */
    public static GroupConfigManager empty() {
        return new GroupConfigManager(Map.of());
    }

    /** What the controller checks before it accepts a group's configs (IncrementalAlterConfigs). */
    static void validate(Properties groupConfig, GroupCoordinatorConfig config, ShareGroupConfig shareConfig) {
        GroupConfigManager.validate(groupConfig, config, shareConfig);
    }
}
