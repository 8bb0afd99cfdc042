package groupspec.kafka;

import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.coordinator.group.GroupConfig;
import org.apache.kafka.coordinator.group.GroupConfigManager;
import org.apache.kafka.coordinator.group.GroupCoordinatorConfig;
import org.apache.kafka.coordinator.group.modern.share.ShareGroupConfig;

import java.util.HashMap;
import java.util.Map;
import java.util.Properties;

/**
 * Kafka 4.3's group config manager: built from the default group configs and the broker's
 * coordinator and share configs (it holds each group's values within the broker's bounds,
 * {@code GroupConfig.evaluate}); a group's configs are validated by {@code GroupConfig.validate}
 * (4.2: {@code GroupConfigManager.validate}).
 */
public final class GroupConfigShim {
    private GroupConfigShim() {
    }

    /** A manager whose groups have no configs of their own and whose defaults are {@code defaults}. */
    static GroupConfigManager manager(Map<?, ?> defaults, GroupCoordinatorConfig config, ShareGroupConfig shareConfig) {
        return new GroupConfigManager(defaults, config, shareConfig);
    }

    /** A manager with no group configs and no defaults, over the broker's default configs (its
     *  users here never set a group config, so the bounds are never read). */
    public static GroupConfigManager empty() {
        ConfigDef both = new ConfigDef(GroupCoordinatorConfig.CONFIG_DEF);
        ShareGroupConfig.CONFIG_DEF.configKeys().values().forEach(both::define);
        AbstractConfig defaults = new AbstractConfig(both, Map.of());
        return new GroupConfigManager(Map.of(), new GroupCoordinatorConfig(defaults), new ShareGroupConfig(defaults));
    }

    /** What the controller checks before it accepts a group's configs (IncrementalAlterConfigs). */
    static void validate(Properties groupConfig, GroupCoordinatorConfig config, ShareGroupConfig shareConfig) {
        Map<String, Object> byName = new HashMap<>();
        groupConfig.forEach((name, value) -> byName.put((String) name, value));
        GroupConfig.validate(byName, config, shareConfig);
    }
}
